"""IVF search answers the same whichever loop it takes, and trains as FAISS does above seed 004's size.

A batch is searched cell by cell (one product per probed cell, its k best kept
per query), a single query span by span; both must give exactly the k best of
the probed cells' vectors, ties to the lower id, as a sort of the candidates.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ranklens.engine.ann import ivf
from ranklens.engine.ann.ivf import IVFIndex
from tests.support.examples import examples


def _reference(index: IVFIndex, V: np.ndarray, Q: np.ndarray, k: int, n_probe: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best vectors of the n_probe best cells per query, by a stable sort of everything."""
    cell_of = np.empty(V.shape[0], dtype=np.intp)
    for c in range(index.cells):
        cell_of[index.ids[index.offsets[c]:index.offsets[c + 1]]] = c
    ids = np.full((Q.shape[0], k), -1)
    scores = np.full((Q.shape[0], k), -np.inf)
    for qi, q in enumerate(Q):
        probed = np.argsort(-(index.centroids @ q), kind="stable")[:n_probe]
        cand = np.flatnonzero(np.isin(cell_of, probed))  # ascending ids
        s = V[cand] @ q
        best = cand[np.argsort(-s, kind="stable")[:k]]
        ids[qi, :best.size] = best
        scores[qi, :best.size] = V[best] @ q
    return ids, scores


