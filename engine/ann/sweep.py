"""The knob sweep: build one index, then measure each knob value against exact search.

Recall@k is the share of the exact k nearest neighbours an index returns,
judged by exact scores, never by the index's own. Cost is what the index
compared per query (its own count, see ``Found.compared``) and the time it
took, per query, for the whole batch.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ranklens.engine.ann.base import VectorIndex, check_k
from ranklens.engine.ann.exact import exact_topk

_TIE = 1e-12  # scores this close to the k-th best are ties, not misses


@dataclass(frozen=True, slots=True)
class SweepRow:
    knob: str | None  # "n_probe"; None for a kind without a knob
    value: int | None
    compared_mean: float  # vectors compared per query
    share: float  # compared_mean / N; above 1 when an index also compares centroids
    recall: float  # recall@k against exact search
    ms_per_query: float
    k: int = 10

    @property
    def setting(self) -> dict[str, int | None]:
        """The knob and its value (``{"n_probe": 4}``), empty for a kind without a knob."""
        return {} if self.knob is None else {self.knob: self.value}

    def measures(self) -> dict[str, Any]:
        return {"compared_mean": self.compared_mean, "share": self.share, f"recall@{self.k}": self.recall,
                "ms_per_query": self.ms_per_query}

    def to_dict(self) -> dict[str, Any]:
        return {**self.setting, **self.measures()}


def measure_knob(index: VectorIndex, V: np.ndarray, Q: np.ndarray, values: Sequence[int] | None = None,
                 k: int = 10) -> Iterator[SweepRow]:
    """One row per knob value of ``index`` (built over V) on the queries Q, measured as it is asked for.

    ``values`` None visits the index's own ``knob_values()``; a kind without a
    knob gives one row. Exact search runs once, before the first row.
    """
    check_k(k)
    steps: list[int | None] = list(values if values is not None else index.knob_values()) or [None]
    Q = np.atleast_2d(Q)
    kk = min(k, V.shape[0])
    truth = exact_topk(V, Q, kk)
    # A returned vector whose exact score ties the k-th best (to rounding) is a true
    # neighbour too: summing a cell's products in another order moves a score by ~1e-17,
    # which reorders near-zero ties and would count the same answer as a miss.
    kth = np.einsum("ij,ij->i", Q, V[truth[:, -1]])
    for value in steps:
        yield _measure(index, V, Q, truth, kth, kk, value)


def _measure(index: VectorIndex, V: np.ndarray, Q: np.ndarray, truth: np.ndarray, kth: np.ndarray, k: int,
             value: int | None) -> SweepRow:
    start = time.perf_counter()
    found = index.search(Q, k, value)
    elapsed = time.perf_counter() - start
    ids = found.ids
    # -1 padding never equals a true id, so it counts as a miss.
    exact = (ids[:, :, None] == truth[:, None, :]).any(axis=2)
    tied = (ids >= 0) & (np.einsum("ijd,id->ij", V[np.maximum(ids, 0)], Q) >= kth[:, None] - _TIE)
    hits = (exact | tied).sum(axis=1)
    mean_compared = float(found.compared.mean())
    return SweepRow(index.knob, None if value is None else int(value), mean_compared,
                    mean_compared / V.shape[0], float(hits.mean() / k),
                    elapsed * 1000 / max(Q.shape[0], 1), k)
