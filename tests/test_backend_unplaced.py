"""A user's retriever's hits that the corpus cannot place keep their rank: never relevant, and the chunks
below them do not move up.

Oracle: trec_eval (pytrec_eval) on the retriever's own rankings with every hit kept under its own id: an id
the qrels do not hold is unjudged, so it takes its rank as a result that is not relevant. eval's per-question
values equal trec_eval's; the run file holds the hits in the retriever's order with those ids; search lists
them as not in the corpus at their ranks; a pool does not offer them for judging.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.files import beir_folder
from tests.support.known_rankings import as_run, corpus, per_question
from tests.support.python_retriever import module
from tests.support.ranking_server import Ranking
from tests.support.trec_oracle import SAME, read_run


def with_strangers(rankings: dict[str, Ranking]) -> dict[str, Ranking]:
    """Each ranking with hits no document holds put in among its first ten, scored between their neighbours:
    some with an id only, some with a text found nowhere, one question's twice under one id."""
    rng = random.Random(3)
    out = {}
    for number, (text, ranking) in enumerate(rankings.items()):
        ranking = list(ranking)
        for stranger in range(rng.choice((1, 2, 3))):
            at = rng.randrange(0, 10)
            above = ranking[at - 1][1] if at else ranking[0][1] + 1.0
            words = None if stranger % 2 else f"words no document holds {number} {stranger}"
            ranking.insert(at, (f"elsewhere-{number}-{stranger}", round((above + ranking[at][1]) / 2, 6), words))
        out[text] = ranking
    return out


@pytest.fixture
def strangers(tmp_path: Path) -> tuple[Path, dict[str, dict[str, int]], dict[str, Ranking], dict[str, str], Path]:
    path, qrels, rankings, texts = corpus(tmp_path)
    rankings = with_strangers(rankings)
    return path, qrels, rankings, texts, module(tmp_path, rankings)


def test_eval_ranks_hits_not_in_the_corpus_as_trec_eval_does(strangers, capsys: pytest.CaptureFixture[str]) -> None:
    path, qrels, rankings, texts, retriever = strangers
    run = run_cli(capsys, "eval", str(path), "--backend", f"python:{retriever}:search", "--no-workspace", "--json")
    assert run.status == 0, run.err
    theirs = per_question(qrels, as_run(rankings, texts))
    for row in run.json["per_question"]:
        expected = theirs[row["id"]]
        assert (1 / row["full_rank"] if row["full_rank"] else 0.0) == pytest.approx(expected["recip_rank"]), row
        assert row["ndcg@10"] == pytest.approx(expected["ndcg_cut_10"], abs=1e-12), row
        assert row["recall@10"] == pytest.approx(expected["recall_10"], abs=1e-12), row
    for ours, measure in SAME.items():
        mean = sum(q[measure] for q in theirs.values()) / len(theirs)
        assert run.json["metrics"][ours] == pytest.approx(mean, abs=1e-12), ours
    assert "hits of python:my_retriever.py:search are not in the corpus" in run.err
    assert "each keeps its rank, never relevant" in run.err


