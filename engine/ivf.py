"""Exact and IVF (inverted file) search over dense, row-normalised vectors.

Similarity is the inner product, i.e. the cosine for rows of norm 1. The IVF
index is seed 004's: k-means cells, a query visits the ``n_probe`` cells with
the closest centroids and compares only their vectors. ``sweep`` measures what
that costs in recall against exact search.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.progress import Progress, no_progress

# FAISS warns when k-means gets fewer training points than this per centroid.
MIN_POINTS_PER_CELL = 39
_TIE = 1e-12  # scores this close to the k-th best are ties, not misses
# Query rows per block of exact search: bounds the (block x N) score matrix.
_EXACT_BLOCK_CELLS = 1 << 22


def _top_k_rows(s: np.ndarray, k: int) -> np.ndarray:
    """Row-wise ``np.argsort(-s, axis=1, kind="stable")[:, :k]`` in O(N) per row plus a sort of k."""
    rows, n = s.shape
    k = min(k, n)
    if k == n:
        return np.argsort(-s, axis=1, kind="stable")
    # argpartition alone admits an arbitrary subset of the items tied with the
    # k-th score; the stable order keeps the lowest indices, so tied items are
    # admitted in index order until each row has k.
    kth = -np.partition(-s, k - 1, axis=1)[:, k - 1:k]
    above = s > kth
    tied = s == kth
    need = k - above.sum(axis=1, keepdims=True)
    chosen = above | (tied & (np.cumsum(tied, axis=1) <= need))
    ids = np.nonzero(chosen)[1].reshape(rows, k)  # ascending index within each row
    order = np.argsort(-np.take_along_axis(s, ids, axis=1), axis=1, kind="stable")
    return np.take_along_axis(ids, order, axis=1)


def exact_topk(V: np.ndarray, Q: np.ndarray, k: int) -> np.ndarray:
    """(nq x k) ids of the k best vectors per query by inner product, ties by lower id.

    Same result as ``np.argsort(-(Q @ V.T), axis=1, kind="stable")[:, :k]``,
    computed block by block so the score matrix never holds all queries.
    """
    if k < 1:
        raise RanklensError(f"k must be at least 1 (got {k})")
    Q = np.atleast_2d(Q)
    step = max(1, _EXACT_BLOCK_CELLS // max(V.shape[0], 1))
    blocks = [_top_k_rows(Q[i:i + step] @ V.T, k) for i in range(0, Q.shape[0], step)]
    return np.concatenate(blocks) if blocks else np.empty((0, min(k, V.shape[0])), dtype=np.intp)


def cell_warnings(vectors: int, cells: int) -> tuple[str, ...]:
    """What is doubtful about k-means with this many cells, as FAISS would warn."""
    if cells * MIN_POINTS_PER_CELL <= vectors:
        return ()
    return (
        f"--cells ({cells}) leaves fewer than {MIN_POINTS_PER_CELL} vectors per cell "
        f"({vectors} vectors): the k-means centroids are poorly trained",
    )


def _best_by_id(scores: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    """The ids of the k best candidates, best first, ties by lower id (as exact search)."""
    if scores.size <= k:
        return ids[np.lexsort((ids, -scores))]
    kth = -np.partition(-scores, k - 1)[k - 1]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)
    need = k - above.size
    if tied.size > need:
        tied = tied[np.argsort(ids[tied], kind="stable")[:need]]
    pick = np.concatenate([above, tied])
    return ids[pick[np.lexsort((ids[pick], -scores[pick]))]]


@dataclass(frozen=True, eq=False)
class IVFIndex:
    """Centroids plus inverted lists stored CSR-like.

    Cell ``c`` holds the vectors ``vectors[offsets[c]:offsets[c + 1]]``, whose
    original ids are ``ids[offsets[c]:offsets[c + 1]]``. The vectors are kept
    in cell order (a copy, as FAISS does) so a probed cell is one contiguous
    block and its scores one matrix-vector product.
    """

    centroids: np.ndarray
    vectors: np.ndarray
    ids: np.ndarray
    offsets: np.ndarray
    warnings: tuple[str, ...] = ()

    @property
    def cells(self) -> int:
        return self.centroids.shape[0]

    @classmethod
    def build(
        cls, V: np.ndarray, cells: int, seed: int = 0, progress: Progress = no_progress
    ) -> "IVFIndex":
        """k-means V into ``cells`` cells (scikit-learn KMeans, n_init=1, as seed 004)."""
        n = V.shape[0]
        if cells < 1:
            raise RanklensError(f"--cells must be at least 1 (got {cells})")
        if cells > n:
            raise RanklensError(f"--cells ({cells}) is larger than the number of vectors ({n})")
        from sklearn.cluster import KMeans  # lazy: importing scikit-learn costs seconds

        progress(0, 1, f"k-means, {cells} cells")
        km = KMeans(n_clusters=cells, n_init=1, random_state=seed).fit(V)
        labels = km.labels_
        # A stable sort keeps each cell's ids ascending, like the seed's np.where.
        ids = np.argsort(labels, kind="stable")
        offsets = np.zeros(cells + 1, dtype=np.intp)
        np.cumsum(np.bincount(labels, minlength=cells), out=offsets[1:])
        progress(1, 1, f"k-means, {cells} cells")
        return cls(km.cluster_centers_, V[ids], ids, offsets, cell_warnings(n, cells))

    def search(self, Q: np.ndarray, k: int, n_probe: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids, compared): the k best ids per query among the vectors of its n_probe cells.

        ``ids`` is (nq x k), padded with -1 when the probed cells hold fewer
        than k vectors. ``compared`` counts, per query, the candidates plus
        the ``cells`` centroid comparisons, as seed 004 counts them.
        """
        if k < 1:
            raise RanklensError(f"k must be at least 1 (got {k})")
        if n_probe < 1:
            raise RanklensError(f"n_probe must be at least 1 (got {n_probe})")
        if n_probe > self.cells:
            raise RanklensError(
                f"n_probe ({n_probe}) is larger than the number of cells ({self.cells})"
            )
        Q = np.atleast_2d(Q)
        probes = _top_k_rows(Q @ self.centroids.T, n_probe)
        starts = self.offsets[probes]
        ends = self.offsets[probes + 1]
        compared = (ends - starts).sum(axis=1) + self.cells
        out = np.full((Q.shape[0], k), -1, dtype=np.intp)
        vectors, ids = self.vectors, self.ids
        for qi, q in enumerate(Q):
            # One contiguous block per probed cell: a loop over cells, never over vectors.
            spans = list(zip(starts[qi].tolist(), ends[qi].tolist()))
            scores = np.concatenate([vectors[a:b] @ q for a, b in spans])
            cand = np.concatenate([ids[a:b] for a, b in spans])
            best = _best_by_id(scores, cand, k)
            out[qi, :best.size] = best
        return out, compared


