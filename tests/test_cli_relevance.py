"""The relevance workflow on the command line: run, runs, compare, why, judgments (cli/relevance.py)."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.measures import measure_run
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.measuring.runs import resolved_qrels
from ranklens.engine.comparing.significance import randomization_test
from ranklens.engine.measuring.trec import read_qrels, read_run
from tests.support.cli import assert_error, run_cli, run_on
from tests.support.files import beir_folder

# Six chunks, three questions judged on them; words chosen so BM25 and TF-IDF differ.
RECORDS = [
    {"_id": "c0", "text": "the cat sat on the mat"},
    {"_id": "c1", "text": "a dog chased the cat around the garden"},
    {"_id": "c2", "text": "cats and dogs are pets that people keep at home"},
    {"_id": "c3", "text": "the stock market fell as traders sold shares"},
    {"_id": "c4", "text": "shares of the market leader rose sharply today today today"},
    {"_id": "c5", "text": "a garden needs water sun and care"},
]
QUERIES = [{"_id": "q1", "text": "cat on a mat"}, {"_id": "q2", "text": "market shares today"},
           {"_id": "q3", "text": "garden care water"}, {"_id": "q4", "text": "an unanswerable question"}]
QRELS = "q1\tc0\t2\nq1\tc2\t1\nq2\tc3\t1\nq2\tc4\t2\nq3\tc5\t1\nq3\tc1\t1\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return beir_folder(tmp_path / "pets", RECORDS, QUERIES, QRELS)


def test_run_saves_a_trec_run_and_its_sidecar(capsys, tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "ws"
    run = run_on(capsys, corpus, "run", str(corpus), "--save", "bm25", "--workspace", str(ws), "--json")
    assert run.status == 0, run.err
    data = run.json
    assert data["k"] == 100 and data["questions"] == 4 and data["judged"] == 3
    assert data["setup"]["scorer"] == "bm25" and data["corpus"]["name"] == "pets"
    saved = read_run(ws / "runs" / "bm25.run")
    assert list(saved.rankings) == ["q1", "q2", "q3"]  # q4 matches nothing: a TREC run has no line for it
    assert json.loads((ws / "runs" / "bm25.json").read_text())["metrics"] == data["metrics"]
    # the headline measures are the measures of the saved run against the resolved judgments
    loaded = load_corpus(corpus)
    retriever = Workbench(loaded).retriever(setup_for(loaded))
    assert data["metrics"] == measure_run(saved.ids(), resolved_qrels(retriever, loaded.questions),
                                          "nDCG@10 MRR@10 P@5 R@100 MAP").means
    listed = run_on(capsys, corpus, "runs", str(corpus), "--workspace", str(ws), "--json")
    assert [r["name"] for r in listed.json["runs"]] == ["bm25"] and listed.json["runs"][0]["same_corpus"]
    text = run_on(capsys, corpus, "runs", str(corpus), "--workspace", str(ws))
    assert "bm25" in text.out and "nDCG@10" in text.out


def test_the_default_workspace_is_in_the_data_folder_not_the_corpus(capsys, tmp_path: Path, corpus: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert run_on(capsys, corpus, "run", str(corpus), "--save", "first").status == 0
    assert list((tmp_path / "xdg" / "ranklens" / "workspaces").glob("pets-*/runs/first.run"))


def exact_randomization(d: np.ndarray) -> float:
    """The randomization test's p over all 2^n sign vectors: what 10,000 random ones estimate."""
    observed = abs(d.mean())
    signs = np.array(list(itertools.product((1, -1), repeat=d.size)))
    return float(np.mean(np.abs((signs * d).mean(axis=1)) >= observed - 1e-12))


