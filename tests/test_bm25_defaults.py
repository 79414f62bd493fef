"""BM25 as ranklens runs it when nothing is said: lucene, k1 1.2, b 0.75, in the engine and on the command line.

The engine is checked against bm25s given those parameters, the command line against the formula
worked by hand, so a default that drifts fails here and not only in the TUI's setting steps.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import run_cli
from tests.support.files import beir_folder

RECORDS = [
    {"_id": "d1", "text": "apple apple pear"},  # 3 words
    {"_id": "d2", "text": "apple plum"},  # 2 words
    {"_id": "d3", "text": "plum pear fig kiwi"},  # 4 words: the average length is 3
]


def lucene_by_hand(tf: int, length: int, df: int, n: int = 3, avg: float = 3.0) -> float:
    """Lucene's BM25 with k1 1.2 and b 0.75: idf · tf / (tf + k1 · (1 − b + b · length / avg))."""
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * length / avg))


@pytest.fixture
def fruit(tmp_path: Path) -> Path:
    return beir_folder(tmp_path / "fruit", RECORDS)


def test_the_worked_example() -> None:
    # the worked numbers: ln(1.6) · 2/3.2 and ln(1.6) · 1/1.9
    assert lucene_by_hand(2, 3, 2) == pytest.approx(math.log(1.6) * 0.625)
    assert lucene_by_hand(1, 2, 2) == pytest.approx(math.log(1.6) / 1.9)


def test_engine_default_is_lucene_k1_1_2_b_0_75_as_bm25s_computes_it(fruit: Path) -> None:
    import bm25s

    corpus = load_corpus(fruit)
    retriever = Workbench(corpus).retriever(setup_for(corpus))
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75, dtype="float64")
    reference.index([r["text"].split() for r in RECORDS], show_progress=False)
    for query in (["apple"], ["pear", "plum"], ["apple", "fig", "kiwi"]):
        got = retriever.scores(retriever.query(" ".join(query)))
        assert np.abs(got - reference.get_scores(query)).max() < 1e-12, query
    moved = bm25s.BM25(method="lucene", k1=1.5, b=0.75, dtype="float64")
    moved.index([r["text"].split() for r in RECORDS], show_progress=False)
    assert np.abs(retriever.scores(retriever.query("apple")) - moved.get_scores(["apple"])).max() > 1e-3


def test_command_line_default_scores_by_hand(capsys: pytest.CaptureFixture[str], fruit: Path) -> None:
    run = run_cli(capsys, "search", str(fruit), "apple", "--json")
    assert run.status == 0, run.err
    results = run.json["results"]
    assert [r["id"] for r in results] == ["d1", "d2"]
    assert [r["score"] for r in results] == pytest.approx([lucene_by_hand(2, 3, 2), lucene_by_hand(1, 2, 2)],
                                                         abs=1e-12)


@pytest.mark.parametrize("variant", ["bm25l", "bm25+"])
def test_default_delta_is_0_5_in_the_engine_and_on_the_command_line(capsys: pytest.CaptureFixture[str],
                                                                    fruit: Path, variant: str) -> None:
    import bm25s

    reference = bm25s.BM25(method=variant, k1=1.2, b=0.75, delta=0.5, dtype="float64")
    reference.index([r["text"].split() for r in RECORDS], show_progress=False)
    expected = reference.get_scores(["apple"])
    corpus = load_corpus(fruit)
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"bm25_variant": variant}))
    assert np.abs(retriever.scores(retriever.query("apple")) - expected).max() < 1e-12
    run = run_cli(capsys, "search", str(fruit), "apple", "--bm25-variant", variant, "--json")
    assert run.status == 0, run.err
    by_id = {r["_id"]: score for r, score in zip(RECORDS, expected)}
    assert {r["id"]: r["score"] for r in run.json["results"]} == pytest.approx(
        {r["id"]: by_id[r["id"]] for r in run.json["results"]}, abs=1e-12)
    assert [r["id"] for r in run.json["results"]][:2] == ["d1", "d2"]
