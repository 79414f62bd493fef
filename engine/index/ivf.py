"""IVF (inverted file) search over unit vectors, as seed 004 builds it.

k-means cells; a query visits the ``n_probe`` cells with the closest
centroids and compares only their vectors. ``sweep`` measures what that
costs in recall against exact search, n_probe by n_probe: the lesson's table.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cached_property
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

from ranklens.engine.index.base import Found, IndexSettingError, IndexStats, VectorIndex, check_k
from ranklens.engine.index.exact import top_k_rows
from ranklens.engine.index.sweep import SweepRow, measure_knob
from ranklens.engine.progress import Progress, no_progress

if TYPE_CHECKING:
    from ranklens.engine.index.vectors import VectorSet

# FAISS warns when k-means gets fewer training points than this per centroid.
MIN_POINTS_PER_CELL = 39
# FAISS' recipe for larger sets: k-means on at most this many points per cell (a seeded
# sample), random initial centroids, a fixed number of Lloyd iterations, in float32.
MAX_POINTS_PER_CELL = 256
FAISS_ITERATIONS = 10
# Up to this many vector x cell pairs k-means runs as seed 004 does (scikit-learn's k-means++
# to convergence, in float64): under a second, and seed 004's set (20,000 x 100) stays below,
# so its pinned table is unchanged. Above it that recipe costs 20x FAISS' (83 s at 200k x 1000).
SEED_RECIPE_PAIRS = 1 << 21
# Candidate places (queries x n_probe x k, a score and an id each) held at once while a batch is
# searched: bounds its memory; a larger batch goes in blocks of queries.
_BATCH_CANDIDATES = 1 << 21
# A single query with more candidates than this scores them in float32 first (half the memory
# read, a faster product) and rescores the few near its k-th in float64; below, the float32
# pass and the rescoring cost more numpy calls than they save.
_SINGLE_FLOAT64 = 512
# Up to this n_probe a batch picks its cells by repeated argmax over the rows of centroid scores,
# a single query up to _PROBES_BY_ARGMAX_ONE over its one row: less than a partition costs (a
# batch at 1,000 cells: 20x less for one cell, 5x for eight).
_PROBES_BY_ARGMAX = 8
_PROBES_BY_ARGMAX_ONE = 4
_FLOAT32_EPS = float(np.finfo(np.float32).eps)


def cell_warnings(vectors: int, cells: int, name: str = "cells") -> tuple[str, ...]:
    """What is doubtful about k-means with this many cells, as FAISS would warn.

    ``name`` is what the caller calls the cells setting (the CLI: ``--cells``).
    """
    if cells * MIN_POINTS_PER_CELL <= vectors:
        return ()
    return (
        f"{name} ({cells}) leaves fewer than {MIN_POINTS_PER_CELL} vectors per cell "
        f"({vectors} vectors): the k-means centroids are poorly trained",
    )


def probe_ladder(cells: int) -> list[int]:
    """1, 2, 4, … below ``cells``, then all cells (where recall must be 1)."""
    return [2 ** i for i in range(int(math.log2(cells)) + 1) if 2 ** i < cells] + [cells]


def _nearest_cells(near: np.ndarray, n_probe: int) -> np.ndarray:
    """Each row's ``n_probe`` best-scoring cells, ties to the lower cell (a stable sort's choice).

    Up to ``_PROBES_BY_ARGMAX`` by repeated argmax, the nearest first; above, in no order.
    """
    rows, cells = near.shape
    if n_probe <= _PROBES_BY_ARGMAX:
        picked = np.empty((rows, n_probe), dtype=np.intp)
        picked[:, 0] = np.argmax(near, axis=1)  # the lowest index among ties
        if n_probe > 1:
            near, every = near.copy(), np.arange(rows)
            for j in range(1, n_probe):
                near[every, picked[:, j - 1]] = -np.inf
                picked[:, j] = np.argmax(near, axis=1)
        return picked
    # the n_probe-th best score of each row; values only (partition is faster than argpartition)
    kth = np.partition(near, cells - n_probe, axis=1)[:, cells - n_probe, None]
    where = np.nonzero(near >= kth)[1]
    if where.size == rows * n_probe:
        return where.reshape(rows, n_probe)
    return top_k_rows(near, n_probe)  # a tie at some row's n_probe-th score


def _top_set(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best scores in any order, ties at the k-th to the lower position."""
    m = scores.size
    if k >= m:
        return np.arange(m)
    part = np.argpartition(scores, m - k)[m - k:]
    if np.count_nonzero(scores >= scores[part].min()) > k:
        return np.argsort(-scores, kind="stable")[:k]  # argpartition chose among tied scores at random
    return part


