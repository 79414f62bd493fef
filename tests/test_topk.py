"""Top-k selection: the first k of numpy's stable descending sort, ties to the lower index, on every path
(a full sort for small inputs, a partition above a thousand scores, a sampled bound above 65,536)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ranklens.engine.topk import top_k
from tests.support.examples import examples


def stable_top(scores: np.ndarray, k: int) -> list[int]:
    return np.argsort(-scores, kind="stable")[:k].tolist()


@settings(max_examples=examples(150), deadline=None)
@given(n=st.integers(1, 3000), k=st.integers(0, 60), levels=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_top_k_is_the_stable_sort_with_ties(n: int, k: int, levels: int, seed: int) -> None:
    # few distinct values: many chunks tie at the k-th score, where the choice among them matters
    scores = np.random.default_rng(seed).integers(0, levels, n).astype(np.float64)
    assert top_k(scores, k).tolist() == stable_top(scores, k)


@pytest.mark.parametrize("k", [1, 10, 100, 1000, 3000])  # 3000 of 70,000: too many for the sampled bound
def test_top_k_on_large_inputs_with_ties(k: int) -> None:
    rng = np.random.default_rng(k)
    for n in (5_000, 70_000, 200_000):
        scores = rng.integers(0, 50, n).astype(np.float64)
        assert top_k(scores, k).tolist() == stable_top(scores, k), n
        scores[rng.choice(n, min(3 * k, n), replace=False)] = 99.0  # more ties than k at the very top
        assert top_k(scores, k).tolist() == stable_top(scores, k), n


@pytest.mark.parametrize("nans", [1, 9, 10, 400])
def test_top_k_puts_nan_scores_where_the_stable_sort_does(nans: int) -> None:
    """A NaN (a cosine over a zero vector) compares with nothing: fewer than k, or all of the k-th, must still
    come out as the stable sort orders them, on the partitioned path too."""
    rng = np.random.default_rng(nans)
    scores = rng.integers(0, 5, 2000).astype(np.float64)
    scores[rng.choice(2000, nans, replace=False)] = np.nan
    for k in (1, 10, 50):
        assert top_k(scores, k).tolist() == stable_top(scores, k)


def test_more_than_n_returns_every_index_in_order() -> None:
    scores = np.array([0.5, 2.0, 0.5, 1.0])
    assert top_k(scores, 10).tolist() == [1, 3, 0, 2]


class _Counted:
    """A scorer over a fixed score vector that finds its top k itself (a PrunedTopK, as BM25's MaxScore or an
    external engine) and counts how often a question is scored in full."""

    def __init__(self, scores: np.ndarray) -> None:
        self.vector, self.full_scorings = scores, 0

    def query_scores(self, query: object):  # noqa: ANN201
        from ranklens.engine.topk import QueryScores

        self.full_scorings += 1
        return QueryScores.of(self.vector)

    def top_k(self, query: object, k: int) -> tuple[np.ndarray, np.ndarray]:
        chosen = np.asarray(stable_top(self.vector, k), dtype=np.int64)
        return chosen, self.vector[chosen]


@settings(max_examples=examples(200), deadline=None)
@given(n=st.integers(1, 200), k=st.integers(1, 20), levels=st.integers(1, 5), seed=st.integers(0, 2**32 - 1),
       relevant=st.integers(1, 6))
def test_a_rank_read_off_the_top_k_equals_the_full_sorts(n: int, k: int, levels: int, seed: int,
                                                         relevant: int) -> None:
    from ranklens.engine.topk import PendingScores

    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, n).astype(np.float64)  # few values: ties at the k-th score are common
    rel = rng.choice(n, min(relevant, n), replace=False)
    oracle = int(np.flatnonzero(np.isin(np.argsort(-scores, kind="stable"), rel))[0]) + 1
    scorer = _Counted(scores)
    pending = PendingScores(scorer, None, n)
    top = pending.top_k(k).tolist()
    assert pending.gold_rank(rel) == oracle
    # scored in full only when the top k could not decide: no relevant chunk above the k-th score
    kth = scores[top[-1]]
    decided = any(i in set(rel.tolist()) and scores[i] > kth for i in top)
    assert scorer.full_scorings == (0 if decided else 1)


class _Engine(_Counted):
    depth = 1000  # declares DeepScoringCostly: scoring in full is an engine's deep query

    def gold_rank(self, query: object, relevant: np.ndarray) -> int | None:
        return None  # an engine that cannot tell a rank more cheaply than by its deep query


class _RankingEngine(_Engine):
    """An engine that tells a rank with short queries, counting them (the oracle for what it returns is the
    full stable sort, computed here as the test computes it)."""

    def __init__(self, scores: np.ndarray) -> None:
        super().__init__(scores)
        self.ranks_told = 0

    def gold_rank(self, query: object, relevant: np.ndarray) -> int | None:
        self.ranks_told += 1
        return int(np.flatnonzero(np.isin(np.argsort(-self.vector, kind="stable"), relevant))[0]) + 1


@pytest.mark.parametrize(("relevant", "full_scorings"), [([3], 0), ([7], 1)])
def test_an_engines_evaluation_scores_in_full_only_when_its_top_10_holds_nothing_relevant(
        relevant: list[int], full_scorings: int) -> None:
    from ranklens.engine.measuring.metrics import QuestionScores, score_question
    from ranklens.engine.topk import PendingScores

    scores = np.array([0.0] * 5 + [0.5] * 30 + [1.0] * 5 + [2.0] * 6)  # chunk 3 scores 0: beyond the top 10
    scores[3], scores[7] = 3.0, 0.25
    engine, local = _Engine(scores), _Counted(scores)
    for scorer in (engine, local):
        result = score_question(QuestionScores("q", "", PendingScores(scorer, None, scores.size),
                                               np.array(relevant), np.ones(len(relevant))))
        assert result.rank == int(np.flatnonzero(np.argsort(-scores, kind="stable") == relevant[0])[0]) + 1
    assert PendingScores(engine, None, 1).top_first and not PendingScores(local, None, 1).top_first
    assert engine.full_scorings == full_scorings and local.full_scorings == 1  # a local scorer ranks first, in full


def test_an_engine_that_tells_a_rank_is_asked_instead_of_its_deep_query() -> None:
    from ranklens.engine.measuring.metrics import QuestionScores, score_question
    from ranklens.engine.topk import PendingScores

    scores = np.array([0.0] * 5 + [0.5] * 30 + [1.0] * 5 + [2.0] * 6)
    scores[3], scores[7] = 3.0, 0.25
    for relevant, told in (([3], 0), ([7], 1)):  # in the top 10: read off it; beyond: the engine is asked
        engine = _RankingEngine(scores)
        result = score_question(QuestionScores("q", "", PendingScores(engine, None, scores.size),
                                               np.array(relevant), np.ones(1)))
        assert result.rank == int(np.flatnonzero(np.argsort(-scores, kind="stable") == relevant[0])[0]) + 1
        assert (engine.ranks_told, engine.full_scorings) == (told, 0)