def test_the_run_file_keeps_them_at_their_ranks_under_their_ids(
        strangers, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, texts, retriever = strangers
    out = tmp_path / "mine.run"
    run = run_cli(capsys, "run", str(path), "--backend", f"python:{retriever}:search",
                  "-k", "12", "--output", str(out))
    assert run.status == 0, run.err
    written = read_run(out)
    for qid, text in texts.items():
        ranked = sorted(written[qid], key=lambda ident: -written[qid][ident])
        assert ranked == [ident for ident, *_ in rankings[text][:12]], qid


def test_search_lists_them_as_not_in_the_corpus(strangers, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, texts, retriever = strangers
    text = texts["q00"]
    backend = ["--backend", f"python:{retriever}:search", "-k", "10"]
    run = run_cli(capsys, "search", str(path), text, "--json", *backend)
    assert run.status == 0, run.err
    results = run.json["results"]
    assert [r["rank"] for r in results] == list(range(1, 11))
    assert [r["id"] for r in results] == [ident for ident, *_ in rankings[text][:10]]
    assert [bool(r.get("not_in_corpus")) for r in results] == [r["id"].startswith("elsewhere") for r in results]
    shown = run_cli(capsys, "search", str(path), text, *backend)
    assert shown.status == 0, shown.err
    for result in results:
        line = next(line for line in shown.out.splitlines() if line.startswith(f"{result['rank']:>3}  "))
        assert f"  {result['id']}" in line
        assert ("(not in the corpus)" in line) is bool(result.get("not_in_corpus")), line


def test_a_pool_does_not_offer_them_for_judging(strangers, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, _, _, retriever = strangers
    run = run_cli(capsys, "pool", str(path), "bm25", f"python:{retriever}:search", "--depth", "10",
                  "--json")
    assert run.status == 0, run.err
    offered = {pair["id"] for pair in run.json["pairs"]}
    assert offered and not any(ident.startswith("elsewhere") for ident in offered)


def test_a_search_answered_only_with_hits_not_in_the_corpus_lists_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, _, texts = corpus(tmp_path)
    retriever = module(tmp_path, {texts["q00"]: [("faq-1", 2.0, "words no document holds"), ("faq-2", 1.0, None)]})
    run = run_cli(capsys, "search", str(path), texts["q00"], "--json", "--backend", f"python:{retriever}:search")
    assert run.status == 0, run.err
    assert [(r["rank"], r["id"], r.get("not_in_corpus")) for r in run.json["results"]] == \
        [(1, "faq-1", True), (2, "faq-2", True)]
    assert run.json["note"] == ""


def test_the_prompt_quotes_them_at_their_ranks_with_their_own_text(
        strangers, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, texts, retriever = strangers
    text = texts["q00"]
    run = run_cli(capsys, "prompt", str(path), text, "-k", "10", "--json", "--backend", f"python:{retriever}:search")
    assert run.status == 0, run.err
    # the retriever's top 10 as the model would get them: a document's text cited by its id (no title, no file),
    # a hit the corpus cannot place by the retriever's id with the words it gave, one without words left out
    quoted = [(ident, words if ident.startswith("elsewhere") else f"alpha{int(ident[1:])} beta{int(ident[1:])} gamma")
              for ident, _, words in rankings[text][:10] if words or not ident.startswith("elsewhere")]
    context = run.json["prompt"].split("<context>\n")[1].split("\n</context>")[0]
    assert context.splitlines() == [f"[{n}] ({ident}) {words}" for n, (ident, words) in enumerate(quoted, 1)]
    assert any(ident.startswith("elsewhere") for ident, _ in quoted)  # the case the test is for
    assert [(c["rank"], c["id"], c.get("not_in_corpus", False)) for c in run.json["chunks"]] == \
        [(rank, ident, ident.startswith("elsewhere")) for rank, (ident, *_) in enumerate(rankings[text][:10], 1)]


def test_the_threshold_takes_the_retrievers_first_result_placed_or_not(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = [{"_id": f"d{i}", "title": "", "text": f"alpha{i} beta{i} gamma"} for i in range(4)]
    questions = [{"_id": "q0", "text": "question about alpha1"}, {"_id": "q1", "text": "question about alpha2"}]
    path = beir_folder(tmp_path / "c", docs, questions, "q0\td1\t1\nq1\td2\t0\n")  # q1: judged, nothing relevant
    retriever = module(tmp_path, {"question about alpha1": [("d1", 5.0, None)],
                                  "question about alpha2": [("faq-9", 9.0, "words no document holds"),
                                                            ("d2", 3.0, None)]})
    run = run_cli(capsys, "threshold", str(path), "--json", "--backend", f"python:{retriever}:search")
    assert run.status == 0, run.err
    assert run.json["unanswerable"] == [{"id": "q1", "text": "question about alpha2", "top_score": 9.0}]
    assert run.json["answerable"] == {"min": 5.0, "median": 5.0, "max": 5.0}
