"""Qdrant as a backend: push a corpus' chunks into a collection, rank them there.

Two places, one layout of points:

- ``qdrant:PATH``: a folder of Qdrant Edge shards (qdrant-edge-py), the Qdrant
  engine in this process: ``edge.py`` (a collection ranked), ``edge_push.py``
  (the push), ``edge_store.py`` (the folder: one shard per collection,
  switched atomically);
- ``http(s)://HOST:PORT``: a server or cluster through qdrant-client:
  ``client.py``, ``client_push.py``, ``connection.py`` (targets, the client, the
  API key from ``QDRANT_API_KEY``, the network's errors as one line). The
  tests also run these over the client's local mode, its in-process stand-in
  for a server.

What is pushed per chunk (point id = chunk position; payload chunk id,
document id, text): a sparse vector "bm25" holding BM25's chunk side,
``tf / (tf + k1·(1 - b + b·dl/avgdl))`` for each of the chunk's terms (term id
= index; ``vectors.py``), with Qdrant's IDF modifier on. Qdrant then scores a
query of term counts as ``Σ idf(t)·value(t)·count(t)`` with
``idf = ln((N - df + .5)/(df + .5) + 1)``: ranklens' BM25 lucene, computed in
float32 over the collection's own N and df (per shard on a sharded cluster).
With ``--dense``, a dense vector "dense" (cosine). ``collection.py`` holds
what both kinds of collection check and answer alike.

qdrant_edge and qdrant_client are imported only in this package, when a
backend is opened or pushed to; the registry (``engine/backends/registry.py``)
reaches the two functions below by name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.engine.backends.qdrant.connection import Target
from ranklens.engine.backends.qdrant.client import QdrantBackend

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend, PushReport
    from ranklens.engine.work.progress import Progress
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.dense import DenseScorer

__all__ = ["QdrantBackend", "open_collection", "push"]


def open_collection(target: str, collection: str | None = None) -> Backend:
    """The collection at ``target``: an Edge shard of a ``qdrant:PATH`` folder, or a server's through the client."""
    if Target.parse(target).path is not None:
        from ranklens.engine.backends.qdrant.edge import EdgeBackend

        return EdgeBackend.open(target, collection)
    return QdrantBackend.open(target, collection)


def push(retriever: Retriever, target: str, collection: str | None = None, replace: bool = False,
         progress: Progress | None = None, batch: int = 256, *, dense: DenseScorer | None = None) -> PushReport:
    """``retriever``'s chunks pushed to ``target`` (``base.Push``): a new Edge shard of a ``qdrant:PATH`` folder,
    or a new collection behind an alias on a server."""
    from ranklens.engine.work.progress import no_progress

    if Target.parse(target).path is not None:
        from ranklens.engine.backends.qdrant import edge_push

        return edge_push.push(retriever, target, collection, replace, progress or no_progress, batch, dense=dense)
    from ranklens.engine.backends.qdrant import client_push

    return client_push.push(retriever, target, collection, replace, progress or no_progress, batch, dense=dense)
