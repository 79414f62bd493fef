"""Top-k selection: the first k of numpy's stable descending sort, ties to the lower index, on every path
(a full sort for small inputs, a partition above a thousand scores, a sampled bound above 65,536)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ranklens.engine.topk import top_k


def stable_top(scores: np.ndarray, k: int) -> list[int]:
    return np.argsort(-scores, kind="stable")[:k].tolist()


@settings(max_examples=150, deadline=None)
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


def test_more_than_n_returns_every_index_in_order() -> None:
    scores = np.array([0.5, 2.0, 0.5, 1.0])
    assert top_k(scores, 10).tolist() == [1, 3, 0, 2]
