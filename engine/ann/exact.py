"""Exact search: every vector compared with every query. The recall oracle of the other kinds."""
from __future__ import annotations

from typing import Self

import numpy as np

from ranklens.engine.ann.base import Found, IndexStats, VectorIndex, check_k
from ranklens.engine.work.progress import Progress, no_progress

# Query rows per block of exact search: bounds the (block x N) score matrix.
_EXACT_BLOCK_CELLS = 1 << 22


def top_k_rows(s: np.ndarray, k: int) -> np.ndarray:
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
    check_k(k)
    Q = np.atleast_2d(Q)
    step = max(1, _EXACT_BLOCK_CELLS // max(V.shape[0], 1))
    blocks = [top_k_rows(Q[i:i + step] @ V.T, k) for i in range(0, Q.shape[0], step)]
    return np.concatenate(blocks) if blocks else np.empty((0, min(k, V.shape[0])), dtype=np.intp)


class ExactIndex(VectorIndex):
    """Brute force: nothing to build, no knob; compares all N vectors per query."""

    kind = "exact"
    description = "brute force over every vector (the recall oracle)"
    approximate = False

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    @classmethod
    def build(cls, vectors: np.ndarray, param: int | None = None, *, seed: int = 0,
              progress: Progress = no_progress) -> Self:
        return cls(vectors)

    def search(self, queries: np.ndarray, k: int, knob: int | None = None) -> Found:
        Q = np.atleast_2d(queries)
        top = exact_topk(self.vectors, Q, k)  # fewer than k columns when k > N
        ids = np.full((Q.shape[0], k), -1, dtype=np.intp)
        scores = np.full((Q.shape[0], k), -np.inf)
        ids[:, :top.shape[1]] = top
        scores[:, :top.shape[1]] = np.einsum("qkd,qd->qk", self.vectors[top], Q)
        return Found(ids, scores, np.full(Q.shape[0], self.vectors.shape[0]))

    def knob_values(self) -> list[int]:
        return []

    @property
    def stats(self) -> IndexStats:
        return IndexStats(0.0, 0)  # nothing to build; it refers to the caller's vectors

