"""nDCG@10 of a question with more than ten relevant chunks: the ideal DCG is cut at 10 too.

Both evaluations of nDCG are checked against the formula worked out here: eval's (``ndcg_rows`` over
score vectors) and the measures of runs (``ndcg`` over ranked ids). Neither needs the shared
Cranfield data, where such questions are common.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.engine.measuring.measures import parse_measures
from ranklens.engine.measuring.metrics import QuestionScores, evaluate

N = 30


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, 1))


def eval_of(relevant: list[int], grades: list[float]) -> dict[str, float]:
    """eval's metrics of one question whose chunks rank in index order (chunk 0 first)."""
    scores = np.linspace(1.0, 0.01, N)
    return evaluate([QuestionScores("q", "text", scores, np.array(relevant), np.array(grades))]).metrics


def test_twelve_relevant_chunks_in_the_top_ten_are_a_perfect_ndcg_at_10() -> None:
    metrics = eval_of(list(range(12)), [1.0] * 12)
    assert metrics["ndcg@10"] == pytest.approx(1.0)
    assert metrics["recall@10"] == pytest.approx(10 / 12)
    ranked = [f"c{i}" for i in range(N)]
    (ndcg10,) = parse_measures("nDCG@10")
    assert ndcg10(ranked, {f"c{i}": 1 for i in range(12)}) == pytest.approx(1.0)


def test_a_highly_relevant_chunk_at_rank_11_against_an_ideal_cut_at_10() -> None:
    # ten chunks of grade 1 rank 1-10, the one chunk of grade 3 ranks 11, one more of grade 2 ranks 12
    grades = [1.0] * 10 + [3.0, 2.0]
    expected = dcg([1.0] * 10) / dcg([3.0, 2.0] + [1.0] * 8)
    assert expected == pytest.approx(4.5436 / 7.1746, abs=1e-4)  # 10 ones; 3 + 2 / log2(3) + 8 ones from rank 3
    assert eval_of(list(range(12)), grades)["ndcg@10"] == pytest.approx(expected, rel=1e-12)
    ranked = [f"c{i}" for i in range(N)]
    (ndcg10,) = parse_measures("nDCG@10")
    assert ndcg10(ranked, {f"c{i}": int(g) for i, g in enumerate(grades)}) == pytest.approx(expected, rel=1e-12)
