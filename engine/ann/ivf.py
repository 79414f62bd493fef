"""IVF (inverted file) search over unit vectors, as seed 004 builds it.

k-means cells; a query visits the ``n_probe`` cells with the closest
centroids and compares only their vectors. ``sweep`` measures what that
costs in recall against exact search, n_probe by n_probe: the lesson's table.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Self

import numpy as np

from ranklens.engine.ann.base import Found, IndexSettingError, IndexStats, VectorIndex, check_k
from ranklens.engine.ann.exact import top_k_rows
from ranklens.engine.ann.knobs import IVF_SETTINGS
from ranklens.engine.work.progress import Progress, no_progress

if TYPE_CHECKING:
    from ranklens.engine.ann.vectors import VectorSet

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
# Float32 scores a batch holds at once (queries x n_probe x the largest cell): bounds its memory
# (16 MiB); a larger batch goes in blocks of queries.
_BATCH_PLACES = 1 << 22
# Up to this n_probe a query's cells are picked by repeated argmax over its centroid scores (a
# batch's over their rows): less than a partition costs (a batch at 1,000 cells: 20x less for one
# cell, 5x for eight).
_PROBES_BY_ARGMAX = 8
# Scores are cut to their k best by a floor: the k-th best of the maxima of this many chunks
# per k. Each maximum is a different vector, so at least k score at or above it, and few more
# (about 1.5 k on seed 004's set): a partition of every score costs 8 ns each, this a fraction.
_CHUNKS_PER_K = 4
_FLOAT32_EPS = float(np.finfo(np.float32).eps)
# Above this |v| |q| a float32 score could overflow: such searches score in float64 throughout.
_FLOAT32_LARGEST = 1e30


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


def _kth_floor(scores: np.ndarray, k: int) -> float:
    """At most the k-th best of ``scores`` (more than ``_CHUNKS_PER_K * k`` of them), and near it.

    The k-th best of the maxima of ``_CHUNKS_PER_K * k`` chunks: k different
    scores reach it. (``engine.topk`` bounds the k-th from a strided sample
    instead, which needs 64 k scores or more; a query's probed cells hold a
    few hundred to a few thousand.)
    """
    width = scores.size // (_CHUNKS_PER_K * k)
    maxima = np.maximum.reduceat(scores, np.arange(0, _CHUNKS_PER_K * k * width, width))
    maxima.sort()
    return float(maxima[-k])


def _strided_maxima(scores: np.ndarray, least: int) -> np.ndarray:
    """Each row's maxima over at least ``least`` disjoint sets of its scores (all its scores if fewer).

    The sets are strided (columns j, j + w, j + 2w, ...): halving the row by
    an elementwise maximum of its two halves runs at memory speed, where a
    reduction over short contiguous chunks costs five times more.
    """
    width = scores.shape[1]
    if width <= least:
        return scores
    halvings = (width // least).bit_length() - 1
    maxima = scores[:, :(width >> halvings) << halvings]
    for _ in range(halvings):
        half = maxima.shape[1] // 2
        maxima = np.maximum(maxima[:, :half], maxima[:, half:])
    return maxima


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

    Cell ``c`` holds the vectors whose ids are ``ids[offsets[c]:offsets[c + 1]]``.
    ``blocks32`` holds them in float32, cell by cell, each cell transposed
    (dims x its vectors) and stored whole at ``offsets[c] * dims`` (a copy, as
    FAISS keeps one), so a probed cell is one contiguous block and its scores
    one matrix product: BLAS multiplies a query by that block three times
    faster than by the transpose of a row block, the block is one contiguous
    read, and float32 halves the memory read. Searches score in float32 and rescore in
    float64 only the candidates that rounding could move into or out of the
    k best, so they answer exactly as float64 products do: ``vectors`` is the
    array the index was built from, not a copy (the caller's, which it must
    not change; float32 rows are read as float64, as exact search reads
    them). ``largest_norm`` is the longest vector's length, for that
    rounding bound.
    """

    kind = "ivf"
    description = "inverted file: k-means cells, a query compares the vectors of n_probe cells"
    param = "cells"
    knob = "n_probe"
    settings = IVF_SETTINGS

    centroids: np.ndarray
    vectors: np.ndarray
    ids: np.ndarray
    offsets: np.ndarray
    blocks32: np.ndarray
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

    def default_knob(self) -> int:
        return math.ceil(math.sqrt(self.cells))

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
        largest_norm = float(np.sqrt(np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64).max(initial=0.0)))
        d = vectors.shape[1]
        blocks32 = np.empty(vectors.size, dtype=np.float32)
        for a, b in itertools.pairwise(offsets.tolist()):
            blocks32[a * d:b * d] = vectors[ids[a:b]].T.ravel()
        return cls(centroids, vectors, ids, offsets, blocks32, largest_norm, cell_warnings(n, cells),
                   time.perf_counter() - started)

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
        step = max(1, _BATCH_PLACES // (n_probe * self.largest_cell))
        for lo in range(0, nq, step):
            self._search_block(Q[lo:lo + step], probes[lo:lo + step], k, out[lo:lo + step],
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

    @cached_property
    def cell_blocks(self) -> list[np.ndarray]:
        """Each cell's vectors as one matrix to multiply queries by (dims x its vectors), float32."""
        d = self.vectors.shape[1]
        return [self.blocks32[a * d:b * d].reshape(d, b - a) for a, b in itertools.pairwise(self.bounds)]

    @cached_property
    def cell_blocks64(self) -> list[np.ndarray]:
        """``cell_blocks`` in float64: when float32 could overflow (made on first need, a second copy)."""
        return [self.vectors[self.ids[a:b]].astype(np.float64).T for a, b in itertools.pairwise(self.bounds)]

    @cached_property
    def rounding(self) -> float:
        """How far below a float32 k-th score a float64 one of the k best can be, per unit of query length.

        Rounding each vector to float32 and adding d products in any order
        moves a score by at most (d + 2) units of roundoff times
        sum |v_i q_i| <= |v| |q|: taken four times over.
        """
        return 4 * (self.vectors.shape[1] + 2) * _FLOAT32_EPS * self.largest_norm

    def _fits_float32(self, q_norm: float) -> bool:
        return self.largest_norm * q_norm < _FLOAT32_LARGEST

    def _search_one(self, q: np.ndarray, k: int, n_probe: int) -> Found:
        """One query: its probed cells, each one matrix-vector product, in float32.

        The candidates from the rounding margin below the floor up are
        rescored in float64. Written for few numpy calls (methods rather than
        functions, which dispatch slower): a single search is mostly their
        fixed cost.
        """
        near = self.centroids @ q
        # argmax takes the lowest index among ties, as the stable sort would
        probes = [int(near.argmax())]
        if n_probe > _PROBES_BY_ARGMAX:
            probes = _top_set(near, n_probe).tolist()
        elif n_probe > 1:  # a few argmax calls cost less than one argpartition
            near = near.copy()
            for _ in range(n_probe - 1):
                near[probes[-1]] = -np.inf
                probes.append(int(near.argmax()))
        offsets, ids = self.bounds, self.ids
        q_norm = math.sqrt(float(q @ q))
        margin = self.rounding * q_norm if self._fits_float32(q_norm) else None
        if margin is None:
            blocks, qq = self.cell_blocks64, q
        else:
            blocks, qq = self.cell_blocks, q.astype(np.float32)
        scores = np.concatenate([qq @ blocks[c] for c in probes])
        cand = np.concatenate([ids[offsets[c]:offsets[c + 1]] for c in probes])
        compared = cand.size
        if scores.size > _CHUNKS_PER_K * k:
            keep = (scores >= _kth_floor(scores, k) - (margin or 0.0)).nonzero()[0]
            scores, cand = scores[keep], cand[keep]
        if margin is not None:
            scores = self.vectors[cand] @ q
        best = np.lexsort((cand, -scores))[:k]
        found_ids, found_scores = cand[best], scores[best]
        if best.size < k:  # fewer candidates than k: pad as the batch does
            found_ids = np.concatenate((found_ids, np.full(k - best.size, -1, dtype=np.intp)))
            found_scores = np.concatenate((found_scores, np.full(k - best.size, -np.inf)))
        return Found(found_ids[None, :], found_scores[None, :], np.array([compared + self.cells]))

    def _search_block(self, Q: np.ndarray, probes: np.ndarray, k: int, out: np.ndarray,
                      out_scores: np.ndarray) -> None:
        """A batch, cell by cell: one matrix product with the queries probing it.

        The (query, probed cell) pairs are sorted by cell, so each cell's
        queries are one slice of rows; row p holds pair p's scores, padded
        with -inf to the largest cell. Each query's floor is the k-th best
        of its rows' strided maxima (``_CHUNKS_PER_K * k`` of them in all):
        the scores at or above it, less the rounding margin, are rescored in
        float64 and each query's sorted, ties by lower id.
        """
        nq, n_probe = probes.shape
        width, pairs = self.largest_cell, nq * n_probe
        flat = probes.ravel()
        order = np.argsort(flat, kind="stable")
        by_cell, query_of = flat[order], order // n_probe
        q_norms = np.sqrt(np.einsum("ij,ij->i", Q, Q))
        rounded = self._fits_float32(float(q_norms.max()))
        blocks = self.cell_blocks if rounded else self.cell_blocks64
        dtype = np.float32 if rounded else np.float64
        queries = Q.astype(dtype)[query_of]
        scores = np.full((pairs, width), -np.inf, dtype=dtype)
        counts = np.bincount(flat, minlength=self.cells)
        ends = np.cumsum(counts)
        probed = counts.nonzero()[0]
        sizes = self.sizes.tolist()
        for c, lo, hi in zip(probed.tolist(), (ends - counts)[probed].tolist(), ends[probed].tolist()):
            if sizes[c]:
                scores[lo:hi, :sizes[c]] = queries[lo:hi] @ blocks[c]
        maxima = _strided_maxima(scores, -(-_CHUNKS_PER_K * k // n_probe))
        back = np.empty(pairs, dtype=np.intp)
        back[order] = np.arange(pairs)
        maxima = maxima[back].reshape(nq, -1)
        kth = maxima.shape[1] - min(k, maxima.shape[1])
        floors = np.partition(maxima, kth, axis=1)[:, kth].astype(np.float64)
        if rounded:
            floors -= self.rounding * q_norms
        # padding (-inf) never passes, every real score may (a row with fewer than k of them)
        floors = np.maximum(floors, np.finfo(dtype).min).astype(dtype)
        # a flat nonzero and a divmod: nonzero over two dimensions costs 15 times more
        row, col = np.divmod((scores >= floors[query_of][:, None]).ravel().nonzero()[0], width)
        grouped = np.argsort(query_of[row], kind="stable")  # the survivors, query by query
        row, col = row[grouped], col[grouped]
        qi, found = query_of[row], self.ids[self.offsets[by_cell[row]] + col]
        # take, not fancy indexing: einsum over fancy-indexed temporaries runs ten times slower
        if rounded:
            exact = np.einsum("ij,ij->i", self.vectors.take(found, axis=0), Q.take(qi, axis=0))
        else:
            exact = scores[row, col]
        # each query's survivors in one row (padded: +inf, the missing id), sorted row by row:
        # many short sorts cost less than one sort of all survivors
        starts = np.searchsorted(qi, np.arange(nq + 1))
        rank = np.arange(qi.size) - starts[qi]
        missing = self.ids.size
        neg = np.full((nq, int(np.diff(starts).max(initial=0))), np.inf)
        rows = np.full(neg.shape, missing, dtype=np.intp)
        neg[qi, rank], rows[qi, rank] = -exact, found
        best = np.lexsort((rows, neg), axis=1)[:, :k]
        rows, neg = np.take_along_axis(rows, best, axis=1), np.take_along_axis(neg, best, axis=1)
        real = rows != missing
        out[:, :best.shape[1]] = np.where(real, rows, -1)
        out_scores[:, :best.shape[1]] = np.where(real, -neg, -np.inf)

    def knob_values(self) -> list[int]:
        return probe_ladder(self.cells)

    @property
    def stats(self) -> IndexStats:
        # not ``vectors``: the array it was built from, the caller's (as FAISS', whose caller keeps its own)
        held = self.centroids.nbytes + self.blocks32.nbytes + self.ids.nbytes + self.offsets.nbytes
        return IndexStats(self.build_s, held)
