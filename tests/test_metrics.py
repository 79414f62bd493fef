"""Ranking metrics, stable top-k and threshold analysis."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.metric_table import NDCG, RECALL
from ranklens.engine.measuring.metrics import (
    QuestionScores,
    evaluate,
    gold_rank,
    gold_ranks,
    threshold_analysis,
)
from tests.support.examples import examples

SEED_RANKS = [1, 4, 1, 3, 2, 1, 1, 1, 1, 1, 5, 1, 2, 1, 1]


def _stable_rank(scores: np.ndarray, relevant: np.ndarray) -> int | None:
    if len(relevant) == 0:
        return None
    order = np.argsort(-scores, kind="stable")
    return int(np.flatnonzero(np.isin(order, relevant))[0]) + 1


def _question_at_rank(rank: int, n: int = 18, qid: str = "q") -> QuestionScores:
    """Scores over n chunks with the only relevant chunk (index 7) at ``rank``."""
    scores = np.linspace(1.0, 0.1, n)
    others = [i for i in range(n) if i != 7]
    vals = np.empty(n)
    vals[others] = np.delete(scores, rank - 1)
    vals[7] = scores[rank - 1]
    return QuestionScores(qid, f"text {qid}", vals, np.array([7]))


# Integer-valued scores make ties frequent, which is where stable order matters.
_SCORES = hnp.arrays(np.float64, st.integers(1, 40), elements=st.integers(-3, 3).map(float))


@settings(max_examples=examples(300), deadline=None)
@given(_SCORES, st.data())
def test_gold_rank_equals_stable_argsort(scores: np.ndarray, data: st.DataObject) -> None:
    relevant = np.array(data.draw(st.lists(st.integers(0, len(scores) - 1), max_size=5)), dtype=int)
    assert gold_rank(scores, relevant) == _stable_rank(scores, relevant)


def test_gold_rank_ties_go_to_the_lower_index() -> None:
    s = np.array([1.0, 2.0, 2.0, 2.0])
    assert gold_rank(s, np.array([3])) == 3
    assert gold_rank(s, np.array([0])) == 4
    assert gold_rank(s, np.array([0, 2])) == 2
    assert gold_rank(s, np.array([], dtype=int)) is None


def test_gold_ranks_batched_matches_single() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 4, size=(30, 50)).astype(float)
    relevant = [rng.choice(50, size=rng.integers(0, 4), replace=False) for _ in range(30)]
    ranks = gold_ranks(scores, relevant)
    expected = [_stable_rank(s, r) or 0 for s, r in zip(scores, relevant)]
    assert ranks.tolist() == expected


def test_seed_tfidf_ranks_give_seed_metrics() -> None:
    ev = evaluate(_question_at_rank(r, qid=str(i)) for i, r in enumerate(SEED_RANKS))
    assert [q.rank for q in ev.per_question] == SEED_RANKS
    assert ev.metrics["hit@1"] == pytest.approx(10 / 15)
    assert ev.metrics["hit@3"] == pytest.approx(13 / 15)
    assert round(ev.metrics["mrr"], 3) == 0.786
    assert set(ev.metrics) == {"hit@1", "hit@3", "mrr", "ndcg@10", "recall@10", "span_recall@10",
                               "span_precision@10", "span_iou@10"}
    # One relevant chunk each: recall@10 is hit@10, nDCG is 1/log2(rank+1).
    assert ev.metrics["recall@10"] == 1.0
    assert ev.metrics["ndcg@10"] == pytest.approx(np.mean([1 / math.log2(r + 1) for r in SEED_RANKS]))


def test_mrr_uses_the_full_rank_and_missing_gold_counts_as_a_miss() -> None:
    far = _question_at_rank(15, qid="far")
    lost = QuestionScores("lost", "lost", np.ones(18), np.array([], dtype=int))
    ev = evaluate([far, lost], k=5)
    assert ev.metrics["mrr"] == pytest.approx((1 / 15 + 0) / 2)
    assert ev.metrics["recall@10"] == 0.0 and ev.metrics["hit@3"] == 0.0
    rows = ev.to_dict()["per_question"]
    assert rows[0]["rank"] is None and rows[0]["full_rank"] == 15  # beyond k = 5
    assert rows[1]["rank"] is None and rows[1]["full_rank"] is None


def test_graded_ndcg_and_recall_by_hand() -> None:
    # Relevant: chunk 0 (grade 3) at rank 1, chunk 2 (grade 2) at rank 3,
    # chunk 19 (grade 1) at rank 20, outside the top 10; chunk 5 judged 0.
    scores = np.linspace(1.0, 0.0, 20)
    q = QuestionScores("g", "g", scores, np.array([0, 2, 19, 5]), np.array([3, 2, 1, 0]))
    ev = evaluate([q])
    dcg = 3 / math.log2(2) + 2 / math.log2(4)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert ev.per_question[0].values[NDCG] == pytest.approx(dcg / idcg)
    assert ev.per_question[0].values[RECALL] == pytest.approx(2 / 3)
    assert ev.per_question[0].rank == 1


def test_recall_at_10_divides_by_every_relevant_chunk() -> None:
    # 15 relevant chunks among 40; scores fall with the index, so ranks are index + 1. Relevant
    # at ranks 1, 3, 5, 7, 9, 11, ..., 29: five of them in the top 10, ten below it.
    scores = np.linspace(1.0, 0.0, 40)
    relevant = np.arange(0, 30, 2)
    ev = evaluate([QuestionScores("many", "many", scores, relevant)])
    assert relevant.size == 15
    assert ev.per_question[0].values[RECALL] == pytest.approx(5 / 15)
    assert ev.metrics["recall@10"] == pytest.approx(1 / 3)
    # all fifteen in the top 15 still leave five outside the top 10
    packed = QuestionScores("packed", "packed", scores, np.arange(15))
    assert evaluate([packed]).metrics["recall@10"] == pytest.approx(10 / 15)


def test_ndcg_matches_scikit_learn() -> None:
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(7)
    for _ in range(20):
        scores = rng.random(60)
        grades = np.zeros(60)
        rel = rng.choice(60, size=6, replace=False)
        grades[rel] = rng.integers(1, 4, size=6)
        ev = evaluate([QuestionScores("x", "x", scores, rel, grades[rel])])
        assert ev.metrics["ndcg@10"] == pytest.approx(ndcg_score([grades], [scores], k=10))


def test_evaluation_json_shape() -> None:
    d = evaluate([_question_at_rank(2)], k=5).to_dict()
    assert set(d) >= {"metrics", "per_question"}
    assert set(d["per_question"][0]) >= {"id", "text", "rank"}
    assert d["per_question"][0]["rank"] == 2
    assert all(0.0 <= v <= 1.0 for v in d["metrics"].values())


def test_evaluate_needs_questions() -> None:
    with pytest.raises(RanklensError):
        evaluate([])


def _scored(prefix: str, scores: list[float]) -> list[tuple[str, str, float]]:
    return [(f"{prefix}{i}", f"{prefix} question {i}", s) for i, s in enumerate(scores)]


def test_threshold_separable() -> None:
    report = threshold_analysis(_scored("a", [0.5, 0.6, 0.7]), _scored("u", [0.1, 0.2]))
    assert report.best_threshold == pytest.approx(0.35)
    assert report.best_accuracy == 1.0


def test_threshold_ties_take_the_smallest() -> None:
    # t = 0.15, 0.35, 0.55 all score 5 of 7 correct; the smallest wins.
    report = threshold_analysis(_scored("a", [0.2, 0.4, 0.6, 0.8]), _scored("u", [0.1, 0.3, 0.5]))
    assert report.best_threshold == pytest.approx(0.15)
    assert report.best_accuracy == pytest.approx(5 / 7)


def test_threshold_reject_all_and_accept_all() -> None:
    reject = threshold_analysis(_scored("a", [0.1]), _scored("u", [0.5, 0.6, 0.7]))
    assert reject.best_accuracy == pytest.approx(3 / 4)
    assert reject.best_threshold > 0.7
    accept = threshold_analysis(_scored("a", [0.3, 0.4]), [])
    assert accept.best_threshold == 0.3 and accept.best_accuracy == 1.0
    empty = threshold_analysis([], [])
    assert empty.best_threshold is None and empty.best_accuracy is None


SEED_UNANSWERABLE = [0.302, 0.157, 0.295, 0.183]
# Fifteen answerable top scores with the seed's min 0.172, median 0.320, max 0.506.
SEED_ANSWERABLE = [0.172, 0.21, 0.25, 0.27, 0.29, 0.30, 0.31, 0.320,
                   0.33, 0.36, 0.40, 0.42, 0.45, 0.48, 0.506]


def test_seed_threshold_cannot_separate() -> None:
    report = threshold_analysis(_scored("a", SEED_ANSWERABLE), _scored("u", SEED_UNANSWERABLE))
    summary = report.to_dict()["answerable"]
    assert (summary["min"], summary["median"], summary["max"]) == (0.172, 0.320, 0.506)
    assert report.best_accuracy < 1.0
    # Brute force over a fine grid agrees that no threshold reaches 1.
    a, u = np.array(SEED_ANSWERABLE), np.array(SEED_UNANSWERABLE)
    grid = np.linspace(0, 0.6, 6001)
    acc = ((a[None, :] >= grid[:, None]).sum(1) + (u[None, :] < grid[:, None]).sum(1)) / 19
    assert acc.max() == pytest.approx(report.best_accuracy)
    t = report.best_threshold
    assert ((a >= t).sum() + (u < t).sum()) / 19 == pytest.approx(report.best_accuracy)


def test_threshold_json_shape() -> None:
    d = threshold_analysis(_scored("a", [0.4]), _scored("u", [0.1])).to_dict()
    assert set(d) == {"answerable", "unanswerable", "best_threshold", "best_accuracy"}
    assert set(d["answerable"]) == {"min", "median", "max"}
    assert d["unanswerable"] == [{"id": "u0", "text": "u question 0", "top_score": 0.1}]