def _unit(n: int, d: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _both_paths(index: IVFIndex, Q: np.ndarray, k: int, n_probe: int,
                scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Batch and single searches agree; ``scale``: the largest |v| |q|, which rounding errors follow."""
    batch = index.search(Q, k, n_probe)
    single = [index.search(q, k, n_probe) for q in Q]
    assert np.array_equal(batch.ids, np.concatenate([f.ids for f in single]))
    # a matrix product and a matrix-vector product may round the last bits differently
    np.testing.assert_allclose(batch.scores, np.concatenate([f.scores for f in single]), rtol=0, atol=1e-12 * scale)
    assert np.array_equal(batch.compared, np.concatenate([f.compared for f in single]))
    return batch.ids, batch.scores


@pytest.mark.parametrize(("k", "n_probe"), [(1, 1), (10, 1), (10, 3), (5, 8), (50, 2), (400, 8)])
def test_batch_and_single_searches_are_the_stable_sort_of_the_probed_cells(k: int, n_probe: int) -> None:
    V, Q = _unit(600, 6, 1), _unit(90, 6, 2)  # 90 queries over 8 cells: the batch goes cell by cell
    index = IVFIndex.build(V, 8)
    ids, scores = _both_paths(index, Q, k, n_probe)
    want_ids, want_scores = _reference(index, V, Q, k, n_probe)
    assert np.array_equal(ids, want_ids)
    np.testing.assert_allclose(scores, want_scores, rtol=0, atol=1e-12)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 5))
def test_ties_go_to_the_lower_id_on_both_paths(seed: int, k: int, n_probe: int) -> None:
    """Vectors with entries in {-1, 0, 1}, repeated: scores tie inside cells and across them."""
    rng = np.random.default_rng(seed)
    base = rng.integers(-1, 2, size=(40, 3)).astype(float)
    V = base[rng.integers(0, 40, 240)]
    Q = rng.integers(-1, 2, size=(30, 3)).astype(float)
    index = IVFIndex.build(V, 5, seed=seed)
    ids, scores = _both_paths(index, Q, k, n_probe)
    want_ids, want_scores = _reference(index, V, Q, k, n_probe)
    assert np.array_equal(ids, want_ids)
    assert np.array_equal(scores, want_scores)


def test_a_batch_larger_than_the_candidate_budget_is_searched_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    V, Q = _unit(500, 5, 3), _unit(70, 5, 4)
    index = IVFIndex.build(V, 6)
    whole = index.search(Q, 7, 3)
    monkeypatch.setattr(ivf, "_BATCH_PLACES", 4 * 3 * index.largest_cell)  # four queries a block
    blocked = index.search(Q, 7, 3)
    assert np.array_equal(whole.ids, blocked.ids)
    np.testing.assert_allclose(whole.scores, blocked.scores, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("k", "n_probe"), [(1, 1), (10, 1), (10, 3), (5, 8), (50, 2), (400, 8)])
def test_vectors_too_long_for_float32_are_scored_in_float64(k: int, n_probe: int) -> None:
    """Scores near 1e40 overflow float32: both paths fall back to float64 products and answer the same."""
    V, Q = _unit(600, 6, 1) * 1e20, _unit(90, 6, 2) * 1e20
    index = IVFIndex.build(V, 8)
    ids, scores = _both_paths(index, Q, k, n_probe, scale=1e40)
    want_ids, want_scores = _reference(index, V, Q, k, n_probe)
    assert np.array_equal(ids, want_ids)
    np.testing.assert_allclose(scores, want_scores, rtol=0, atol=1e-12 * 1e40)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 5))
def test_scores_float32_cannot_tell_apart_rank_as_in_float64(seed: int, k: int, n_probe: int) -> None:
    """Repeated vectors moved by up to 3e-7: float32 rounding reorders their scores, float64 must rank them."""
    rng = np.random.default_rng(seed)
    base = rng.integers(-1, 2, size=(40, 3)).astype(float)
    V = base[rng.integers(0, 40, 240)] + rng.uniform(0, 3e-7, size=(240, 3))
    Q = rng.integers(-1, 2, size=(30, 3)).astype(float)
    index = IVFIndex.build(V, 5, seed=seed)
    ids, scores = _both_paths(index, Q, k, n_probe)
    want_ids, want_scores = _reference(index, V, Q, k, n_probe)
    assert np.array_equal(ids, want_ids)
    np.testing.assert_allclose(scores, want_scores, rtol=0, atol=1e-15)


@pytest.mark.parametrize("n_probe", [1, 2, 8, 9, 20, 40])
@pytest.mark.parametrize("ties", [False, True])
def test_the_probed_cells_are_those_a_stable_sort_puts_first(n_probe: int, ties: bool) -> None:
    """Repeated argmax (up to 8 probes) and the partition above it, with and without tied centroid scores."""
    rng = np.random.default_rng(n_probe)
    near = rng.integers(0, 4, size=(50, 40)).astype(float) if ties else rng.standard_normal((50, 40))
    picked = ivf._nearest_cells(near, n_probe)
    want = np.argsort(-near, axis=1, kind="stable")[:, :n_probe]
    assert np.array_equal(np.sort(picked, axis=1), np.sort(want, axis=1))


def test_seed_004s_set_keeps_the_seed_recipe() -> None:
    assert 20_000 * 100 <= ivf.SEED_RECIPE_PAIRS < 20_000 * 141  # 141: the default cells at that size


def test_above_the_seed_size_k_means_trains_on_a_seeded_sample_of_256_per_cell(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from sklearn.cluster import KMeans

    fitted: list[tuple[tuple[int, ...], np.dtype, int, str]] = []
    real_fit = KMeans.fit

    def recording_fit(self, X, *args, **kwargs):  # noqa: ANN001, ANN202
        fitted.append((X.shape, X.dtype, self.max_iter, self.init))
        return real_fit(self, X, *args, **kwargs)

    monkeypatch.setattr(KMeans, "fit", recording_fit)
    monkeypatch.setattr(ivf, "SEED_RECIPE_PAIRS", 0)
    V = _unit(3000, 8, 5)
    first, again, other = IVFIndex.build(V, 5, seed=1), IVFIndex.build(V, 5, seed=1), IVFIndex.build(V, 5, seed=2)
    assert fitted[0] == ((1280, 8), np.dtype(np.float32), 10, "random")
    assert np.array_equal(first.centroids, again.centroids) and np.array_equal(first.ids, again.ids)
    assert not np.array_equal(first.centroids, other.centroids)
    # every vector, sampled or not, sits in the cell of its nearest centroid
    cell_of = np.repeat(np.arange(5), np.diff(first.offsets))
    in_cells = V[first.ids]
    nearest = np.argmin(((in_cells[:, None, :] - first.centroids[None]) ** 2).sum(axis=2), axis=1)
    assert np.mean(cell_of == nearest) > 0.999  # float32 training: a distance tie may round either way
    # below 256 per cell nothing is left out of the training
    IVFIndex.build(V[:1000], 5)
    assert fitted[-1][0] == (1000, 8)


@pytest.mark.parametrize(("k", "n_probe"), [(10, 1), (10, 3), (50, 8)])
def test_float32_vectors_are_kept_as_given_and_read_as_float64(k: int, n_probe: int) -> None:
    """Dense encoders give float32 vectors: the index keeps the caller's array (no float64 copy) and
    answers as float64 products of its values, as exact search does."""
    V, Q = _unit(600, 6, 1).astype(np.float32), _unit(90, 6, 2)
    index = IVFIndex.build(V, 8)
    assert index.vectors is V
    ids, scores = _both_paths(index, Q, k, n_probe)
    want_ids, want_scores = _reference(index, V, Q, k, n_probe)
    assert np.array_equal(ids, want_ids)
    np.testing.assert_allclose(scores, want_scores, rtol=0, atol=1e-12)
