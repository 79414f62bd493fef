"""The experiments show no per-query latency, so they answer no question twice: ``Retriever.evaluate``
times single queries (``search``, as a user runs it) only when its caller asks, and ``eval`` still does.

The oracle is a count of ``Retriever.search`` calls (the single-query path the latency is timed on), and
eval's JSON with the contract's ``p50_ms``/``p99_ms``.
"""
from __future__ import annotations

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.experiments.chunking import Window, chunk_sweep
from ranklens.engine.experiments.scorers import compare_scorers
from ranklens.engine.retriever import Retriever, Workbench, setup_for
from tests.support.cli import run_cli


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries answered one at a time through ``Retriever.search``."""
    asked: list[str] = []
    search = Retriever.search

    def counted(self: Retriever, query: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        asked.append(query)
        return search(self, query, *args, **kwargs)

    monkeypatch.setattr(Retriever, "search", counted)
    return asked


def test_the_chunk_sweep_answers_no_single_query(searches: list[str]) -> None:
    workbench = Workbench(load_corpus("studio-alfa"))
    sweep = chunk_sweep(workbench, setup_for(workbench.corpus), [Window(20, 0, "words"), Window(40, 10, "words")])
    assert len(sweep.cells) == 2 and sweep.complete
    assert searches == []


def test_comparing_scorers_answers_no_single_query(searches: list[str]) -> None:
    workbench = Workbench(load_corpus("studio-alfa"))
    table = compare_scorers(workbench, setup_for(workbench.corpus), ("tfidf", "bm25"))
    assert len(table.scorers) == 2
    assert searches == []


def test_evaluate_without_latency_leaves_the_percentiles_out(searches: list[str]) -> None:
    corpus = load_corpus("studio-alfa")
    report = Workbench(corpus).retriever(setup_for(corpus)).evaluate(latency_sample=0)
    assert set(report.timing) == {"index_s", "queries_per_s"}
    assert searches == []


def test_eval_still_times_single_queries(capsys, searches: list[str]) -> None:  # noqa: ANN001
    run = run_cli(capsys, "eval", "studio-alfa", "--json")
    assert run.status == 0, run.err
    timing = run.json["timing"]
    assert timing["p50_ms"] > 0 and timing["p99_ms"] >= timing["p50_ms"]
    questions = [q["text"] for q in run.json["per_question"]]
    assert searches == questions  # each of studio-alfa's 15 questions once (fewer than 200)
