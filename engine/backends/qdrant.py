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

A push uploads into a new collection and then points the alias NAME at it, so a
push that fails or is cancelled leaves the previous collection answering.
qdrant_client is imported only here, on the backend's path.
"""
from __future__ import annotations

import os
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.engine.backends.fingerprint import differences, fingerprint
from ranklens.engine.errors import RanklensError
from ranklens.engine.progress import Progress, no_progress
from ranklens.engine.scoring.fusion import RRF_DEPTH

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.scoring.dense import DenseScorer
    from ranklens.engine.setup import Setup
    from ranklens.engine.termindex import QueryTerms

API_KEY_ENV = "QDRANT_API_KEY"
SPARSE = "bm25"  # the vectors' names in the collection: the scorers they stand for
DENSE = "dense"
FUSION = "fusion"  # RRF of the two, by Qdrant (prefetch both, then its RRF with ranklens' rrf_k)
TIMEOUT_S = 5  # a server that does not answer fails within this, not after the client's default minute
BATCH = 256  # points per upload request
RETRIES = 3  # attempts per batch before the push gives up (upserts by id: a retried batch writes nothing twice)
INSTALL = "the Qdrant backend needs the qdrant extra: pip install 'ranklens[qdrant]'"


@dataclass(frozen=True)
class Target:
    """Where a collection lives: a local folder (``qdrant:PATH``) or a server's URL."""

    text: str  # as the user wrote it
    path: str | None = None
    url: str | None = None

    @classmethod
    def parse(cls, text: str) -> Target:
        if text.startswith("qdrant:") and len(text) > len("qdrant:"):
            return cls(text, path=text[len("qdrant:"):])
        if text.startswith(("http://", "https://")) and len(text.split("://", 1)[1]) > 0:
            return cls(text, url=text)
        raise RanklensError(f"{text!r} is not a Qdrant location: give qdrant:PATH (a local folder) "
                            "or http(s)://HOST:PORT (a server)")


def _client_module() -> Any:
    try:
        import qdrant_client
    except ImportError:
        raise RanklensError(INSTALL) from None
    return qdrant_client


@contextmanager
def speaking(target: Target) -> Iterator[None]:
    """Qdrant's and the network's exceptions as one line naming the target."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    try:
        yield
    except UnexpectedResponse as error:
        if error.status_code in (401, 403):
            raise RanklensError(f"{target.text}: the server refused the API key (status {error.status_code}; "
                                f"set {API_KEY_ENV})") from None
        reason = error.reason_phrase or "error"
        raise RanklensError(f"{target.text}: Qdrant answered {error.status_code} {reason}") from None
    except ResponseHandlingException as error:
        cause = error.source if getattr(error, "source", None) is not None else error
        raise RanklensError(f"{target.text}: cannot reach Qdrant ({type(cause).__name__}: "
                            f"{str(cause) or 'no answer'})") from None
    except (OSError, RuntimeError) as error:
        # local mode: a folder another process holds, or one that cannot be created
        raise RanklensError(f"{target.text}: {error}") from None


def connect(target: Target, timeout: int = TIMEOUT_S) -> QdrantClient:
    """A client on the target, checked to answer (a server that does not fails within ``timeout`` seconds)."""
    qdrant_client = _client_module()
    with speaking(target):
        if target.path is not None:
            with warnings.catch_warnings():  # its advice to use a server above 20,000 points: docs/qdrant.md
                warnings.filterwarnings("ignore", message="Local mode is not recommended", category=UserWarning)
                # The TUI opens the collection in one worker thread and queries it from others (local mode
                # answers from memory; its sqlite file is written by a push, from one thread): sqlite's
                # same-thread check, on where it is built for one thread per connection (macOS), would refuse
                client = qdrant_client.QdrantClient(path=target.path, force_disable_check_same_thread=True)
        else:
            # the version check would make a request of its own, with the client's default timeout
            with warnings.catch_warnings():  # a key over plain http: said as a note (insecure_key), not a warning
                warnings.filterwarnings("ignore", message="Api key is used with an insecure connection")
                client = qdrant_client.QdrantClient(url=target.url, api_key=os.environ.get(API_KEY_ENV) or None,
                                                    timeout=timeout, check_compatibility=False)
        try:
            client.get_collections()
        except BaseException:
            client.close()
            raise
    return client


def insecure_key(target: Target) -> list[str]:
    """A note when the API key would cross the network in clear."""
    if target.url is not None and target.url.startswith("http://") and os.environ.get(API_KEY_ENV):
        return [f"{API_KEY_ENV} is sent to {target.url} over plain http: use https beyond this machine"]
    return []


def _alias_target(client: QdrantClient, name: str) -> str | None:
    """The collection the alias ``name`` points at, None when there is no such alias."""
    for alias in client.get_aliases().aliases:
        if alias.alias_name == name:
            return alias.collection_name
    return None


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
        _client_module()  # without the extra, saying so comes first
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


def bm25_values(retriever: Retriever) -> Any:
    """The chunks x terms matrix (CSR) of BM25 lucene's chunk side: tf / (tf + k1·norm), float32 as Qdrant keeps it."""
    from ranklens.engine.scoring.bm25 import BM25Scorer, bm25_tfc, length_norm

    index, scorer = retriever.index, retriever.scorer
    if not isinstance(scorer, BM25Scorer) or scorer.variant != "lucene":
        raise RanklensError(f"Qdrant's IDF modifier computes BM25 lucene's idf; {retriever.setup.describe()} "
                            "cannot be pushed (use --scorer bm25 --bm25-variant lucene)")
    counts = index.counts.tocsr()
    norm = length_norm(index.doc_len.astype(np.float64), scorer.avgdl, scorer.b)
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    values = counts.astype(np.float64)
    values.data = bm25_tfc("lucene", values.data, norm[rows], scorer.k1, 0.0)
    return values.astype(np.float32)


