"""A pushed Qdrant collection ranked as a ``Backend``: BM25 (sparse), dense vectors, or their fusion by RRF.

Qdrant scores a sparse query of term counts as ``Σ idf(t)·value(t)·count(t)``
over the pushed chunk side of BM25 lucene (see the package docstring); dense
vectors by cosine, searched exactly; a fusion as Qdrant's RRF of the two.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.engine.backends.fingerprint import differences, fingerprint
from ranklens.engine.backends.qdrant.connection import (DENSE, FUSION, SPARSE, TIMEOUT_S, Target, client_module,
                                                        connect, insecure_key, speaking)
from ranklens.engine.errors import RanklensError
from ranklens.engine.scoring.fusion import RRF_DEPTH

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.scoring.dense import DenseScorer
    from ranklens.engine.setup import Setup
    from ranklens.engine.termindex import QueryTerms


class QdrantBackend:
    """A pushed collection, opened for queries (point id = chunk position).

    Connected when opened (an unreachable server fails there, within the
    timeout); the collection defaults to the name of the corpus of the first
    retriever checked against it, as ``push`` names it.
    """

    def __init__(self, target: Target, client: QdrantClient, collection: str | None = None) -> None:
        self.target, self.client = target, client
        self.collection = collection or ""
        self.stored: dict[str, Any] | None = None
        self._checked: set[str] = set()

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
        self.collection, self.stored = collection, stored
        return stored

    @property
    def label(self) -> str:
        return f"{self.target.text} collection {self.collection}"

    @property
    def notes(self) -> list[str]:
        return insecure_key(self.target)

    def ranking(self, setup: Setup, corpus: Corpus) -> Setup:
        stored = self.stored if self.stored is not None else self._load(corpus.name)
        if setup.scorer == FUSION and (set(setup.fuse) != {SPARSE, DENSE} or setup.fusion_method != "rrf"):
            raise RanklensError(f"collection {self.collection!r} fuses bm25 and dense by rrf only "
                                f"(not {setup.fusion_method} of {'+'.join(setup.fuse)})")
        if setup.scorer in (DENSE, FUSION) and DENSE not in stored:
            raise RanklensError(f"collection {self.collection!r} holds no dense vectors "
                                "(ranklens push --dense puts them there)")
        if setup.scorer in (DENSE, FUSION) and stored[DENSE]["model"] != setup.model:  # before the model loads
            raise RanklensError(f"collection {self.collection!r} was pushed with other settings: "
                                f"model={stored[DENSE]['model']!r} there, {setup.model!r} here")
        return setup if setup.scorer in (SPARSE, DENSE, FUSION) else setup.replace(scorer=SPARSE)

    def fingerprint(self) -> dict[str, Any]:
        return self.stored if self.stored is not None else {}

    def check(self, retriever: Retriever) -> None:
        """Refuse a setup other than the one the collection was pushed with, naming the difference."""
        stored = self.stored if self.stored is not None else self._load(retriever.corpus.name)
        wanted = fingerprint(retriever)
        key = wanted["chunk_ids"] + wanted["vocabulary"] + str(wanted["settings"])
        if key in self._checked:
            return
        problems = differences(stored, wanted)
        if problems:
            raise RanklensError(f"collection {self.collection!r} was pushed with other settings: "
                                + "; ".join(problems))
        self._checked.add(key)

    def _query(self, query: QueryTerms, k: int, scorer: Scorer, only: int | None = None) -> Any:
        from qdrant_client import models

        from ranklens.engine.scoring.fusion import FusionScorer

        flt = None if only is None else models.Filter(must=[models.HasIdCondition(has_id=[only])])
        if isinstance(scorer, FusionScorer):
            # each part's top RRF_DEPTH, fused by Qdrant: its RRF adds 1/(k + position from 0), ranklens'
            # 1/(rrf_k + rank from 1), so k = rrf_k + 1 gives the same sums
            prefetch = [models.Prefetch(query=self._vector(query, part), using=part.name, limit=RRF_DEPTH,
                                        params=self._params(part))
                        for part in scorer.parts if part.name != SPARSE or query.ids.size]
            with speaking(self.target):
                return self.client.query_points(
                    self.collection, prefetch=prefetch, query=models.RrfQuery(rrf=models.Rrf(k=scorer.rrf_k + 1)),
                    limit=k, query_filter=flt, with_payload=False).points
        with speaking(self.target):
            return self.client.query_points(self.collection, query=self._vector(query, scorer), using=scorer.name,
                                            limit=k, query_filter=flt, search_params=self._params(scorer),
                                            with_payload=False).points

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

    def search(self, query: QueryTerms, k: int, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        points = self._query(query, k, scorer)
        ids = np.fromiter((int(p.id) for p in points), dtype=np.int64, count=len(points))
        scores = np.fromiter((p.score for p in points), dtype=np.float64, count=len(points))
        return ids, scores

    def score_of(self, query: QueryTerms, chunk: int, scorer: Scorer) -> float:
        if scorer.name == SPARSE and not query.ids.size:
            return 0.0
        if scorer.name == FUSION:
            # a filter would reach the prefetches and rank the chunk first in each: read it from the fused list
            ids, scores = self.search(query, 2 * RRF_DEPTH, scorer)
            found = np.flatnonzero(ids == chunk)
            return float(scores[found[0]]) if found.size else 0.0
        points = self._query(query, 1, scorer, only=chunk)
        return float(points[0].score) if points else 0.0

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> QdrantBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
