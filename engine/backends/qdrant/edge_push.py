"""A corpus pushed into a new Qdrant Edge shard of a ``qdrant:PATH`` folder, switched in only when complete.

The points are a server collection's (``client_push.py``): point id = chunk position,
a sparse vector "bm25" with the IDF modifier, a dense one "dense" (cosine) with
``--dense``, payload ``chunk_id``, ``doc_id``, ``text``. They are streamed in
batches (one batch of values in memory at a time); the shard is written
without a write-ahead log and flushed, then ``edge_store`` names it. A push
that fails, is cancelled or is killed leaves the previous shard answering.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.engine.backends.base import PushReport
from ranklens.engine.backends.qdrant.connection import DENSE, SPARSE, Target
from ranklens.engine.backends.qdrant.edge import edge_module, speaking_edge
from ranklens.engine.backends.qdrant.edge_store import EdgeStore
from ranklens.engine.backends.qdrant.vectors import payloads, push_metadata, pushable, sparse_batches
from ranklens.engine.progress import Progress, no_progress

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
    partial, previous = store.start(name, replace)
    metadata, dims = push_metadata(retriever, dense)
    config = qdrant_edge.EdgeConfig(
        vectors={} if dims is None else {DENSE: qdrant_edge.EdgeVectorParams(size=dims,
                                                                              distance=qdrant_edge.Distance.Cosine)},
        wal_enabled=False,
        sparse_vectors={SPARSE: qdrant_edge.EdgeSparseVectorParams(modifier=qdrant_edge.Modifier.Idf)})
    try:
        with speaking_edge(where):
            shard = qdrant_edge.EdgeShard.create(str(partial), config)
        try:
            _upload(shard, where, retriever, None if dense is None else dense.vectors, progress, batch)
            with speaking_edge(where):
                shard.flush()
        finally:
            shard.close()
        physical = store.commit(name, partial, metadata)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)  # the previous shard, if any, was never touched
        raise
    return PushReport(where.text, name, physical, previous, len(retriever.chunks), time.perf_counter() - started)


def _upload(shard: Any, where: Target, retriever: Retriever, dense: np.ndarray | None, progress: Progress,
            batch: int) -> None:
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
        with speaking_edge(where):
            shard.update(UpdateOperation.upsert_points(points))
