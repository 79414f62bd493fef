"""A collection reached through qdrant-client ranked as a ``Backend``: BM25 (sparse), dense vectors, or their RRF.

The client speaks to a server or cluster (``http(s)://HOST:PORT``); the tests
also run it over the client's local mode, its in-process stand-in for a server
(a folder: ``QdrantBackend.open("qdrant:PATH")`` here, while ``qdrant:PATH`` on
the command line is an Edge shard, ``edge.py``). Qdrant scores a sparse query
of term counts as ``Σ idf(t)·value(t)·count(t)`` over the pushed chunk side of
BM25 lucene (see the package docstring); dense vectors by cosine, searched
exactly; a fusion as Qdrant's RRF of the two.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

from ranklens.engine.backends.qdrant.collection import PushedCollection
from ranklens.engine.backends.qdrant.connection import (DENSE, SPARSE, TIMEOUT_S, Target, client_module,
                                                        connect, insecure_key, speaking)
from ranklens.engine.errors import RanklensError
from ranklens.engine.scoring.fusion import RRF_DEPTH

if TYPE_CHECKING:
    from collections.abc import Sequence

    from qdrant_client import QdrantClient

    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.scoring.dense import DenseScorer
    from ranklens.engine.text.termindex import QueryTerms


class QdrantBackend(PushedCollection):
    """A pushed collection through qdrant-client, opened for queries (point id = chunk position).

    Connected when opened (an unreachable server fails there, within the
    timeout).
    """

    def __init__(self, target: Target, client: QdrantClient, collection: str | None = None) -> None:
        super().__init__(target, collection)
        self.client = client

    @classmethod
    def open(cls, target: str, collection: str | None = None, timeout: int = TIMEOUT_S) -> QdrantBackend:
        where = Target.parse(target)
        client_module()  # without the extra, saying so comes first
        if where.path is not None and not os.path.isdir(where.path):  # local mode would make an empty one
            raise RanklensError(f"{where.text}: no such folder (ranklens push CORPUS --to {where.text} makes one)")
        backend = cls(where, connect(where, timeout), collection)
        if collection is not None:
            try:
                backend._load(collection)
            except BaseException:
                backend.close()
                raise
        return backend

    def _load(self, collection: str) -> dict[str, Any]:
        """The collection's ranklens metadata, read once; one line when it is missing or not ranklens'."""
        where, client = self.target, self.client
        with speaking(where):
            if not client.collection_exists(collection):
                aliases = client.get_aliases().aliases
                behind = {a.collection_name for a in aliases}  # a push's own collections: named by their alias
                names = sorted({a.alias_name for a in aliases}
                               | {c.name for c in client.get_collections().collections if c.name not in behind})
                known = f" (it has {', '.join(names)})" if names else " (it has no collections)"
                raise RanklensError(f"{where.text}: no collection {collection!r}{known}; "
                                    "ranklens push CORPUS --to ... makes one")
            stored = client.get_collection(collection).config.metadata or {}
            if "ranklens" not in stored:
                raise RanklensError(f"{where.text}: collection {collection!r} was not pushed by ranklens "
                                    "(no ranklens metadata)")
            self.whole(collection, stored, client.count(collection, exact=True).count)
        self.collection, self.stored = collection, stored
        return stored

    @property
    def notes(self) -> list[str]:
        return insecure_key(self.target)

    def _request(self, query: QueryTerms, k: int, scorer: Scorer, only: Sequence[int] | None = None,
                 threshold: float | None = None) -> Any:
        from qdrant_client import models

        from ranklens.engine.scoring.fusion import FusionScorer

        flt = None if only is None else models.Filter(must=[models.HasIdCondition(has_id=list(only))])
        if isinstance(scorer, FusionScorer):
            # each part's top RRF_DEPTH, fused by Qdrant: its RRF adds 1/(k + position from 0), ranklens'
            # 1/(rrf_k + rank from 1), so k = rrf_k + 1 gives the same sums
            prefetch = [models.Prefetch(query=self._vector(query, part), using=part.name, limit=RRF_DEPTH,
                                        params=self._params(part))
                        for part in scorer.parts if part.name != SPARSE or query.ids.size]
            return models.QueryRequest(prefetch=prefetch, query=models.RrfQuery(rrf=models.Rrf(k=scorer.rrf_k + 1)),
                                       limit=k, filter=flt, with_payload=False)
        return models.QueryRequest(query=self._vector(query, scorer), using=scorer.name, limit=k, filter=flt,
                                   params=self._params(scorer), score_threshold=threshold, with_payload=False)

    def _answer(self, requests: list[Any]) -> list[Any]:
        with speaking(self.target):
            return [answer.points for answer in self.client.query_batch_points(self.collection, requests)]

    @staticmethod
    def _vector(query: QueryTerms, scorer: Scorer) -> Any:
        """The query as the collection's vector of ``scorer``: term counts, or the local twin's encoding."""
        from qdrant_client import models

        if scorer.name == DENSE:
            return cast("DenseScorer", scorer).encode([query.text])[0].tolist()
        return models.SparseVector(indices=query.ids.tolist(), values=query.counts.tolist())

    def _params(self, scorer: Scorer) -> Any:
        """Exact search for dense vectors, so the ranking is the cosine's, not HNSW's (local mode is always
        exact, and warns when told to)."""
        from qdrant_client import models

        return models.SearchParams(exact=True) if scorer.name == DENSE and self.target.url else None

    def close(self) -> None:
        self.client.close()

