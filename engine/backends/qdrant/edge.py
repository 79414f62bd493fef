"""A collection in a Qdrant Edge shard (``qdrant:PATH``), ranked in this process by Qdrant's own engine.

Qdrant Edge (qdrant-edge-py, beta) is the engine of a Qdrant server as a
library: the shard's segments, its sparse inverted index with the IDF
modifier, exact dense search, and the RRF of prefetches run here, with no
server and no network. The query is the same as a server's (``client.py``):
the sparse vector of the query's term counts, the dense one of its text, or
both as prefetches fused by Qdrant's RRF with ``k = rrf_k + 1``.

The folder's layout (collections, shards, the atomic switch) is
``edge_store.py``'s; the push is ``edge_push.py``'s.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ranklens.engine.backends.qdrant.collection import Point, PushedCollection
from ranklens.engine.backends.qdrant.connection import DENSE, SPARSE, Target
from ranklens.engine.backends.qdrant.edge_store import EdgeStore
from ranklens.engine.backends.registry import backend_spec
from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.scoring.fusion import RRF_DEPTH

if TYPE_CHECKING:
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.scoring.dense import DenseScorer
    from ranklens.engine.text.termindex import QueryTerms


def edge_module() -> Any:
    """qdrant_edge, or RanklensError naming the pip command without the qdrant extra."""
    backend_spec("qdrant").require()
    import qdrant_edge

    return qdrant_edge


@contextmanager
def speaking_edge(target: Target) -> Iterator[None]:
    """Edge's errors (plain exceptions with a message) as one line naming the target."""
    try:
        yield
    except (RanklensError, Cancelled):
        raise
    except Exception as error:  # noqa: BLE001 - Edge raises bare Exception for everything it refuses
        raise RanklensError(f"{target.text}: Qdrant Edge: {str(error).splitlines()[0] if str(error) else error!r}") \
            from None


class EdgeBackend(PushedCollection):
    """A collection of a ``qdrant:PATH`` folder, its Edge shard loaded when the collection is first read."""

    def __init__(self, target: Target, store: EdgeStore, collection: str | None = None) -> None:
        super().__init__(target, collection)
        self.store = store
        self.shard: Any = None

    @classmethod
    def open(cls, target: str, collection: str | None = None) -> EdgeBackend:
        where = Target.parse(target)
        edge_module()  # without the extra, saying so comes first
        store = EdgeStore(where.text, Path(cast(str, where.path)))
        store.check_readable()
        backend = cls(where, store, collection)
        if collection is not None:
            backend._load(collection)
        return backend

    def _load(self, collection: str) -> dict[str, Any]:
        pointer = self.store.read(collection)
        self.store.tidy(collection)
        qdrant_edge = edge_module()
        with speaking_edge(self.target):
            shard = qdrant_edge.EdgeShard.load(str(pointer.shard))
            points = shard.info().points_count
        try:
            self.whole(collection, pointer.metadata, points)
        except RanklensError:
            shard.close()
            raise
        self.close()
        self.shard, self.collection, self.stored = shard, collection, pointer.metadata
        return pointer.metadata

    def _request(self, query: QueryTerms, k: int, scorer: Scorer, only: Sequence[int] | None = None,
                 threshold: float | None = None) -> Any:
        from qdrant_edge import Filter, Fusion, HasIdCondition, Prefetch, QueryRequest

        from ranklens.engine.scoring.fusion import FusionScorer

        flt = None if only is None else Filter(must=[HasIdCondition(set(only))])
        if isinstance(scorer, FusionScorer):
            # each part's top RRF_DEPTH, fused by Qdrant: its RRF adds 1/(k + position from 0), ranklens'
            # 1/(rrf_k + rank from 1), so k = rrf_k + 1 gives the same sums
            prefetches = [Prefetch(limit=RRF_DEPTH, query=self._nearest(query, part), params=self._params(part))
                          for part in scorer.parts if part.name != SPARSE or query.ids.size]
            return QueryRequest(limit=k, prefetches=prefetches, query=Fusion.Rrf(k=scorer.rrf_k + 1), filter=flt)
        return QueryRequest(limit=k, query=self._nearest(query, scorer), filter=flt, params=self._params(scorer),
                            score_threshold=threshold)

    def _answer(self, requests: list[Any]) -> list[Sequence[Point]]:
        from qdrant_edge import QueryBatchRequest

        with speaking_edge(self.target):
            if len(requests) == 1:
                return [cast("Sequence[Point]", self.shard.query(requests[0]))]
            return cast("list[Sequence[Point]]", self.shard.query_batch(QueryBatchRequest(requests)))

    @staticmethod
    def _nearest(query: QueryTerms, scorer: Scorer) -> Any:
        """The query as the shard's vector of ``scorer``: term counts, or the local twin's encoding."""
        from qdrant_edge import Query, SparseVector

        if scorer.name == DENSE:
            return Query.Nearest(cast("DenseScorer", scorer).encode([query.text])[0].tolist(), using=DENSE)
        return Query.Nearest(SparseVector(query.ids.tolist(), query.counts.astype(float).tolist()), using=SPARSE)

    @staticmethod
    def _params(scorer: Scorer) -> Any:
        """Exact search for dense vectors, so the ranking is the cosine's, not HNSW's."""
        from qdrant_edge import SearchParams

        return SearchParams(exact=True) if scorer.name == DENSE else None

    def close(self) -> None:
        shard, self.shard = self.shard, None
        if shard is not None:
            shard.close()
