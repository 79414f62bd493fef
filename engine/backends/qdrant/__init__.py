"""Qdrant as a backend: push a corpus' chunks into a collection, rank them there.

One code path for the in-process local mode (``qdrant:PATH``, a folder, no
server) and a server or cluster (``http(s)://HOST:PORT``): qdrant-client
offers the same API over both. The API key comes from the ``QDRANT_API_KEY``
environment variable, never from the command line.

What is pushed per chunk (point id = chunk position; payload chunk id,
document id, text): a sparse vector "bm25" holding BM25's chunk side,
``tf / (tf + k1·(1 - b + b·dl/avgdl))`` for each of the chunk's terms (term id
= index), with Qdrant's IDF modifier on. Qdrant then scores a query of term
counts as ``Σ idf(t)·value(t)·count(t)`` with ``idf = ln((N - df + .5)/(df + .5) + 1)``:
ranklens' BM25 lucene, computed in float32 over the collection's own N and df
(per shard on a sharded cluster).

qdrant_client is imported only in this package, on the backend's path:
``connection`` (targets, the client, Qdrant's errors as one line), ``ranking``
(a pushed collection ranked as a ``Backend``), ``push`` (the upload into a new
collection, then the alias NAME pointed at it). The registry
(``engine/backends/registry.py``) opens and pushes through these by name.
"""
from __future__ import annotations

from ranklens.engine.backends.qdrant.push import push
from ranklens.engine.backends.qdrant.ranking import QdrantBackend

__all__ = ["QdrantBackend", "push"]
