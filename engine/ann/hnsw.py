"""HNSW (Malkov and Yashunin, 2018): the graph index real systems use, through usearch.

Each vector is a node linked to about ``M`` neighbours per layer; a query
walks the graph greedily from the top layer down, keeping the ``ef_search``
best candidates on the bottom layer. ``M`` (the build parameter) and
``ef_construction`` (candidates kept while linking, 128 here) are chosen at
build time; ``ef_search`` is the knob that trades work for recall.

Why usearch: measured against FAISS ``IndexHNSWFlat`` at equal M, ef_construction
and ef_search on the lesson's synthetic set (benchmarks/bench_hnsw.py, numbers in
benchmarks/RESULTS.md), its recall@10 is within 0.02 of FAISS' with fewer distances
computed, FAISS answers 1.3-2x more queries per second, and usearch installs in
11 MB against FAISS' 66 MB; hnswlib has had no release since 2023. It is an
optional dependency (``pip install 'ranklens[hnsw]'``), imported when an index is built.

What ``compared`` counts: the distances usearch computed for the batch, given
to each query as the batch mean (usearch reports them per batch, not per query).
The graph is built on one thread, so the same vectors give the same graph.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from ranklens.engine.work.batching import paced
from ranklens.engine.errors import RanklensError
from ranklens.engine.ann.base import Found, IndexSettingError, IndexStats, VectorIndex, check_k
from ranklens.engine.ann.knobs import DEFAULT_M, EF_CONSTRUCTION, EF_LADDER, HNSW_SETTINGS
from ranklens.engine.work.progress import Progress, no_progress

if TYPE_CHECKING:
    from ranklens.engine.ann.vectors import VectorSet

DEFAULT_EF_SEARCH = 64
HNSW_EXTRA = "pip install 'ranklens[hnsw]'"
_FIRST_ADD, _LARGEST_ADD = 500, 20_000  # vectors linked between progress reports (where a build can stop)


def unavailable() -> str | None:
    """Why no HNSW index can be built here, with how to get one; None when usearch is installed.

    Looked up without importing usearch, so a front end may ask before it starts work.
    """
    import importlib.util

    return None if importlib.util.find_spec("usearch") is not None else f"HNSW needs usearch: {HNSW_EXTRA}"


def _usearch() -> Any:
    try:
        from usearch.index import Index
    except ImportError:
        raise RanklensError(f"the hnsw index needs usearch: {HNSW_EXTRA}") from None
    return Index


class HNSWIndex(VectorIndex):
    kind = "hnsw"
    description = "HNSW graph (usearch): M links per node, ef_search candidates per query"
    param = "M"
    knob = "ef_search"
    settings = HNSW_SETTINGS

    def __init__(self, index: Any, n: int, m: int, ef_construction: int, build_s: float) -> None:
        self._index = index
        self._n = n
        self._m = m
        self.ef_construction = ef_construction
        self._build_s = build_s

    @property
    def param_value(self) -> int:
        return self._m

    @classmethod
    def default_param(cls, vectors: VectorSet) -> int:
        return DEFAULT_M

    @classmethod
    def check_settings(cls, param: int | None, knob_values: list[int] | None) -> None:
        if param is not None and param < 2:
            raise IndexSettingError("M", f"{{setting}} must be at least 2 (got {param})")
        if knob_values is not None and any(v < 1 for v in knob_values):
            raise IndexSettingError("ef_search", f"{{setting}} values must be at least 1 (got {knob_values})")

    @classmethod
    def check_ef_construction(cls, ef_construction: int) -> None:
        if ef_construction < 1:
            raise IndexSettingError("ef_construction", f"{{setting}} must be at least 1 (got {ef_construction})")

    @classmethod
    def build(cls, vectors: np.ndarray, param: int | None = None, *, seed: int = 0,
              progress: Progress = no_progress, ef_construction: int = EF_CONSTRUCTION) -> Self:
        m = DEFAULT_M if param is None else param
        cls.check_settings(m, None)
        cls.check_ef_construction(ef_construction)
        Index = _usearch()
        started = time.perf_counter()
        data = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dims = data.shape
        index = Index(ndim=dims, metric="ip", dtype="f32", connectivity=m, expansion_add=ef_construction,
                      expansion_search=DEFAULT_EF_SEARCH)
        keys = np.arange(n, dtype=np.uint64)
        progress(0, n, "linking the HNSW graph")
        # paced batches (their size does not change the graph: nodes are linked in key order either way)
        for batch in paced(n, _FIRST_ADD, _LARGEST_ADD):
            # one thread: usearch links nodes in parallel otherwise, and the graph would change run to run
            index.add(keys[batch], data[batch], threads=1)
            progress(batch.stop, n, "linking the HNSW graph")
        return cls(index, n, m, ef_construction, time.perf_counter() - started)

    def search(self, queries: np.ndarray, k: int, knob: int | None = None) -> Found:
        check_k(k)
        ef = DEFAULT_EF_SEARCH if knob is None else knob
        if ef < 1:
            raise IndexSettingError("ef_search", f"{{setting}} must be at least 1 (got {ef})")
        Q = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        ids = np.full((Q.shape[0], k), -1, dtype=np.intp)
        scores = np.full((Q.shape[0], k), -np.inf)
        if self._n == 0 or Q.shape[0] == 0:
            return Found(ids, scores, np.zeros(Q.shape[0]))
        # a graph search keeps at least k candidates, whatever ef says
        self._index.expansion_search = max(ef, k)
        found = self._index.search(Q, min(k, self._n), threads=1)
        keys = np.atleast_2d(found.keys)
        distances = np.atleast_2d(found.distances)
        from usearch.index import BatchMatches

        # one query comes back as Matches, which has no counts: its keys are all it found
        counts = np.atleast_1d(found.counts) if isinstance(found, BatchMatches) else np.array([len(found.keys)])
        for row in range(Q.shape[0]):
            c = int(counts[row])
            ids[row, :c] = keys[row, :c].astype(np.intp)
            scores[row, :c] = 1.0 - distances[row, :c]  # usearch's "ip" distance is 1 - inner product
        compared = np.full(Q.shape[0], float(found.computed_distances) / Q.shape[0])
        return Found(ids, scores, compared)

    def knob_values(self) -> list[int]:
        return list(EF_LADDER)

    @property
    def stats(self) -> IndexStats:
        # The graph and its vectors, as saved: usearch's memory_usage counts its allocator's arenas
        # too, 16 MB before the first vector, which would make 18 vectors look as big as 20,000.
        return IndexStats(self._build_s, int(self._index.serialized_length))