def test_compare_inline_setups_matches_the_engine(capsys, tmp_path: Path, corpus: Path) -> None:
    # LSA in one dimension ranks q1 and q2's relevant chunks lower than BM25: the two setups differ
    run = run_on(capsys, corpus, "compare", str(corpus), "lsa --dims 1", "bm25", "--metrics", "nDCG@10 MRR P@1",
                 "--workspace", str(tmp_path / "ws"), "--json")
    assert run.status == 0, run.err
    data = run.json
    assert list(data["metrics"]) == ["nDCG@10", "MRR", "P@1"]
    assert [q["id"] for q in data["per_question"]] == ["q1", "q2", "q3"]  # q4 has nothing judged
    assert (data["by"], data["permutations"], data["seed"]) == ("nDCG@10", 10_000, 42)
    for name, row in data["metrics"].items():
        a = np.array([q["a"][name] for q in data["per_question"]])
        b = np.array([q["b"][name] for q in data["per_question"]])
        d = b - a
        assert row["a"] == pytest.approx(a.mean()) and row["delta"] == pytest.approx(d.mean())
        assert (row["wins"], row["ties"], row["losses"]) == (int((d > 0).sum()), int((d == 0).sum()),
                                                             int((d < 0).sum()))
        assert row["p_ttest"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-12)
        exact = exact_randomization(d)
        assert abs(row["p_randomization"] - exact) < 4 * np.sqrt(exact * (1 - exact) / 10_000) + 1e-4, name
        assert row["p_randomization"] == randomization_test(a, b, 10_000, 42)  # the documented seed and count
        # three questions: each resample of one question thrice (1/27 of all) is the lowest or highest
        # mean, more than the 2.5 % in each tail, so the 95 % interval runs from the least Δ to the greatest
        assert row["ci95"] == pytest.approx([d.min(), d.max()], rel=1e-12, abs=1e-15)
    ndcg = data["metrics"]["nDCG@10"]
    assert (ndcg["wins"], ndcg["ties"], ndcg["losses"]) == (3, 0, 0) and ndcg["delta"] > 0
    assert data["metrics"]["MRR"]["ties"] == 1  # q3's chunk ranks first on both sides
    text = run_on(capsys, corpus, "compare", str(corpus), "lsa --dims 1", "bm25", "--metrics", "nDCG@10 MRR P@1",
                  "--workspace", str(tmp_path / "ws"))
    for name, row in data["metrics"].items():
        low, high = row["ci95"]
        assert (f"{row['a']:>7.4f} {row['b']:>7.4f} {row['delta']:>+8.4f}" in text.out
                and f"[{low:+.4f}, {high:+.4f}]" in text.out), name
    assert "B against A on nDCG@10: 3 wins, 0 ties, 0 losses" in text.out