def _best_by_position(scores: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best candidates, best first, ties by lower id (as exact search)."""
    m = scores.size
    if m <= 4 * k:  # sorting a few candidates costs less than partitioning them first
        return np.lexsort((ids, -scores))[:k]
    # the k-th best score, values only (partition is faster than argpartition); every score tied
    # with it is kept, the lower ids win
    pick = np.flatnonzero(scores >= np.partition(scores, m - k)[m - k])
    return pick[np.lexsort((ids[pick], -scores[pick]))[:k]]


def _best_rows(scores: np.ndarray, ids: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise top k of (score, id) pairs, best first, ties by lower id: (ids, scores)."""
    rows, width = scores.shape
    if width > k:
        part = np.argpartition(scores, (width - k - 1, width - k), axis=1)
        r = np.arange(rows)[:, None]
        edge = scores[r, part[:, width - k - 1:width - k + 1]]
        if not (edge[:, 0] == edge[:, 1]).any():  # no row has a tie across its k-th place
            part = part[:, width - k:]
            scores, ids = scores[r, part], ids[r, part]
    order = np.lexsort((ids, -scores), axis=1)[:, :k]
    return np.take_along_axis(ids, order, axis=1), np.take_along_axis(scores, order, axis=1)


def _train(vectors: np.ndarray, cells: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """k-means centroids and each vector's cell: seed 004's recipe on small sets, FAISS' above."""
    from sklearn.cluster import KMeans  # lazy: importing scikit-learn costs seconds

    n = vectors.shape[0]
    if n * cells <= SEED_RECIPE_PAIRS:
        km = KMeans(n_clusters=cells, n_init=1, random_state=seed).fit(vectors)
        return km.cluster_centers_, km.labels_
    vectors32 = vectors.astype(np.float32)
    sample = vectors32
    if n > MAX_POINTS_PER_CELL * cells:
        picked = np.random.default_rng(seed).choice(n, MAX_POINTS_PER_CELL * cells, replace=False)
        sample = vectors32[np.sort(picked)]
    km = KMeans(n_clusters=cells, init="random", n_init=1, max_iter=FAISS_ITERATIONS,
                random_state=seed).fit(sample)
    labels = km.labels_ if sample is vectors32 else km.predict(vectors32)
    return km.cluster_centers_.astype(vectors.dtype), labels


def _check_n_probe(n_probe: int, cells: int) -> None:
    if not 1 <= n_probe <= cells:
        raise IndexSettingError("n_probe", f"{{setting}}: {n_probe} is not between 1 and the number of cells ({cells})")


@dataclass(frozen=True, eq=False)
class IVFIndex(VectorIndex):
    """Centroids plus inverted lists stored CSR-like.

    Cell ``c`` holds the vectors ``vectors[offsets[c]:offsets[c + 1]]``, whose
    original ids are ``ids[offsets[c]:offsets[c + 1]]``. The vectors are kept
    in cell order (a copy, as FAISS does) so a probed cell is one contiguous
    block and its scores one matrix-vector product. ``vectors32`` is the same in
    float32: a single query scores its cells with it (half the memory read)
    and rescores in float64 only the candidates that rounding could move into
    or out of its k best, so it answers exactly as float64 products do.
    ``largest_norm`` is the longest vector's length, for that rounding bound.
    """

    kind = "ivf"
    description = "inverted file: k-means cells, a query compares the vectors of n_probe cells"
    param = "cells"
    knob = "n_probe"

    centroids: np.ndarray
    vectors: np.ndarray
    ids: np.ndarray
    offsets: np.ndarray
    vectors32: np.ndarray
    largest_norm: float
    warnings: tuple[str, ...] = ()
    build_s: float = 0.0

    @property
    def cells(self) -> int:
        return self.centroids.shape[0]

    @property
    def param_value(self) -> int:
        return self.cells

    @classmethod
    def default_param(cls, vectors: VectorSet) -> int:
        return vectors.default_cells

    @classmethod
    def check_settings(cls, param: int | None, knob_values: list[int] | None) -> None:
        if param is not None and param < 1:
            raise IndexSettingError("cells", f"{{setting}} must be at least 1 (got {param})")
        for n_probe in knob_values or ():
            if n_probe < 1:
                raise IndexSettingError("n_probe", f"{{setting}} must be at least 1 (got {n_probe})")
            if param is not None:
                _check_n_probe(n_probe, param)

    @classmethod
    def build(cls, vectors: np.ndarray, param: int | None = None, *, seed: int = 0,
              progress: Progress = no_progress) -> Self:
        """k-means the vectors into ``param`` cells.

        Up to ``SEED_RECIPE_PAIRS`` vectors x cells as seed 004 (scikit-learn
        KMeans, k-means++, n_init=1, to convergence); above, as FAISS trains
        IndexIVFFlat: a seeded sample of at most 256 vectors per cell, random
        initial centroids, 10 iterations, float32. ``param`` None: the square
        root of the number of vectors.
        """
        started = time.perf_counter()
        n = vectors.shape[0]
        cells = max(1, round(math.sqrt(n))) if param is None else param
        cls.check_settings(cells, None)
        if cells > n:
            raise IndexSettingError("cells", f"{{setting}} ({cells}) is larger than the number of vectors ({n})")
        progress(0, 1, f"k-means, {cells} cells")
        centroids, labels = _train(vectors, cells, seed)
        # A stable sort keeps each cell's ids ascending, like the seed's np.where.
        ids = np.argsort(labels, kind="stable")
        offsets = np.zeros(cells + 1, dtype=np.intp)
        np.cumsum(np.bincount(labels, minlength=cells), out=offsets[1:])
        progress(1, 1, f"k-means, {cells} cells")
        in_cells = vectors[ids]
        largest_norm = float(np.sqrt(np.einsum("ij,ij->i", in_cells, in_cells).max(initial=0.0)))
        return cls(centroids, in_cells, ids, offsets, in_cells.astype(np.float32), largest_norm,
                   cell_warnings(n, cells), time.perf_counter() - started)

    def search(self, queries: np.ndarray, k: int, knob: int | None = None) -> Found:
        """The k best per query among the vectors of its ``knob`` (n_probe) closest cells.

        ``compared`` counts, per query, the candidates plus the ``cells``
        centroid comparisons, as seed 004 counts them. ``knob`` None probes
        every cell.
        """
        check_k(k)
        n_probe = self.cells if knob is None else knob
        _check_n_probe(n_probe, self.cells)
        Q = np.atleast_2d(queries)
        nq = Q.shape[0]
        # One query loops over its probed cells; a batch over the cells any query probes, each
        # cell's vectors read once for all its queries (one matrix product). Never over vectors.
        if nq == 1:
            return self._search_one(Q[0], k, n_probe)
        probes = _nearest_cells(Q @ self.centroids.T, n_probe)
        out = np.full((nq, k), -1, dtype=np.intp)
        out_scores = np.full((nq, k), -np.inf)
        step = max(1, _BATCH_CANDIDATES // (n_probe * min(k, self.largest_cell)))
        for lo in range(0, nq, step):
            self._search_by_cell(Q[lo:lo + step], probes[lo:lo + step], k, out[lo:lo + step],
                                 out_scores[lo:lo + step])
        return Found(out, out_scores, self.sizes[probes].sum(axis=1) + self.cells)

    @cached_property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def bounds(self) -> list[int]:
        """``offsets`` as Python ints: slicing with them costs less than with numpy integers."""
        return self.offsets.tolist()

    @cached_property
    def largest_cell(self) -> int:
        return max(1, int(self.sizes.max()))

    def _search_one(self, q: np.ndarray, k: int, n_probe: int) -> Found:
        """One query: its probed cells, adjacent ones merged, each block one matrix-vector product.

        Above ``_SINGLE_FLOAT64`` candidates the blocks are scored in float32
        and only the candidates near the k-th are rescored in float64
        (``_near_kth``). Written for few numpy calls: a single search is
        mostly their fixed cost.
        """
        near = self.centroids @ q
        # argmax takes the lowest index among ties, as the stable sort would
        nearest = int(np.argmax(near))
        if n_probe <= _PROBES_BY_ARGMAX_ONE:  # a few argmax calls cost less than one argpartition
            probes = [nearest]
            if n_probe > 1:
                near = near.copy()
                for _ in range(n_probe - 1):
                    near[probes[-1]] = -np.inf
                    probes.append(int(np.argmax(near)))
                probes.sort()
        else:
            probes = sorted(_top_set(near, n_probe).tolist())
        offsets, vectors, ids = self.bounds, self.vectors, self.ids
        spans: list[list[int]] = []
        for c in probes:
            if spans and spans[-1][1] == offsets[c]:
                spans[-1][1] = offsets[c + 1]
            else:
                spans.append([offsets[c], offsets[c + 1]])
        compared = sum(b - a for a, b in spans)
        if compared > _SINGLE_FLOAT64:
            positions = self._near_kth(q, k, spans, offsets[nearest], offsets[nearest + 1])
            scores, cand = vectors[positions] @ q, ids[positions]
        elif len(spans) == 1:
            a, b = spans[0]
            scores, cand = vectors[a:b] @ q, ids[a:b]
        else:
            scores = np.concatenate([vectors[a:b] @ q for a, b in spans])
            cand = np.concatenate([ids[a:b] for a, b in spans])
        best = _best_by_position(scores, cand, k)
        found_ids, found_scores = cand[best], scores[best]
        if best.size < k:  # fewer candidates than k: pad as the batch does
            found_ids = np.concatenate((found_ids, np.full(k - best.size, -1, dtype=np.intp)))
            found_scores = np.concatenate((found_scores, np.full(k - best.size, -np.inf)))
        return Found(found_ids[None, :], found_scores[None, :], np.array([compared + self.cells]))

    def _near_kth(self, q: np.ndarray, k: int, spans: list[list[int]], lo: int, hi: int) -> np.ndarray:
        """Index positions of the spans' vectors whose float64 score could be among the k best.

        The spans are scored in float32. A float32 score is within ``bound``
        of the float64 one, so every vector of the float64 k best scores at
        least the k-th float32 score of any subset of k or more vectors minus
        twice ``bound``: the subset is the nearest cell (``lo:hi``), the whole
        when it holds fewer than k.
        """
        q32 = q.astype(np.float32)
        if len(spans) == 1:
            scores = self.vectors32[spans[0][0]:spans[0][1]] @ q32
        else:
            scores = np.concatenate([self.vectors32[a:b] @ q32 for a, b in spans])
        starts, shifts, at = [], [], 0  # where each span starts in scores, and its distance to the index's
        for a, b in spans:
            starts.append(at)
            shifts.append(a - at)
            at += b - a
        subset = scores
        if hi - lo >= k:
            shift = next(shifts[i] for i, (a, b) in enumerate(spans) if a <= lo < b)
            subset = scores[lo - shift:hi - shift]
        if subset.size <= k:
            return np.concatenate([np.arange(a, b) for a, b in spans])
        # Rounding each vector to float32 and adding d products in any order moves a score by at
        # most (d + 2) units of roundoff times sum |v_i q_i| <= |v| |q|; taken four times over.
        bound = 2 * (q.size + 2) * _FLOAT32_EPS * self.largest_norm * math.sqrt(float(q @ q))
        floor = np.partition(subset, subset.size - k)[subset.size - k] - 2 * bound
        places = np.flatnonzero(scores >= floor) if math.isfinite(bound) else np.arange(at)
        if len(spans) == 1:
            return places + shifts[0]
        return places + np.asarray(shifts)[np.searchsorted(starts, places, side="right") - 1]

    def _search_by_cell(self, Q: np.ndarray, probes: np.ndarray, k: int, out: np.ndarray,
                        out_scores: np.ndarray) -> None:
        """A batch, cell by cell: one matrix product with the queries probing it, its k best kept per query.

        The (query, probed cell) pairs are sorted by cell, so each cell's
        queries and candidate places are one slice.
        """
        nq, n_probe = probes.shape
        width = min(k, self.largest_cell)
        missing = self.ids.size  # the id of an empty place: above every real id, so last among ties
        pairs = nq * n_probe
        cand_scores = np.full((pairs, width), -np.inf)
        cand_ids = np.full((pairs, width), missing, dtype=np.intp)
        flat = probes.ravel()
        order = np.argsort(flat, kind="stable")
        by_cell = flat[order]
        queries = Q[order // n_probe]
        firsts = np.flatnonzero(np.r_[True, np.diff(by_cell) != 0])
        offsets, vectors, ids = self.bounds, self.vectors, self.ids
        for lo, hi, c in zip(firsts.tolist(), np.r_[firsts[1:], pairs].tolist(), by_cell[firsts].tolist()):
            a, b = offsets[c], offsets[c + 1]
            m = b - a
            if m == 0:
                continue
            block = queries[lo:hi] @ vectors[a:b].T
            if m <= width:
                cand_scores[lo:hi, :m] = block
                cand_ids[lo:hi, :m] = ids[a:b]
                continue
            # the k-th best score of each row; values only (partition is 3x faster than argpartition)
            kth = np.partition(block, m - width, axis=1)[:, m - width, None]
            keep = block >= kth
            where = np.nonzero(keep)[1]
            if where.size == (hi - lo) * width:
                cand_scores[lo:hi] = block[keep].reshape(-1, width)
                cand_ids[lo:hi] = ids[a:b][where].reshape(-1, width)
            else:  # a tie at some row's k-th score: the lower positions (ids) among it
                part = top_k_rows(block, width)
                cand_scores[lo:hi] = np.take_along_axis(block, part, axis=1)
                cand_ids[lo:hi] = ids[a:b][part]
        back = np.empty(pairs, dtype=np.intp)
        back[order] = np.arange(pairs)
        best_ids, best_scores = _best_rows(cand_scores[back].reshape(nq, -1), cand_ids[back].reshape(nq, -1), k)
        found = best_ids != missing
        out[:, :best_ids.shape[1]] = np.where(found, best_ids, -1)
        out_scores[:, :best_ids.shape[1]] = np.where(found, best_scores, -np.inf)

    def knob_values(self) -> list[int]:
        return probe_ladder(self.cells)

    @property
    def stats(self) -> IndexStats:
        held = (self.centroids.nbytes + self.vectors.nbytes + self.vectors32.nbytes + self.ids.nbytes
                + self.offsets.nbytes)
        return IndexStats(self.build_s, held)


def sweep(V: np.ndarray, Q: np.ndarray, cells: int, probes: Sequence[int], k: int = 10,
          progress: Progress = no_progress) -> list[SweepRow]:
    """Seed 004's table: one IVF index over V, then compared vectors, recall@k and time per n_probe."""
    IVFIndex.check_settings(cells, list(probes))
    progress(0, len(probes), f"k-means, {cells} cells")
    index = IVFIndex.build(V, cells)
    rows = []
    for i, row in enumerate(measure_knob(index, V, Q, probes, k)):
        rows.append(row)
        progress(i + 1, len(probes), f"n_probe {row.value}")
    return rows
