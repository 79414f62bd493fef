"""What an external engine must do for the workbench, and the scorer that wraps it.

A backend holds the chunks of a corpus pushed under one setup and answers a
query with the ids (chunk positions) and scores of its top k. ``BackendScorer``
puts it behind the ``Scorer`` contract, so ``Retriever`` (search, evaluate,
threshold, prompt), the runs and compare work over it unchanged: a search asks
the engine for k results, an evaluation for ``depth`` (the ranks metrics such
as MRR read), and a chunk the engine does not return scores the local scorer's
floor (0 for BM25, -inf for dense vectors and for the user's own retriever): below
every returned one, and not retrieved (``engine/topk.py``'s ranking rule).

The chunks, their texts and the questions still come from the corpus loaded
here; the fingerprint pushed with the collection (``engine/backends/fingerprint.py``)
proves that the collection holds these chunks, analysed the same way, so the
query's term ids are the collection's.

A push (``Push``) uploads a retriever's chunks into a new collection and says
what it did (``PushReport``). ``engine/backends/registry.py`` finds both a
backend and its push by the target's scheme.
"""
from __future__ import annotations

import contextvars
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from ranklens.engine.scoring.registry import spec

if TYPE_CHECKING:
    import numpy as np

    from ranklens.engine.corpus import Corpus
    from ranklens.engine.work.progress import Progress
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.scoring.dense import DenseScorer
    from ranklens.engine.scoring.explain import Explanation
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import QueryTerms
    from ranklens.engine.topk import QueryScores

DEPTH = 1000  # results an evaluation asks for per question: a relevant chunk ranked below counts as not found
# float32 scores (Qdrant stores and adds in float32) beside float64 ones: relative differences up to a few
# 1e-7 per term are rounding; beyond this they are a different computation
AGREE_RELATIVE = 1e-5


