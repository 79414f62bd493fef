"""A corpus pushed through qdrant-client: BM25 lucene's chunk side as sparse vectors, dense ones optionally.

(``edge_push.py`` pushes into an Edge shard, ``qdrant:PATH``; this module into a
server, and in the tests into the client's local mode, its stand-in for one.)

The upload goes into a new collection; then the alias NAME is pointed at it,
so a push that fails or is cancelled leaves the previous collection answering.
A push finding the alias switched by another push meanwhile is dropped rather
than replacing that one's collection unasked (a server offers no lock; the
check narrows the window to the switch's own round trips).
"""
from __future__ import annotations

import time
import uuid
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.engine.backends.base import PushReport
from ranklens.engine.backends.qdrant.connection import DENSE, SPARSE, TIMEOUT_S, Target, alias_target, connect, speaking
from ranklens.engine.backends.qdrant.vectors import payloads, push_metadata, pushable, sparse_batches
from ranklens.engine.errors import RanklensError
from ranklens.engine.work.progress import Progress, no_progress

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.dense import DenseScorer

BATCH = 256  # points per upload request
RETRIES = 3  # attempts per batch before the push gives up (upserts by id: a retried batch writes nothing twice)


def push(retriever: Retriever, target: str, collection: str | None = None, replace: bool = False,
         progress: Progress = no_progress, batch: int = BATCH, timeout: int = TIMEOUT_S,
         dense: DenseScorer | None = None) -> PushReport:
    """Upload ``retriever``'s chunks into a new collection, then point the alias ``collection`` (by default
    the corpus' name) at it. With ``dense`` (the dense scorer on the same chunks, its model the setup's),
    each chunk also gets its vector, searched by cosine."""
    started = time.perf_counter()
    collection = collection or retriever.corpus.name
    where = Target.parse(target)
    pushable(retriever)
    client = connect(where, timeout)
    from qdrant_client import models
    try:
        with speaking(where):
            previous = alias_target(client, collection)
            if previous is None and client.collection_exists(collection):
                raise RanklensError(f"{where.text}: {collection!r} is a collection, not an alias ranklens made; "
                                    "push under another --collection or delete it")
            if previous is not None and not replace:
                raise RanklensError(f"{where.text}: collection {collection!r} exists (--replace replaces it)")
            physical = f"{collection}-{uuid.uuid4().hex[:12]}"
            metadata, dims = push_metadata(retriever, dense)
            vectors_config = {} if dims is None else {
                DENSE: models.VectorParams(size=dims, distance=models.Distance.COSINE)}
            client.create_collection(
                physical, vectors_config=vectors_config,
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata=metadata)
        try:
            with warnings.catch_warnings():
                # local mode's advice to use a server above 20,000 points: docs/qdrant.md says it once
                warnings.filterwarnings("ignore", message="Local mode is not recommended", category=UserWarning)
                _upload(client, where, physical, retriever, None if dense is None else dense.vectors,
                        progress, batch)
            with speaking(where):
                # a server has no lock to hold: a push that switched the alias meanwhile wins, this one is dropped
                now = alias_target(client, collection)
                if now != previous:
                    raise RanklensError(f"{where.text}: collection {collection!r} was pushed by another process "
                                        f"meanwhile (now {now}); this push was dropped")
                operations: list[Any] = []
                if previous is not None:
                    operations.append(models.DeleteAliasOperation(
                        delete_alias=models.DeleteAlias(alias_name=collection)))
                operations.append(models.CreateAliasOperation(
                    create_alias=models.CreateAlias(collection_name=physical, alias_name=collection)))
                client.update_collection_aliases(change_aliases_operations=operations)
        except BaseException:
            with speaking(where):
                client.delete_collection(physical)  # the alias still names the previous collection
            raise
        if previous is not None:
            with speaking(where):
                client.delete_collection(previous)
    finally:
        client.close()
    return PushReport(where.text, collection, physical, previous, len(retriever.chunks),
                      time.perf_counter() - started)


def _upload(client: QdrantClient, where: Target, physical: str, retriever: Retriever,
            dense: np.ndarray | None, progress: Progress, batch: int) -> None:
    from qdrant_client import models

    # progress may raise Cancelled between batches: push() then deletes the new collection
    for start, vectors in sparse_batches(retriever, batch, progress):
        carried = payloads(retriever.chunks, start, start + len(vectors))
        points = [
            models.PointStruct(
                id=i,
                vector={SPARSE: models.SparseVector(indices=indices, values=values),
                        **({} if dense is None else {DENSE: np.asarray(dense[i], dtype=np.float32).tolist()})},
                payload=payload)
            for i, (indices, values), payload in zip(range(start, start + len(vectors)), vectors, carried,
                                                     strict=True)
        ]
        for attempt in range(1, RETRIES + 1):
            try:
                with speaking(where):
                    client.upsert(physical, points=points, wait=True)
                break
            except RanklensError:
                if attempt == RETRIES:
                    raise
                time.sleep(0.5 * attempt)
