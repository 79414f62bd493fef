"""Fusing rankings, added up by hand: reciprocal rank fusion with its published k = 60, and the mean
of min-max normalised scores.

RRF (Cormack et al., 2009): a chunk's fused score is the sum over scorers of 1 / (60 + its rank),
counting only scorers that rank it. The examples are small enough to write every fraction out.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.fusion import minmax, rrf, weighted_sum
from tests.support.cli import run_cli
from tests.support.files import beir_folder

# "apple" ranks a above b for BM25 (two occurrences against one, equal lengths) and for TF-IDF
# (a's vector is all apple); c shares no term with it, so no scorer ranks c.
RECORDS = [{"_id": "a", "text": "apple apple"}, {"_id": "b", "text": "apple pear"}, {"_id": "c", "text": "pear plum"}]
BY_HAND = [2 / 61, 2 / 62]  # first in both rankings, then second in both


@pytest.fixture
def fruit(tmp_path: Path) -> Path:
    return beir_folder(tmp_path / "fruit", RECORDS)


def test_rrf_by_hand_with_the_default_k() -> None:
    first = np.array([3.0, 2.0, 1.0, 0.0])  # ranks 1, 2, 3; the 0 is unranked
    second = np.array([1.0, 3.0, 2.0, 0.0])  # ranks 3, 1, 2
    expected = [1 / 61 + 1 / 63, 1 / 62 + 1 / 61, 1 / 63 + 1 / 62, 0.0]
    assert rrf([first, second]) == pytest.approx(expected, abs=1e-15)
    assert rrf([first, second], rrf_k=1) == pytest.approx([1 / 2 + 1 / 4, 1 / 3 + 1 / 2, 1 / 4 + 1 / 3, 0.0])


def test_fused_retriever_scores_by_hand(fruit: Path) -> None:
    corpus = load_corpus(fruit)
    setup = setup_for(corpus, {"scorer": "fusion", "fuse": "bm25,tfidf"})
    result = Workbench(corpus).retriever(setup).search("apple", 3)
    assert [h.chunk.id for h in result.hits] == ["a", "b"]  # c is ranked by neither scorer
    assert [h.score for h in result.hits] == pytest.approx(BY_HAND, abs=1e-15)


def test_fused_search_on_the_command_line_by_hand(capsys: pytest.CaptureFixture[str], fruit: Path) -> None:
    run = run_cli(capsys, "search", str(fruit), "apple", "--scorer", "fusion", "--fuse", "bm25,tfidf", "--json")
    assert run.status == 0, run.err
    results = run.json["results"]
    assert [r["id"] for r in results] == ["a", "b"]
    assert [r["score"] for r in results] == pytest.approx(BY_HAND, abs=1e-15)


def test_weighted_sum_by_hand() -> None:
    first = np.array([3.0, 2.0, 1.0, 0.0])  # min-max: 1, 2/3, 1/3, 0
    second = np.array([1.0, 3.0, 2.0, 0.0])  # min-max: 1/3, 1, 2/3, 0
    assert weighted_sum([first, second]) == pytest.approx([2 / 3, 5 / 6, 1 / 2, 0.0], abs=1e-15)
    # LSA's cosines go below 0: the lowest score, not 0, maps to 0
    assert minmax(np.array([-1.0, 1.0, 0.5])) == pytest.approx([0.0, 1.0, 0.75], abs=1e-15)
    assert weighted_sum([first, second], [0.25, 0.75]) == pytest.approx(
        [0.25 + 0.75 / 3, 0.25 * 2 / 3 + 0.75, 0.25 / 3 + 0.5, 0.0], abs=1e-15)


def test_fused_sum_on_the_command_line_by_hand(capsys: pytest.CaptureFixture[str], fruit: Path) -> None:
    # b against a: BM25 (lucene, equal lengths) (1/2.2)/(2/3.2) = 8/11; TF-IDF cosine 1/√2 (apple and
    # pear weigh alike); the mean of the two min-max scores
    run = run_cli(capsys, "search", str(fruit), "apple", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                  "--fusion-method", "sum", "--json")
    assert run.status == 0, run.err
    assert [r["id"] for r in run.json["results"]] == ["a", "b"]
    assert [r["score"] for r in run.json["results"]] == pytest.approx([1.0, (8 / 11 + 1 / np.sqrt(2)) / 2],
                                                                     abs=1e-12)