@dataclass(frozen=True, slots=True)
class SweepRow:
    n_probe: int
    compared_mean: float
    share: float  # compared_mean / N; above 1 when every cell is visited
    recall: float  # recall@k against exact search
    ms_per_query: float
    k: int = 10

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_probe": self.n_probe,
            "compared_mean": self.compared_mean,
            "share": self.share,
            f"recall@{self.k}": self.recall,
            "ms_per_query": self.ms_per_query,
        }


def sweep_to_dict(rows: Sequence[SweepRow]) -> dict[str, Any]:
    """The ivf JSON shape of DESIGN.md."""
    return {"rows": [r.to_dict() for r in rows]}


def sweep(
    V: np.ndarray,
    Q: np.ndarray,
    cells: int,
    probes: Sequence[int],
    k: int = 10,
    progress: Progress = no_progress,
) -> list[SweepRow]:
    """Build one IVF index and measure compared vectors, recall@k and time per n_probe.

    The index's warnings (too few vectors per cell) are ``cell_warnings(len(V), cells)``.
    """
    n = V.shape[0]
    if k < 1:
        raise RanklensError(f"k must be at least 1 (got {k})")
    for p in probes:
        if p < 1 or p > cells:
            raise RanklensError(f"--probes: {p} is not between 1 and the number of cells ({cells})")
    total = len(probes)
    progress(0, total, f"k-means, {cells} cells")
    index = IVFIndex.build(V, cells)
    Q = np.atleast_2d(Q)
    nq = Q.shape[0]
    kk = min(k, n)
    truth = exact_topk(V, Q, kk)
    # A returned vector whose exact score ties the k-th best (to rounding) is a true
    # neighbour too: summing a cell's products in another order moves a score by ~1e-17,
    # which reorders near-zero ties and would count the same answer as a miss.
    kth = np.einsum("ij,ij->i", Q, V[truth[:, -1]])
    rows = []
    for i, n_probe in enumerate(probes):
        start = time.perf_counter()
        found, compared = index.search(Q, kk, n_probe)
        elapsed = time.perf_counter() - start
        # -1 padding never equals a true id, so it counts as a miss.
        exact = (found[:, :, None] == truth[:, None, :]).any(axis=2)
        tied = (found >= 0) & (np.einsum("ijd,id->ij", V[np.maximum(found, 0)], Q) >= kth[:, None] - _TIE)
        hits = (exact | tied).sum(axis=1)
        mean_compared = float(compared.mean())
        rows.append(SweepRow(
            n_probe=int(n_probe),
            compared_mean=mean_compared,
            share=mean_compared / n,
            recall=float(hits.mean() / kk),
            ms_per_query=elapsed * 1000 / max(nq, 1),
            k=kk,
        ))
        progress(i + 1, total, f"n_probe {n_probe}")
    return rows
