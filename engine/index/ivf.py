"""IVF (inverted file) search over unit vectors, as seed 004 builds it.

k-means cells; a query visits the ``n_probe`` cells with the closest
centroids and compares only their vectors. ``sweep`` measures what that
costs in recall against exact search, n_probe by n_probe: the lesson's table.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
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


def _best_by_position(scores: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best candidates, best first, ties by lower id (as exact search)."""
    if scores.size <= k:
        return np.lexsort((ids, -scores))
    kth = -np.partition(-scores, k - 1)[k - 1]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)
    need = k - above.size
    if tied.size > need:
        tied = tied[np.argsort(ids[tied], kind="stable")[:need]]
    pick = np.concatenate([above, tied])
    return pick[np.lexsort((ids[pick], -scores[pick]))]


def _check_n_probe(n_probe: int, cells: int) -> None:
    if not 1 <= n_probe <= cells:
        raise IndexSettingError("n_probe", f"{{setting}}: {n_probe} is not between 1 and the number of cells ({cells})")


@dataclass(frozen=True, eq=False)
class IVFIndex(VectorIndex):
    """Centroids plus inverted lists stored CSR-like.

    Cell ``c`` holds the vectors ``vectors[offsets[c]:offsets[c + 1]]``, whose
    original ids are ``ids[offsets[c]:offsets[c + 1]]``. The vectors are kept
    in cell order (a copy, as FAISS does) so a probed cell is one contiguous
    block and its scores one matrix-vector product.
    """

    kind = "ivf"
    description = "inverted file: k-means cells, a query compares the vectors of n_probe cells"
    param = "cells"
    knob = "n_probe"

    centroids: np.ndarray
    vectors: np.ndarray
    ids: np.ndarray
    offsets: np.ndarray
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
        """k-means the vectors into ``param`` cells (scikit-learn KMeans, n_init=1, as seed 004).

        ``param`` None: the square root of the number of vectors.
        """
        started = time.perf_counter()
        n = vectors.shape[0]
        cells = max(1, round(math.sqrt(n))) if param is None else param
        cls.check_settings(cells, None)
        if cells > n:
            raise IndexSettingError("cells", f"{{setting}} ({cells}) is larger than the number of vectors ({n})")
        from sklearn.cluster import KMeans  # lazy: importing scikit-learn costs seconds

        progress(0, 1, f"k-means, {cells} cells")
        km = KMeans(n_clusters=cells, n_init=1, random_state=seed).fit(vectors)
        labels = km.labels_
        # A stable sort keeps each cell's ids ascending, like the seed's np.where.
        ids = np.argsort(labels, kind="stable")
        offsets = np.zeros(cells + 1, dtype=np.intp)
        np.cumsum(np.bincount(labels, minlength=cells), out=offsets[1:])
        progress(1, 1, f"k-means, {cells} cells")
        return cls(km.cluster_centers_, vectors[ids], ids, offsets, cell_warnings(n, cells),
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
        probes = top_k_rows(Q @ self.centroids.T, n_probe)
        starts = self.offsets[probes]
        ends = self.offsets[probes + 1]
        compared = (ends - starts).sum(axis=1) + self.cells
        out = np.full((Q.shape[0], k), -1, dtype=np.intp)
        out_scores = np.full((Q.shape[0], k), -np.inf)
        vectors, ids = self.vectors, self.ids
        for qi, q in enumerate(Q):
            # One contiguous block per probed cell: a loop over cells, never over vectors.
            spans = list(zip(starts[qi].tolist(), ends[qi].tolist()))
            scores = np.concatenate([vectors[a:b] @ q for a, b in spans])
            cand = np.concatenate([ids[a:b] for a, b in spans])
            best = _best_by_position(scores, cand, k)
            out[qi, :best.size] = cand[best]
            out_scores[qi, :best.size] = scores[best]
        return Found(out, out_scores, compared)

    def knob_values(self) -> list[int]:
        return probe_ladder(self.cells)

    @property
    def stats(self) -> IndexStats:
        held = self.centroids.nbytes + self.vectors.nbytes + self.ids.nbytes + self.offsets.nbytes
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