def test_compare_saved_runs_and_run_files(capsys, tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "ws"
    assert run_cli(capsys, "run", str(corpus), "--save", "a", "--workspace", str(ws)).status == 0
    out = tmp_path / "elsewhere" / "b.run"
    out.parent.mkdir()
    assert run_cli(capsys, "run", str(corpus), "--output", str(out), "--scorer", "tfidf", "-k", "3").status == 0
    assert out.with_suffix(".json").is_file() and max(len(r) for r in read_run(out).rankings.values()) <= 3
    saved = run_cli(capsys, "compare", str(corpus), "a", str(out), "--workspace", str(ws), "--json")
    inline = run_cli(capsys, "compare", str(corpus), "bm25", "tfidf -k 3", "--workspace", str(ws), "--json")
    assert saved.status == inline.status == 0, saved.err + inline.err
    assert saved.json["metrics"] == inline.json["metrics"]
    assert saved.json["b"]["setup"] == inline.json["b"]["setup"]


def test_a_malformed_run_line_is_file_and_line(capsys, tmp_path: Path, corpus: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 c0 1 2.0 x\nq1 Q0 c1 two 1.0 x\n")
    assert_error(run_cli(capsys, "compare", str(corpus), str(bad), "bm25", "--workspace", str(tmp_path / "ws")),
                 "bad.run:2: rank 'two' is not a whole number")


def test_runs_of_different_corpora_are_refused(capsys, tmp_path: Path, corpus: Path) -> None:
    other = beir_folder(tmp_path / "other", [*RECORDS, {"_id": "c6", "text": "one more chunk"}], QUERIES, QRELS)
    out = tmp_path / "other.run"
    assert run_cli(capsys, "run", str(other), "--output", str(out)).status == 0
    assert_error(run_cli(capsys, "compare", str(corpus), str(out), "bm25", "--workspace", str(tmp_path / "ws")),
                 "is a run of corpus 'other'", "not of 'pets'", "different corpora")
    foreign = tmp_path / "foreign.run"  # no sidecar, ids of nothing in the corpus
    foreign.write_text("q1 Q0 doc-9 1 2.0 x\nq2 Q0 doc-7 1 1.0 x\n")
    assert_error(run_cli(capsys, "compare", str(corpus), str(foreign), "bm25", "--workspace", str(tmp_path / "ws")),
                 "none of its 2 ranked ids is a chunk of 'pets'")


@pytest.mark.parametrize(("argv", "needles"), [
    (("--metrics", "nDCG@10 ERR@5"), ("unknown measure 'ERR@5'", "known: nDCG@k")),
    (("--permutations", "10"), ("--permutations must be at least 1000",)),
])
def test_bad_compare_options_are_one_line(capsys, tmp_path: Path, corpus: Path, argv, needles) -> None:
    assert_error(run_cli(capsys, "compare", str(corpus), "bm25", "tfidf", *argv), *needles)


def test_a_side_that_is_nothing_is_one_line(capsys, tmp_path: Path, corpus: Path) -> None:
    assert_error(run_cli(capsys, "compare", str(corpus), "bm25", "bm99 --k1 2", "--workspace", str(tmp_path / "w")),
                 "'bm99 --k1 2' is not a saved run", "not a file, and not a setup", "invalid choice: 'bm99'")


def test_why_shows_rank_missing_terms_and_what_analysis_lost(capsys, corpus: Path) -> None:
    run = run_on(capsys, corpus, "why", str(corpus), "the cat on a mat", "c2", "--stopwords", "en", "--json")
    assert run.status == 0, run.err
    data = run.json
    loaded = load_corpus(corpus)
    retriever = Workbench(loaded).retriever(setup_for(loaded, {"stopwords": "en"}))
    ranking = [h.chunk.id for h in retriever.search("the cat on a mat", 6).hits]
    assert data["top"]["id"] == ranking[0] == "c0"
    assert "c2" not in ranking and data["chunk"]["rank"] is None  # shares no term: not retrieved
    assert data["missing"] == ["cat", "mat"] and data["missing_in_top"] == ["cat", "mat"]
    assert {"word": "the", "reason": "stop word", "term": ""} in data["lost"]
    assert {"word": "a", "reason": "too short", "term": ""} in data["lost"]
    text = run_on(capsys, corpus, "why", str(corpus), "the cat on a mat", "c1", "--stopwords", "en")
    assert "c1 ranks 2 of 6" in text.out and "lacks: mat" in text.out


def test_why_an_unknown_chunk_is_one_line(capsys, corpus: Path) -> None:
    assert_error(run_cli(capsys, "why", str(corpus), "cat", "c9"), "no chunk 'c9' in pets")


def test_judging_importing_and_undoing_change_the_measures(capsys, tmp_path: Path, corpus: Path) -> None:
    ws = ["--workspace", str(tmp_path / "ws")]

    def mrr_of_q4() -> float | None:
        data = run_cli(capsys, "compare", str(corpus), "bm25", "tfidf", "--metrics", "MRR", *ws, "--json").json
        return next((q["a"]["MRR"] for q in data["per_question"] if q["id"] == "q4"), None)

    assert mrr_of_q4() is None  # q4 has nothing judged: not compared
    judged = run_cli(capsys, "judgments", str(corpus), "--judge", "q4", "c3", "3", *ws, "--json", "--rater", "ann")
    assert judged.status == 0, judged.err
    assert judged.json["judged"] == {"question": "q4", "id": "c3", "grade": 3, "previous": None, "rater": "ann",
                                     "span": {"doc": "c3", "start": 0, "end": 44}}  # the chunk's text: its record
    assert mrr_of_q4() == 0.0  # "an unanswerable question" shares no term with c3
    (tmp_path / "more.qrels").write_text("q4 0 c0 1\nq1 0 c0 0\n")
    imported = run_cli(capsys, "judgments", str(corpus), "--import-qrels", str(tmp_path / "more.qrels"), *ws,
                       "--json", "--rater", "bob")
    assert imported.json["imported_judgments"] == 2 and imported.json["judgments"] == 3
    exported = tmp_path / "out.qrels"
    run_cli(capsys, "judgments", str(corpus), "--export-qrels", str(exported), *ws)
    assert read_qrels(exported).judgments == {"q1": {"c2": 1, "c0": 0}, "q2": {"c3": 1, "c4": 2},
                                              "q3": {"c5": 1, "c1": 1}, "q4": {"c3": 3, "c0": 1}}
    undone = run_cli(capsys, "judgments", str(corpus), "--undo", *ws, "--json", "--rater", "bob").json
    # bob's latest: the corpus' own grade 2 is back
    assert undone["undone"] == {"question": "q1", "id": "c0", "grade": None, "rater": "bob"}
    assert read_qrels(tmp_path / "ws" / "qrels").judgments == {"q4": {"c3": 3, "c0": 1}}


def test_questions_import_and_export(capsys, tmp_path: Path, corpus: Path) -> None:
    ws = ["--workspace", str(tmp_path / "ws")]
    (tmp_path / "topics.tsv").write_text("t1\tmarket traders\nt2\tpets at home\n")
    run = run_cli(capsys, "judgments", str(corpus), "--import-queries", str(tmp_path / "topics.tsv"),
                  "--judge", "t1", "c3", "2", "--export-queries", str(tmp_path / "all.jsonl"), *ws, "--json")
    assert run.status == 0, run.err
    assert run.json["imported_questions"] == 2 and run.json["questions"] == 6
    ids = [json.loads(line)["_id"] for line in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert ids == ["q1", "q2", "q3", "q4", "t1", "t2"]
    saved = run_cli(capsys, "run", str(corpus), "--save", "mine", *ws, "--json").json
    assert saved["questions"] == 6 and saved["judged"] == 4


@pytest.mark.parametrize(("argv", "needle"), [
    (("--judge", "q9", "c0", "1"), "no question 'q9'"),
    (("--judge", "q1", "c99", "1"), "no chunk or document 'c99'"),
    (("--judge", "q1", "c0", "x"), "grade 'x' is not a whole number"),
])
def test_bad_judgments_are_one_line(capsys, tmp_path: Path, corpus: Path, argv, needle) -> None:
    assert_error(run_cli(capsys, "judgments", str(corpus), *argv, "--workspace", str(tmp_path / "ws")), needle)


def test_why_says_when_search_shows_nothing(capsys, corpus: Path) -> None:
    run = run_cli(capsys, "why", str(corpus), "xyzzy", "c3", "--json")
    assert run.status == 0, run.err
    assert run.json["note"] == "none of the query's terms occurs in the corpus"
    assert run.json["lost"] == [{"word": "xyzzy", "reason": "not in the vocabulary", "term": "xyzzy"}]
    assert run.json["chunk"]["in_top_k"] is False and run.json["chunk"]["score"] == 0


def test_saving_over_a_run_needs_replace_and_keeps_the_old_run_whole(capsys, tmp_path: Path, corpus: Path) -> None:
    from ranklens.engine.workspace.store import RunExists, Workspace

    ws = tmp_path / "ws"
    assert run_on(capsys, corpus, "run", str(corpus), "--save", "mine", "--workspace", str(ws)).status == 0
    before = (ws / "runs" / "mine.run").read_bytes(), (ws / "runs" / "mine.json").read_bytes()
    refused = run_on(capsys, corpus, "run", str(corpus), "--save", "mine", "--scorer", "tfidf", "--workspace", str(ws))
    assert_error(refused, "a run named 'mine' is saved already", "--replace")
    assert ((ws / "runs" / "mine.run").read_bytes(), (ws / "runs" / "mine.json").read_bytes()) == before
    replaced = run_on(capsys, corpus, "run", str(corpus), "--save", "mine", "--scorer", "tfidf", "--replace",
                      "--workspace", str(ws), "--json")
    assert replaced.status == 0 and replaced.json["setup"]["scorer"] == "tfidf"
    assert json.loads((ws / "runs" / "mine.json").read_text())["setup"]["scorer"] == "tfidf"
    assert_error(run_on(capsys, corpus, "run", str(corpus), "--output", "-", "--replace"),
                 "--replace: only with --save NAME or --output FILE")
    # the engine refuses too, whatever front end asks
    workspace = Workspace(ws)
    saved = workspace.load_run("mine")
    with pytest.raises(RunExists):
        workspace.save_run("mine", saved.run, {})
    assert workspace.load_run("mine").meta == saved.meta
