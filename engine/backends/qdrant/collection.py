"""What a pushed collection does the same wherever it lives: its checks, its scorers, its points as rankings.

``PushedCollection`` is the ``Backend`` of ``engine/backends/base.py`` minus the
two things that differ between an Edge shard (``edge.py``) and a collection
reached through qdrant-client (``client.py``): reading the collection's
ranklens metadata (``_load``) and asking the engine for points (``_query``).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from ranklens.engine.backends.fingerprint import differences, fingerprint
from ranklens.engine.backends.qdrant.connection import DENSE, FUSION, SPARSE, Target
from ranklens.engine.backends.base import AGREE_RELATIVE
from ranklens.engine.errors import RanklensError
from ranklens.engine.scoring.base import TouchedScores, capable
from ranklens.engine.scoring.fusion import RRF_DEPTH

SHORT_LIMIT = 100  # points a rank is first looked for among (most ranks beyond the top 10 are within it)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import QueryTerms


class Point(Protocol):
    """A scored point as either API returns it (id = chunk position)."""

    @property
    def id(self) -> Any: ...

    @property
    def score(self) -> float: ...


class PushedCollection:
    """A collection ``ranklens push`` made, opened for queries; the collection defaults to the name of the
    corpus of the first retriever checked against it, as ``push`` names it."""

    def __init__(self, target: Target, collection: str | None = None) -> None:
        self.target = target
        self.collection = collection or ""
        self.stored: dict[str, Any] | None = None
        self._checked: set[str] = set()

    def _load(self, collection: str) -> dict[str, Any]:
        """The collection's ranklens metadata, read once (setting ``collection`` and ``stored``); one line when
        it is missing or not ranklens'."""
        raise NotImplementedError

    def _request(self, query: QueryTerms, k: int, scorer: Scorer, only: Sequence[int] | None = None,
                 threshold: float | None = None) -> Any:
        """The engine's request for the top ``k`` points of the query ranked as ``scorer``: among the chunks
        ``only`` when given, scoring above ``threshold`` when given (fusion: neither is asked)."""
        raise NotImplementedError

    def _answer(self, requests: list[Any]) -> list[Sequence[Point]]:
        """The points of each request, in order: one round trip for all of them."""
        raise NotImplementedError

    def _query(self, query: QueryTerms, k: int, scorer: Scorer, only: Sequence[int] | None = None,
               threshold: float | None = None) -> Sequence[Point]:
        return self._answer([self._request(query, k, scorer, only, threshold)])[0]

    def close(self) -> None:
        raise NotImplementedError

    @property
    def label(self) -> str:
        return f"{self.target.text} collection {self.collection}"

    @property
    def notes(self) -> list[str]:
        return []

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

    def whole(self, collection: str, stored: dict[str, Any], points: int) -> None:
        """Refuse a collection holding other than the points its push wrote (a shard missing a file loads as
        an empty one, where every chunk would score 0)."""
        if points != stored.get("chunks"):
            raise RanklensError(f"{self.target.text}: collection {collection!r} is damaged: it holds {points} "
                                f"points, its push wrote {stored.get('chunks')} (push it again with --replace)")

    def fingerprint(self) -> dict[str, Any]:
        return self.stored if self.stored is not None else {}

    def check(self, retriever: Retriever) -> None:
        """Refuse a setup other than the one the collection was pushed with, naming the difference."""
        stored = self.stored if self.stored is not None else self._load(retriever.corpus.name)
        wanted = fingerprint(retriever)
        key = json.dumps(wanted, sort_keys=True)
        if key in self._checked:
            return
        problems = differences(stored, wanted)
        if problems:
            raise RanklensError(f"collection {self.collection!r} was pushed with other settings: "
                                + "; ".join(problems))
        self._checked.add(key)

    def search(self, query: QueryTerms, k: int, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        return _arrays(self._query(query, k, scorer))

    def search_batch(self, queries: Sequence[QueryTerms], k: int, scorer: Scorer
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
        if not queries:
            return []
        return [_arrays(points) for points in self._answer([self._request(q, k, scorer) for q in queries])]

    def score_of(self, query: QueryTerms, chunk: int, scorer: Scorer) -> float:
        if scorer.name == SPARSE and not query.ids.size:
            return 0.0
        if scorer.name == FUSION:
            # a filter would reach the prefetches and rank the chunk first in each: read it from the fused list
            ids, scores = self.search(query, 2 * RRF_DEPTH, scorer)
            found = np.flatnonzero(ids == chunk)
            return float(scores[found[0]]) if found.size else 0.0
        points = self._query(query, 1, scorer, only=[chunk])
        return float(points[0].score) if points else 0.0

    def rank_of(self, query: QueryTerms, relevant: np.ndarray, scorer: Scorer, depth: int) -> int | None:
        """The rank counted among the engine's points scoring at least about the best relevant chunk's, in
        place of its top ``depth``. Qdrant's cost grows with the limit asked, not the points found (Edge,
        Cranfield: 0.05 ms at 10, 0.08 ms at 100, 0.5 ms at 1000), so the limit is kept near the rank.

        Where the threshold comes from: for BM25, the local twin's score of the relevant chunks (the
        engine's up to float32), lowered by the rounding allowed, with the local rank for the limit; else
        (or when the engine's scores differ beyond rounding, as on a sharded cluster) the engine's own score
        of the relevant chunks (a filter on their ids), asking for ``SHORT_LIMIT`` and then ``depth`` points.
        Either way the rank is counted within one answer of the engine's alone, so no float from elsewhere
        can shift it. None (the deep query decides) for a fusion (a filter would reach its prefetches), for a
        best score of 0 or below (chunks beyond the top ``depth`` score 0 there), and when ``depth`` chunks or
        more score at least the best.
        """
        if not relevant.size or scorer.name == FUSION or (scorer.name == SPARSE and not query.ids.size):
            return None
        if scorer.name == SPARSE and capable(scorer, TouchedScores):
            local = cast(TouchedScores, scorer).query_scores(query)
            best, rank = float(np.max(local[relevant])), local.gold_rank(relevant) or depth
            if best > 0:
                told = self._rank_above(query, relevant, scorer, best * (1 - AGREE_RELATIVE),
                                        min(depth, 2 * rank + 10))
                if told is not None:
                    return told
        found = self._query(query, relevant.size, scorer, only=relevant.tolist())
        if not found or max(p.score for p in found) <= 0:
            return None
        # Qdrant keeps the scores above its threshold, in float32: one step below the best keeps the best
        below = float(np.nextafter(np.float32(max(p.score for p in found)), np.float32(-np.inf)))
        for limit in (min(SHORT_LIMIT, depth), depth):
            told = self._rank_above(query, relevant, scorer, below, limit)
            if told is not None:
                return told
        return None

    def _rank_above(self, query: QueryTerms, relevant: np.ndarray, scorer: Scorer, threshold: float,
                    limit: int) -> int | None:
        """The best relevant chunk's rank among the engine's points scoring above ``threshold``; None when
        ``limit`` points or more do (the answer may be cut), or none of them is relevant, or the best is not
        above 0."""
        ids, scores = _arrays(self._query(query, limit, scorer, threshold=threshold))
        mine = np.isin(ids, relevant)
        if ids.size >= limit or not mine.any():
            return None
        best = scores[mine].max()
        if best <= 0:
            return None
        first = ids[mine & (scores == best)].min()
        return int(np.count_nonzero(scores > best) + np.count_nonzero((scores == best) & (ids < first)) + 1)

    def __enter__(self) -> PushedCollection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _arrays(points: Sequence[Point]) -> tuple[np.ndarray, np.ndarray]:
    """(chunk positions, scores) of the points, in their order."""
    ids = np.fromiter((int(p.id) for p in points), dtype=np.int64, count=len(points))
    return ids, np.fromiter((p.score for p in points), dtype=np.float64, count=len(points))