class Backend(Protocol):
    """An external engine holding one corpus' chunks (point id = chunk position).

    Four members are optional: ``depth``, the results an evaluation asks for per question (``DEPTH`` when
    absent; a service asked over a network is asked for fewer, once, and a relevant chunk below counts as
    not found); ``report()``, lines for the user after the work (questions whose request failed, hits the
    corpus could not place); ``twin`` (True when absent), whether the local scorer computes the engine's
    scores, which an explanation then compares; ``unplaced(query, k, scorer)``, the hits of its top k that are no
    chunk of the corpus (``Unplaced``), each keeping its rank.
    """

    @property
    def label(self) -> str:
        """Where the ranking comes from, for headers: "qdrant:PATH collection NAME"."""
        ...

    @property
    def notes(self) -> list[str]:
        """What the user should know about the connection (an API key over plain http)."""
        ...

    def ranking(self, setup: Setup, corpus: Corpus) -> Setup:
        """``setup`` with the scorer the engine ranks by: the setup's own when the collection holds its
        vectors, else the engine's default (RanklensError when the setup asks for vectors the collection lacks)."""
        ...

    def fingerprint(self) -> dict[str, Any]:
        """What the collection was pushed with (``fingerprint.fingerprint``)."""
        ...

    def check(self, retriever: Retriever) -> None:
        """Raise RanklensError, naming the difference, unless the collection holds ``retriever``'s chunks and terms."""
        ...

    def search(self, query: QueryTerms, k: int, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        """(chunk positions, scores) of the engine's top k for the query, best first, ranked as ``scorer``
        (the local twin) ranks: its terms, or its vector of the query's text."""
        ...

    def search_batch(self, queries: Sequence[QueryTerms], k: int, scorer: Scorer
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
        """``search`` of each query, asked in one round trip."""
        ...

    def score_of(self, query: QueryTerms, chunk: int, scorer: Scorer) -> float:
        """The engine's score of one chunk for the query (0 when it does not rank the chunk at all)."""
        ...

    def rank_of(self, query: QueryTerms, relevant: np.ndarray, scorer: Scorer, depth: int) -> int | None:
        """The 1-based rank of the best-ranked of ``relevant`` (chunk positions) in the stable descending order
        of the engine's top ``depth`` (every other chunk scoring 0), found without asking for that top; None
        when the engine cannot tell it more cheaply than by the ``depth`` results themselves."""
        ...

    def close(self) -> None:
        ...


@dataclass(frozen=True)
class Unplaced:
    """A hit of a user's own retriever that the corpus cannot place (``engine/backends/placing.py``): it keeps its
    ``rank`` among the results as a result nothing judges relevant (``engine/topk.py``'s ranks held by no chunk)."""

    rank: int
    id: str | None
    score: float
    text: str | None = None

    @property
    def run_id(self) -> str:
        """Its id in a run file: the retriever's own (never a chunk's, or it would be placed), else made of its
        rank; trec_eval reads either as unjudged."""
        return self.id if self.id is not None else f"unplaced-{self.rank}"


@runtime_checkable
class Unplacing(Protocol):
    """A scorer whose rankings may hold results that are no chunk (a user's own retriever through a backend)."""

    depth: int  # results a question is ranked to when scored in full

    def unplaced(self, query: QueryTerms, k: int) -> list[Unplaced]:
        """The results of the query's top ``k`` that are no chunk, by rank."""
        ...


@dataclass(frozen=True)
class PushReport:
    """What a push did (``ranklens push --json``)."""

    target: str
    collection: str  # the name queries use (Qdrant: an alias)
    physical: str  # what that name points at now (Qdrant: the collection behind the alias)
    replaced: str | None  # what it pointed at before (deleted), None on a first push
    chunks: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Push(Protocol):
    def __call__(self, retriever: Retriever, target: str, collection: str | None = None, replace: bool = False,
                 progress: Progress = ..., batch: int = ..., *, dense: DenseScorer | None = None) -> PushReport:
        """Upload ``retriever``'s chunks (analysed as its setup says, with their fingerprint) into a new
        collection named ``collection`` (default: the corpus' name) at ``target``; an existing one only with
        ``replace``, and never left half-made. With ``dense`` (the dense scorer on the same chunks), each
        chunk's vector too. ``batch``: chunks per upload request; ``progress`` may raise ``Cancelled``."""
        ...


# A front end that builds workbenches in many places (the command line's commands) attaches the backend for
# the length of one command; a Workbench made meanwhile takes it (the TUI passes its own explicitly).
_ATTACHED: contextvars.ContextVar[Backend | None] = contextvars.ContextVar("ranklens_backend", default=None)


def attached_backend() -> Backend | None:
    return _ATTACHED.get()


@contextmanager
def attached(backend: Backend) -> Iterator[Backend]:
    """Workbenches made inside the block rank through ``backend``; it is closed on the way out."""
    token = _ATTACHED.set(backend)
    try:
        yield backend
    finally:
        _ATTACHED.reset(token)
        backend.close()


def agree(a: float, b: float) -> bool:
    """Whether two scores of one chunk are the same number up to float32 rounding."""
    return abs(a - b) <= AGREE_RELATIVE * max(abs(a), abs(b), 1e-12)


@dataclass(repr=False)
class BackendScorer:
    """The backend behind the ``Scorer`` contract; ``local`` (the same scorer, here) explains its scores."""

    backend: Backend
    local: Scorer
    n: int  # chunks in the collection
    depth: int = DEPTH
    notes: Sequence[str] = ()  # for the user: judgments naming what the collection does not hold
    # the scorer's spec declares it reads the query's terms alone (``ScorerSpec.needs_terms``): a query
    # with no term of the corpus ranks nothing, and the engine is not asked
    needs_terms: bool = False

    def __repr__(self) -> str:
        return f"BackendScorer({self.backend.label})"

    @property
    def name(self) -> str:
        return self.local.name

    def effective_settings(self) -> dict[str, Any]:
        return {}

    def top_k(self, query: QueryTerms, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The engine's top k, ties ordered by the lower chunk index as ranklens orders them."""
        import numpy as np

        if not self._asks(query):
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return _ties_by_index(*self.backend.search(query, min(k, self.n), self.local))

    def top_k_batch(self, queries: Sequence[QueryTerms], k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """``top_k`` of each query, the engine asked once for all of them (Edge: 3-4x cheaper a query)."""
        import numpy as np

        asked = [q for q in queries if self._asks(q)]
        answers = iter(self.backend.search_batch(asked, min(k, self.n), self.local))
        return [_ties_by_index(*next(answers)) if self._asks(q) else (np.zeros(0, dtype=np.int64), np.zeros(0))
                for q in queries]

    def unplaced(self, query: QueryTerms, k: int) -> list[Unplaced]:
        """The hits of the engine's top ``k`` the corpus cannot place, each at its rank (a user's own retriever's)."""
        unplaced = getattr(self.backend, "unplaced", None)
        if unplaced is None or not self._asks(query):
            return []
        return cast("list[Unplaced]", unplaced(query, min(k, self.n), self.local))

    def _asks(self, query: QueryTerms) -> bool:
        """Whether the engine is asked: a query with no term of the corpus ranks nothing (``needs_terms``)."""
        return bool(query.ids.size) or not self.needs_terms

    def query_scores(self, query: QueryTerms) -> QueryScores:
        """The engine's top ``depth`` as touched chunks; every other chunk scores the floor."""
        import numpy as np

        from ranklens.engine.topk import QueryScores

        ids, scores = self.top_k(query, self.depth)
        order = np.argsort(ids, kind="stable")
        return QueryScores(self.n, scores[order], ids[order], self.floor(query))

    def floor(self, query: QueryTerms) -> float:
        """The local scorer's: what a chunk the query does not match scores. A retriever whose scores are its own
        (not ``twin``) has none: every hit it returns is retrieved, whatever its score (a negated distance or a
        logit may be 0 or below)."""
        from ranklens.engine.topk import floor_of

        if not getattr(self.backend, "twin", True):
            return -float("inf")
        return floor_of(self.local, query)

    def gold_rank(self, query: QueryTerms, relevant: np.ndarray) -> int | None:
        """``query_scores(query).gold_rank(relevant)`` when the engine can tell it without its top ``depth``
        (an evaluation's question whose relevant chunks are not in the top 10), else None."""
        if not self._asks(query):
            return None
        return self.backend.rank_of(query, relevant, self.local, self.depth)

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.query_scores(query).dense()

    def scores_batch(self, queries: Sequence[QueryTerms]) -> np.ndarray:
        import numpy as np

        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        """The local explanation term by term, with the engine's score of the same chunk beside it."""
        import dataclasses

        explanation = self.local.explain(query, doc)
        remote = self.backend.score_of(query, doc, self.local)
        local = explanation.score
        if not getattr(self.backend, "twin", True):  # the user's own retriever: no local computation of its score
            note = (f"{self.backend.label} scores it {remote:.6g} by its own means; the terms above are how "
                    f"{self.local.name} would score it ({local:.6g})")
        elif agree(remote, local):
            note = f"{self.backend.label} scores it {remote:.6g}: equal to the local {local:.6g} up to float32"
        else:
            note = (f"warning: {self.backend.label} scores it {remote:.6g}, the local computation {local:.6g} "
                    f"(differs by {abs(remote - local):.3g}, beyond float32)")
        return dataclasses.replace(explanation, notes=[*explanation.notes, note])


def _ties_by_index(ids: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An engine's top, best first, equal scores ordered by the lower chunk index as ranklens orders them."""
    import numpy as np

    order = np.lexsort((ids, -scores))
    return ids[order], scores[order]


def over_backend(retriever: Retriever, backend: Backend) -> Retriever:
    """``retriever`` ranking through ``backend`` (checked to hold its chunks); its own scorer explains."""
    import dataclasses

    backend.check(retriever)
    ids, questions = missing_judgments(retriever)
    notes = [*backend.notes, *([f"{ids} judged id(s) of {questions} question(s) are neither chunks nor documents "
                                f"of {backend.label}: they count as not retrieved"] if ids else [])]
    scorer = BackendScorer(backend, retriever.scorer, len(retriever.chunks), getattr(backend, "depth", DEPTH),
                           notes=notes, needs_terms=spec(retriever.setup.scorer).needs_terms(retriever.setup))
    return dataclasses.replace(retriever, scorer=scorer, source=backend.label)


def missing_judgments(retriever: Retriever) -> tuple[int, int]:
    """(judged ids, questions judging them) that name neither a chunk nor a document among ``retriever``'s chunks."""
    chunk_ids = {c.id for c in retriever.chunks}
    doc_ids = {c.doc_id for c in retriever.chunks}
    missing = [sum(1 for ident in q.relevant if ident not in chunk_ids and ident not in doc_ids)
               for q in retriever.corpus.questions]
    return sum(missing), sum(1 for m in missing if m)
