"""A corpus pushed into a new Qdrant Edge shard of a ``qdrant:PATH`` folder, switched in only when complete.

The points are a server collection's (``client_push.py``): point id = chunk position,
a sparse vector "bm25" with the IDF modifier, a dense one "dense" (cosine) with
``--dense``, payload ``chunk_id``, ``doc_id``, ``text``. They are streamed in
batches (one batch of values in memory at a time); the shard is written
without a write-ahead log and flushed, then ``edge_store`` names it. A push
that fails, is cancelled or is killed leaves the previous shard answering. The
collection is locked from the start to the switch (``EdgeStore.pushing``), and
the disk is checked for room before the shard is made and before each batch:
Edge writes through memory maps, where a full disk is SIGBUS, not an error.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.engine.backends.base import PushReport
from ranklens.engine.backends.qdrant.connection import DENSE, SPARSE, Target
from ranklens.engine.backends.qdrant.edge import edge_module, speaking_edge
from ranklens.engine.backends.qdrant.edge_store import EdgeStore
from ranklens.engine.backends.qdrant.vectors import (COLLECTION_BYTES, payloads, push_metadata, pushable,
                                                     sparse_batches, stored_bytes)
from ranklens.engine.work.progress import Progress, no_progress

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.dense import DenseScorer

BATCH = 256


def push(retriever: Retriever, target: str, collection: str | None = None, replace: bool = False,
         progress: Progress = no_progress, batch: int = BATCH, *, dense: DenseScorer | None = None) -> PushReport:
    """Write ``retriever``'s chunks into a new Edge shard of collection ``collection`` (default: the corpus'
    name) in the folder ``target`` names, then make it the one that answers."""
    started = time.perf_counter()
    name = collection or retriever.corpus.name
    where = Target.parse(target)
    pushable(retriever)
    qdrant_edge = edge_module()
    store = EdgeStore(where.text, Path(cast(str, where.path)))
    metadata, dims = push_metadata(retriever, dense)
    needed = stored_bytes(retriever, dims)
    config = qdrant_edge.EdgeConfig(
        vectors={} if dims is None else {DENSE: qdrant_edge.EdgeVectorParams(size=dims,
                                                                              distance=qdrant_edge.Distance.Cosine)},
        wal_enabled=False,
        sparse_vectors={SPARSE: qdrant_edge.EdgeSparseVectorParams(modifier=qdrant_edge.Modifier.Idf)})
    n = len(retriever.chunks)

    def room(start: int) -> None:  # what the points of chunks ``start`` on need, before they are written
        store.require_room(name, (needed - COLLECTION_BYTES) * (n - start) // n)

    with store.pushing(name, replace, needed) as (partial, previous):
        with speaking_edge(where):
            shard = qdrant_edge.EdgeShard.create(str(partial), config)
        try:
            _upload(shard, where, retriever, None if dense is None else dense.vectors, progress, batch, room)
            with speaking_edge(where):
                shard.flush()
        finally:
            shard.close()
        physical = store.commit(name, partial, metadata)
    return PushReport(where.text, name, physical, previous, n, time.perf_counter() - started)


def _upload(shard: Any, where: Target, retriever: Retriever, dense: np.ndarray | None, progress: Progress,
            batch: int, room: Callable[[int], None]) -> None:
    from qdrant_edge import Point, SparseVector, UpdateOperation

    for start, vectors in sparse_batches(retriever, batch, progress):  # progress may raise Cancelled
        carried = payloads(retriever.chunks, start, start + len(vectors))
        points = [
            Point(i, {SPARSE: SparseVector(indices, values),
                      **({} if dense is None else {DENSE: np.asarray(dense[i], dtype=np.float32).tolist()})},
                  payload)
            for i, (indices, values), payload in zip(range(start, start + len(vectors)), vectors, carried,
                                                     strict=True)
        ]
        room(start)  # a full disk is one line here; inside the shard's memory maps it would be SIGBUS
        with speaking_edge(where):
            shard.update(UpdateOperation.upsert_points(points))
