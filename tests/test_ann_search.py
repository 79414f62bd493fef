"""``--ann hnsw|ivf``: LSA (and dense) ranking through an approximate index, on the search path.

Oracles: exact search over the same vectors (every chunk scored, a different code path:
the scorer's own ``scores``), and the index's own settings checks. On a tiny corpus an
approximate index finds what exact search finds, so eval's metrics must be equal.
"""
from __future__ import annotations

import numpy as np
import pytest

from ranklens.engine.ann.hnsw import HNSWIndex
from ranklens.engine.ann.ranking import ApproximateScorer
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import assert_error, run_cli

pytest.importorskip("usearch", reason="HNSW needs usearch: pip install 'ranklens[hnsw]'")

LSA = ("--scorer", "lsa", "--dims", "12")


@pytest.mark.parametrize("ann", [("--ann", "hnsw"), ("--ann", "ivf", "--cells", "4", "--probes", "4")])
def test_eval_through_the_index_on_a_tiny_corpus_equals_exact(capsys, ann: tuple[str, ...]) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", *LSA, *ann, "--json")
    assert run.status == 0, run.err
    data = run.json
    exact = run_cli(capsys, "eval", "studio-alfa", *LSA, "--json").json
    assert data["metrics"] == pytest.approx(exact["metrics"])
    assert data["exact"]["metrics"] == pytest.approx(exact["metrics"])
    assert [q["full_rank"] for q in data["per_question"]] == [q["full_rank"] for q in exact["per_question"]]
    # exact's top 10 of 18 chunks holds cosines tied at 0 (to 1e-16): the index may pick other tied ones
    assert 0.9 <= data["kept_top10"] <= 1.0 and data["questions"] == 15
    assert data["setup"]["ann"] == ann[1] and "through " + ann[1] in data["scorer"]


def test_the_human_table_puts_the_index_beside_exact(capsys) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", *LSA, "--ann", "hnsw", "--ef-search", "16")
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert "through hnsw M=16 ef_search=16" in lines[0]
    assert any(line.startswith("hnsw ") for line in lines) and any(line.startswith("exact ") for line in lines)
    assert "of exact's top 10 kept" in run.out


def test_search_through_the_index_returns_exacts_top_k_with_exacts_scores() -> None:
    corpus = load_corpus("studio-alfa")
    bench = Workbench(corpus)
    exact = bench.retriever(setup_for(corpus, {"scorer": "lsa", "dims": 12}))
    approximate = bench.retriever(setup_for(corpus, {"scorer": "lsa", "dims": 12, "ann": "hnsw"}))
    assert isinstance(approximate.scorer, ApproximateScorer)
    for question in corpus.answerable:
        scores = exact.scores(exact.query(question.text))
        hits = approximate.search(question.text, k=3).hits
        assert [h.index for h in hits] == np.argsort(-scores, kind="stable")[:3].tolist()
        assert [h.score for h in hits] == pytest.approx(scores[[h.index for h in hits]].tolist(), abs=1e-12)


def test_chunks_the_index_did_not_find_are_never_shown() -> None:
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(
        setup_for(corpus, {"scorer": "lsa", "ann": "ivf", "cells": 6, "probes": 1, "k": 18}))
    for question in corpus.answerable:
        hits = retriever.search(question.text).hits
        assert 0 < len(hits) < 18 and all(np.isfinite(h.score) for h in hits)


def test_the_index_is_built_once_per_vector_set_and_build_setting(monkeypatch) -> None:
    built = []
    original = HNSWIndex.build.__func__

    def counting(cls, *args, **kwargs):  # noqa: ANN001, ANN202
        built.append(kwargs)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(HNSWIndex, "build", classmethod(counting))
    corpus = load_corpus("studio-alfa")
    bench = Workbench(corpus)
    for ef in (10, 64, 128):  # the knob is read per query: one index
        bench.retriever(setup_for(corpus, {"scorer": "lsa", "ann": "hnsw", "ef_search": ef, "k": 3}))
    assert len(built) == 1
    bench.retriever(setup_for(corpus, {"scorer": "lsa", "ann": "hnsw", "hnsw_m": 4}))  # another build setting
    assert len(built) == 2


@pytest.mark.parametrize("argv, needles", [
    (("--scorer", "bm25", "--ann", "hnsw"), ("ann", "bm25", "lsa")),
    (("--scorer", "lsa", "--ann", "annoy"), ("--ann", "annoy")),
    (("--scorer", "lsa", "--ann", "hnsw", "--ef-search", "0"), ("--ef-search",)),
    (("--scorer", "lsa", "--ann", "hnsw", "--hnsw-m", "1"), ("--hnsw-m",)),
    (("--scorer", "lsa", "--ann", "ivf", "--probes", "9", "--cells", "4"), ("probes", "number of cells (4)")),
    (("--scorer", "lsa", "--ann", "ivf", "--cells", "40"), ("cells", "number of vectors (18)")),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", *argv), *needles)


def test_ann_keeps_its_own_knob_lists(capsys) -> None:
    run = run_cli(capsys, "ann", "studio-alfa", "--index", "hnsw", "--ef-search", "10,20", "--json")
    assert run.status == 0, run.err
    assert [row["knob"] for row in run.json["rows"]] == [{"ef_search": 10}, {"ef_search": 20}]