@dataclass(frozen=True)
class PushReport:
    target: str
    collection: str  # the alias queries name
    physical: str  # the collection it points at now
    replaced: str | None  # the collection it pointed at before (deleted), None on a first push
    chunks: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def push(retriever: Retriever, target: str, collection: str | None = None, replace: bool = False,
         progress: Progress = no_progress, batch: int = BATCH, timeout: int = TIMEOUT_S,
         dense: DenseScorer | None = None) -> PushReport:
    """Upload ``retriever``'s chunks into a new collection, then point the alias ``collection`` (by default
    the corpus' name) at it. With ``dense`` (the dense scorer on the same chunks, its model the setup's),
    each chunk also gets its vector, searched by cosine."""
    started = time.perf_counter()
    collection = collection or retriever.corpus.name
    where = Target.parse(target)
    values = bm25_values(retriever)
    client = connect(where, timeout)
    from qdrant_client import models
    try:
        with speaking(where):
            previous = _alias_target(client, collection)
            if previous is None and client.collection_exists(collection):
                raise RanklensError(f"{where.text}: {collection!r} is a collection, not an alias ranklens made; "
                                    "push under another --collection or delete it")
            if previous is not None and not replace:
                raise RanklensError(f"{where.text}: collection {collection!r} exists (--replace replaces it)")
            physical = f"{collection}-{uuid.uuid4().hex[:12]}"
            metadata = fingerprint(retriever)
            vectors_config = {}
            if dense is not None:
                dims = int(dense.vectors.shape[1])
                metadata[DENSE] = {"model": retriever.setup.model, "dims": dims}
                vectors_config[DENSE] = models.VectorParams(size=dims, distance=models.Distance.COSINE)
            client.create_collection(
                physical, vectors_config=vectors_config,
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata=metadata)
        try:
            with warnings.catch_warnings():
                # local mode's advice to use a server above 20,000 points: docs/qdrant.md says it once
                warnings.filterwarnings("ignore", message="Local mode is not recommended", category=UserWarning)
                _upload(client, where, physical, retriever, values, None if dense is None else dense.vectors,
                        progress, batch)
            with speaking(where):
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


def _upload(client: QdrantClient, where: Target, physical: str, retriever: Retriever, values: Any,
            dense: np.ndarray | None, progress: Progress, batch: int) -> None:
    from qdrant_client import models

    chunks, total = retriever.chunks, len(retriever.chunks)
    indptr, indices, data = values.indptr, values.indices, values.data
    progress(0, total, "pushing")
    for start in range(0, total, batch):
        points = [
            models.PointStruct(
                id=i,
                # every chunk gets a vector, an empty one too: Qdrant's N counts them, as ranklens' does
                vector={SPARSE: models.SparseVector(indices=indices[indptr[i]:indptr[i + 1]].tolist(),
                                                    values=data[indptr[i]:indptr[i + 1]].tolist()),
                        **({} if dense is None else {DENSE: np.asarray(dense[i], dtype=np.float32).tolist()})},
                payload={"chunk_id": chunks[i].id, "doc_id": chunks[i].doc_id, "text": chunks[i].text})
            for i in range(start, min(start + batch, total))
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
        progress(min(start + batch, total), total, "pushing")  # may raise Cancelled: the new collection goes

