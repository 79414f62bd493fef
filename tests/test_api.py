"""The Python API (ranklens/): every number equals the command line's JSON for the same setup and judgments,
results print as the command line prints them, runs are what ranx and pytrec_eval take, errors are one line.

The oracles are the command line run in-process (its JSON and its text), the seed's printed numbers and
pytrec_eval (trec_eval itself).
"""
from __future__ import annotations

import inspect
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest

import ranklens as rl
from ranklens.engine.errors import RanklensError
from tests.support.cli import run_cli
from tests.support.files import beir_folder

CRANFIELD = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"
CORPUS = "studio-alfa"
QUERY = "ho cancellato un file per sbaglio"


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    run = run_cli(capsys, *argv, "--json")
    assert run.status == 0, run.err
    return run.json


def cli_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    run = run_cli(capsys, *argv)
    assert run.status == 0, run.err
    return run.out.rstrip("\n")


def as_json(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` as the command line's JSON reads back (tuples as lists, NaN as null is the engine's)."""
    return json.loads(json.dumps(value))


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key != "timing"}


# -- the same numbers as the command line ---------------------------------------------------------


def test_search_equals_the_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    hits = rl.open(CORPUS).search(QUERY, "bm25 --k1 0.9 --stem it", k=3)
    expected = cli_json(capsys, "search", CORPUS, QUERY, "--scorer", "bm25", "--k1", "0.9", "--stem", "it", "-k", "3")
    assert as_json(hits.to_dict()) == expected
    assert [hit["id"] for hit in hits] == [row["id"] for row in expected["results"]] and len(hits) == 3


def test_keywords_are_the_setup_the_words_are(capsys: pytest.CaptureFixture[str]) -> None:
    wb = rl.open(CORPUS)
    words = wb.search(QUERY, "bm25 --k1 0.9 --sublinear-tf --stem it", k=4).to_dict()
    assert wb.search(QUERY, scorer="bm25", k1=0.9, sublinear_tf=True, stem="it", k=4).to_dict() == words
    assert wb.search(QUERY, "bm25 --k1 0.5", k1=0.9, sublinear_tf=True, stem="it", k=4).to_dict() == words


@pytest.mark.parametrize(("setup", "options"), [
    (None, []),
    ("bm25 --stem it", ["--scorer", "bm25", "--stem", "it"]),
    ("lsa --dims 8", ["--scorer", "lsa", "--dims", "8"]),
    ("--size 20 --overlap 5 --scorer bm25", ["--size", "20", "--overlap", "5", "--scorer", "bm25"]),
])
def test_evaluate_equals_the_cli_json(capsys: pytest.CaptureFixture[str], setup: str | None,
                                      options: list[str]) -> None:
    ev = rl.open(CORPUS).evaluate(setup)
    expected = without_timing(cli_json(capsys, "eval", CORPUS, *options))
    assert without_timing(as_json(ev.to_dict())) == expected
    assert ev.metrics == expected["metrics"]
    assert ev.per_question == expected["per_question"]


def test_evaluate_reproduces_the_lessons_tfidf_table() -> None:
    # seed 004, printed: ranks 1,4,1,3,2,1,1,1,1,1,5,1,2,1,1; hit@1 10/15, hit@3 13/15, MRR 0.786
    ev = rl.open(CORPUS).evaluate()
    assert [q["rank"] for q in ev.per_question] == [1, 4, 1, 3, 2, 1, 1, 1, 1, 1, 5, 1, 2, 1, 1]
    assert ev.metrics["hit@1"] == pytest.approx(10 / 15) and ev.metrics["hit@3"] == pytest.approx(13 / 15)
    assert round(ev.metrics["mrr"], 3) == 0.786


@pytest.mark.parametrize("runs", [["bm25"], ["bm25", "bm25 --stem it"]], ids=["two runs", "three runs"])
def test_compare_equals_the_cli_json(capsys: pytest.CaptureFixture[str], runs: list[str]) -> None:
    cmp = rl.open(CORPUS).compare("tfidf", *runs, metrics="nDCG@10 MRR@10 bpref", permutations=2000, seed=7)
    expected = cli_json(capsys, "compare", CORPUS, "tfidf", *runs, "--metrics", "nDCG@10 MRR@10 bpref",
                        "--permutations", "2000", "--seed", "7")
    assert as_json(cmp.to_dict()) == expected


def test_compare_defaults_are_the_engines() -> None:
    from ranklens.engine.comparing.significance import PERMUTATIONS, SEED

    defaults = inspect.signature(rl.Workbench.compare).parameters
    assert (defaults["permutations"].default, defaults["seed"].default) == (PERMUTATIONS, SEED)


def test_compare_takes_saved_runs_run_files_and_runs_made_here(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    workspace, run_file = tmp_path / "workspace", tmp_path / "lsa.run"
    for target in (["--save", "saved"], ["--output", str(run_file)]):
        made = run_cli(capsys, "run", CORPUS, "--scorer", "bm25", "--stem", "it", "--workspace", str(workspace),
                       *target)
        assert made.status == 0, made.err
    expected = cli_json(capsys, "compare", CORPUS, "saved", str(run_file), "tfidf", "--workspace", str(workspace))
    wb = rl.open(CORPUS, workspace=workspace)
    assert as_json(wb.compare("saved", run_file, "tfidf").to_dict()) == expected
    # a run made here measures as the same run read from its file
    made_here = as_json(wb.compare("saved", wb.run("bm25 --stem it", name="here"), "tfidf").to_dict())
    assert made_here["runs"][0]["label"] == "here"
    assert made_here["runs"][0]["metrics"] == expected["runs"][0]["metrics"]


def test_compare_tells_what_the_cli_tells(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    partial = tmp_path / "partial.run"  # two questions of fifteen, and an id the corpus lacks
    partial.write_text("q01 Q0 ferie-0 1 2.0 x\nq01 Q0 nowhere 2 1.0 x\nq02 Q0 trasferte-1 1 1.0 x\n")
    rl.open(CORPUS).compare("tfidf", partial, "bm25", metrics="MRR@10")
    told = capsys.readouterr().err
    cli = run_cli(capsys, "compare", CORPUS, "tfidf", str(partial), "bm25", "--metrics", "MRR@10")
    assert cli.status == 0 and "13 compared question(s) not in the run" in cli.err and "warning: " in cli.err
    assert told == cli.err


def test_run_equals_the_cli_run_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run = rl.open(CORPUS).run("bm25 --stem it", k=20)
    written = tmp_path / "cli.run"
    made = run_cli(capsys, "run", CORPUS, "--scorer", "bm25", "--stem", "it", "-k", "20", "--output", str(written))
    assert made.status == 0, made.err
    by_hand: dict[str, dict[str, float]] = {}
    for line in written.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        by_hand.setdefault(qid, {})[doc] = float(score)
    assert run.to_dict() == by_hand
    sidecar = json.loads(written.with_suffix(".json").read_text())
    assert run.metrics == sidecar["metrics"] and run.meta["setup"] == sidecar["setup"]


def test_workspace_judgments_count_as_on_the_command_line(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    workspace = str(tmp_path / "workspace")
    judged = run_cli(capsys, "judgments", CORPUS, "--workspace", workspace, "--judge", "q01", "ferie-1", "2")
    assert judged.status == 0, judged.err
    mine = rl.open(CORPUS, workspace=workspace).evaluate("bm25")
    expected = cli_json(capsys, "eval", CORPUS, "--scorer", "bm25", "--workspace", workspace)
    assert without_timing(as_json(mine.to_dict())) == without_timing(expected)
    assert expected["judgments"]["own_judgments"] == 1
    alone = rl.open(CORPUS, workspace=workspace, no_workspace=True).evaluate("bm25")
    expected_alone = cli_json(capsys, "eval", CORPUS, "--scorer", "bm25", "--workspace", workspace, "--no-workspace")
    assert without_timing(as_json(alone.to_dict())) == without_timing(expected_alone)
    assert alone.metrics != mine.metrics


# -- runs for the peer libraries ---------------------------------------------------------------------


def test_a_runs_dict_is_what_pytrec_eval_measures() -> None:
    # (ranx.Run takes the same dict; ranx's numba compilation takes a minute here, and test_measures.py
    # already holds ranklens' measures to ranx's)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = rl.open(CORPUS).run("tfidf")  # TF-IDF ties no scores here: every library reads one order
    trec = pytrec_eval.RelevanceEvaluator(run.qrels, {"ndcg_cut_10", "map", "recip_rank"}).evaluate(run.to_dict())
    for ours, theirs in (("nDCG@10", "ndcg_cut_10"), ("MAP", "map")):
        assert run.metrics[ours] == pytest.approx(statistics.mean(q[theirs] for q in trec.values()), abs=1e-9)
    measured = rl.evaluate(run.qrels, run, "nDCG@10 MRR")
    assert measured.metrics["MRR"] == pytest.approx(statistics.mean(q["recip_rank"] for q in trec.values()), abs=1e-9)
    assert measured.per_question == {qid: {"nDCG@10": pytest.approx(q["ndcg_cut_10"], abs=1e-9),
                                           "MRR": pytest.approx(q["recip_rank"], abs=1e-9)} for qid, q in trec.items()}


def test_to_trec_writes_the_file_trec_eval_reads(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = rl.open(CORPUS).run("bm25", k=10)
    path = run.to_trec(tmp_path / "bm25.run")
    with path.open() as handle:
        assert pytrec_eval.parse_run(handle) == run.to_dict()


# -- printing ----------------------------------------------------------------------------------------


def test_results_print_as_the_cli_prints_them(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    wb = rl.open(CORPUS)
    assert repr(wb.search(QUERY, "bm25", k=3)) == cli_text(capsys, "search", CORPUS, QUERY, "--scorer", "bm25",
                                                          "-k", "3")
    ev_lines, cli_lines = repr(wb.evaluate()).splitlines(), cli_text(capsys, "eval", CORPUS).splitlines()
    assert ev_lines[:-1] == cli_lines[:-1] and ev_lines[-1].startswith("index ")  # the last line: timings
    for runs in (["bm25"], ["bm25", "lsa"]):
        assert repr(wb.compare("tfidf", *runs)) == cli_text(capsys, "compare", CORPUS, "tfidf", *runs)
    made = cli_text(capsys, "run", CORPUS, "--scorer", "bm25", "--output", str(tmp_path / "bm25.run"))
    assert repr(wb.run("bm25", name="bm25")).splitlines() == made.splitlines()[:2]


def test_untrusted_text_is_shown_as_text(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "hostile", [
        {"_id": "d<b>1</b>", "title": "", "text": "click <script>alert(1)</script> here \x1b[31mred"},
        {"_id": "d2", "title": "", "text": "nothing to see"},
    ])
    hits = rl.open(folder).search("click here", "bm25")
    shown = hits._repr_html_()
    assert shown.startswith("<pre>") and "<script>" not in shown and "<b>" not in shown
    assert "&lt;script&gt;" in shown and "d&lt;b&gt;1&lt;/b&gt;" in shown
    assert "\x1b" not in repr(hits) and "\x1b" not in shown
    assert hits.results[0]["text"].endswith("\x1b[31mred")  # the data itself is left as it is


def test_to_frame_makes_the_tables_of_the_dicts() -> None:
    pytest.importorskip("pandas")
    wb = rl.open(CORPUS)
    ev = wb.evaluate("bm25")
    assert ev.to_frame().iloc[0].to_dict() == ev.metrics
    per_question = ev.to_frame(per_question=True)
    assert list(per_question.index) == [q["id"] for q in ev.per_question]
    assert [None if rank != rank else rank for rank in per_question["rank"]] == [q["rank"] for q in ev.per_question]
    hits = wb.search(QUERY, k=3)
    assert list(hits.to_frame()["id"]) == [hit["id"] for hit in hits]
    cmp = wb.compare("tfidf", "bm25", "lsa", metrics="nDCG@10 MRR@10")
    frame, report = cmp.to_frame(), cmp.to_dict()
    assert frame.loc[("lsa", "MRR@10"), "p_holm"] == report["runs"][1]["metrics"]["MRR@10"]["p_holm"]
    assert frame.loc[("tfidf", "nDCG@10"), "mean"] == report["baseline"]["metrics"]["nDCG@10"]
    run = wb.run("bm25", k=5)
    assert run.to_frame().loc[("q01", 1), "id"] == next(iter(run.to_dict()["q01"]))
    assert rl.evaluate(run.qrels, run, "P@5").to_frame()["P@5"].iloc[0] == run.metrics["P@5"]


def test_to_frame_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    ev = rl.open(CORPUS).evaluate()
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails, as where it is not installed
    with pytest.raises(RanklensError, match=r"needs pandas.*ranklens\[notebook\]"):
        ev.to_frame()


# -- errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "needles"), [
    (lambda wb, tmp: rl.open(tmp / "missing"), ["corpus not found", "missing"]),
    (lambda wb, tmp: wb.search(QUERY, "bm25 --k1 banana"), ["setup 'bm25 --k1 banana'", "--k1 must be a number"]),
    (lambda wb, tmp: wb.search(QUERY, "bm25 --wings 2"), ["setup 'bm25 --wings 2'", "--wings"]),
    (lambda wb, tmp: wb.search(QUERY, "bm25 'unclosed"), ["a quote is not closed"]),
    (lambda wb, tmp: wb.evaluate(colour="red"), ["keywords", "unknown setting 'colour'"]),
    (lambda wb, tmp: wb.evaluate(k=0), ["keywords", "k must be at least 1"]),
    (lambda wb, tmp: wb.search(QUERY, "bm25 --rerank some-model"), ["rerank", "ranklens search or eval"]),
    (lambda wb, tmp: wb.compare("bm25"), ["at least one run"]),
    (lambda wb, tmp: wb.compare("bm25", "tfidf", "tfidf"), ["'tfidf' is given twice"]),
    (lambda wb, tmp: wb.compare("bm25", wb.run("tfidf", name="bm25")), ["'bm25' is given twice"]),
    (lambda wb, tmp: wb.compare("no-such-run", "bm25"), ["'no-such-run' is not a saved run", "not a setup"]),
    (lambda wb, tmp: wb.compare("bm25", "tfidf", metrics="nDCG@10 ERR@20"), ["unknown measure 'ERR@20'"]),
    (lambda wb, tmp: wb.compare("bm25", "tfidf", "lsa", correction="sidak"), ["unknown correction 'sidak'"]),
    (lambda wb, tmp: rl.evaluate({"q": {"d": "yes"}}, {"q": {"d": 1.0}}), ["question 'q', id 'd'", "grade 'yes'"]),
    (lambda wb, tmp: rl.evaluate({"q": {"d": 1}}, {"q": {"d": float("nan")}}), ["question 'q', id 'd'", "score"]),
])
def test_bad_input_is_one_line_ranklens_error(tmp_path: Path, call: Any, needles: list[str]) -> None:
    wb = rl.open(CORPUS)
    with pytest.raises(RanklensError) as raised:
        call(wb, tmp_path)
    message = str(raised.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)


def test_a_malformed_trec_file_is_named_with_its_line(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "bad.run"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 two 0.4 tag\n")
    with pytest.raises(RanklensError, match=r"bad\.run:2: rank 'two' is not a whole number"):
        rl.evaluate(qrels, run)


def test_the_error_class_is_the_engines() -> None:
    assert rl.RanklensError is RanklensError


# -- the contract's lines on a real collection ---------------------------------------------------------


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason="the Cranfield collection is not on this machine")
def test_the_contract_runs_as_written_on_cranfield(capsys: pytest.CaptureFixture[str]) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    wb = rl.open(CRANFIELD)
    hits = wb.search("shock waves on swept wings", "bm25 --stem en", k=5)
    ev = wb.evaluate("bm25 --stem en")
    capsys.readouterr()
    cmp = wb.compare("bm25", "bm25 --stem en", "tfidf", metrics="nDCG@10 MRR@10")
    told = capsys.readouterr().err
    run = wb.run("bm25", k=100)
    measured = rl.evaluate(CRANFIELD / "qrels" / "test.tsv", run, "nDCG@10 bpref")

    corpus = str(CRANFIELD)
    assert as_json(hits.to_dict()) == cli_json(capsys, "search", corpus, "shock waves on swept wings", "--scorer",
                                               "bm25", "--stem", "en", "-k", "5")
    assert ev.metrics == cli_json(capsys, "eval", corpus, "--scorer", "bm25", "--stem", "en")["metrics"]
    compared = run_cli(capsys, "compare", corpus, "bm25", "bm25 --stem en", "tfidf", "--metrics", "nDCG@10 MRR@10",
                       "--json")
    assert as_json(cmp.to_dict()) == compared.json
    assert told == compared.err and "warning: bm25's top 10 is 22 % judged" in told  # Cranfield's judgments are few
    assert repr(cmp).startswith("# cranfield · 225 judged questions")
    qrels: dict[str, dict[str, int]] = {}
    for line in (CRANFIELD / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "bpref"}).evaluate(run.to_dict())
    assert measured.metrics["nDCG@10"] == pytest.approx(statistics.mean(q["ndcg_cut_10"] for q in trec.values()),
                                                        abs=1e-9)
    assert measured.metrics["bpref"] == pytest.approx(statistics.mean(q["bpref"] for q in trec.values()), abs=1e-9)
