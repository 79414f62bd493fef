"""The user's own retriever as a backend: a Python function or an HTTP endpoint asked a question's text.

``OwnRetriever`` is the ``Backend`` of ``base.py`` for a retriever that
ranks by itself: it answers with hits (an id, a score, maybe a text), not
with ranklens' chunk positions. It asks the subclass (``python_function.py``,
``endpoint.py``) for the hits of many questions at once (``ask``), places
each hit among the retriever's chunks (``placing.py``) and keeps what a
report must say: the hits the corpus cannot place (each keeps its rank as a
result that is no chunk: ``unplaced``, ``engine/topk.py``), and the questions whose
request failed (status and a short excerpt). A failed question ranks nothing,
so it counts as a miss and every other question is still measured; a failure
of the very first request (a refused connection, a 401, a function that
raises) is the user's setup being wrong and stops at once, as one line.

A run (``run --save``, a side of ``compare`` or ``pool``) searches the
corpus' questions one by one, in file order: two searches of consecutive
questions read ahead, asking the next ``READ_AHEAD`` questions together, so a
run is asked ``concurrency`` at a time as an evaluation is.

An evaluation asks each question once, for its top ``ASKED`` (``depth``): the
metrics read its top 10 and MRR its full rank, and a relevant chunk below
counts as not found. A later ask for fewer hits, or for more when the
retriever returned fewer than asked, is answered from what was kept (a
search after the evaluation, its latency sample).
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.engine.backends.base import Unplaced
from ranklens.engine.backends.placing import Placement
from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import QueryTerms

ASKED = 100  # hits an evaluation asks each question for
READ_AHEAD = 64  # questions asked together once searches go through the corpus' questions in order
EXCERPT = 80  # characters of a failed answer shown beside its status
KEPT_ANSWERS = 4096  # questions whose answers are kept (an evaluation asks each twice at most)
SHOWN_FAILURES = 3  # failed questions named in the report, the rest counted


@dataclass(frozen=True)
class Hit:
    """One hit as the retriever returned it."""

    id: str | None
    score: float
    text: str | None = None


@dataclass(frozen=True)
class Failure:
    """Why one question has no answer: ``status`` ("HTTP 500", "timeout", "ValueError"), a short excerpt of
    what came back, and whether it shows the retriever cannot be reached at all (``fatal``)."""

    status: str
    excerpt: str = ""
    fatal: bool = False

    def describe(self) -> str:
        return f"{self.status}: {self.excerpt}" if self.excerpt else self.status


class ShapeError(RanklensError):
    """A retriever's answer that is not a list of hits (the message names what it is instead)."""


def excerpt(text: str) -> str:
    """``text`` on one line, cut to ``EXCERPT`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[:EXCERPT - 1] + "…"


def hit_of(value: Any, where: str) -> Hit:
    """A hit from a dict ``{"id", "score", optional "text"}`` or an ``(id, score)`` pair; ShapeError naming
    ``where`` (the function, the hit's position) otherwise."""
    if isinstance(value, dict):
        ident, score, text = value.get("id"), value.get("score"), value.get("text")
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        (ident, score), text = value, None
    else:
        raise ShapeError(f"{where} is {_kind(value)}, not {{'id': str, 'score': float}} or an (id, score) pair")
    return checked_hit(ident, score, text, where)


def checked_hit(ident: Any, score: Any, text: Any, where: str) -> Hit:
    """A hit of these fields, each checked (an integer id is read as its decimal string)."""
    if isinstance(ident, int) and not isinstance(ident, bool):
        ident = str(ident)
    if ident is not None and not isinstance(ident, str):
        raise ShapeError(f"{where}: its id is {_kind(ident)}, not a string")
    if ident is None and not isinstance(text, str):
        raise ShapeError(f"{where} has no id and no text")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise ShapeError(f"{where}: its score is {_kind(score)}, not a finite number")
    if text is not None and not isinstance(text, str):
        raise ShapeError(f"{where}: its text is {_kind(text)}, not a string")
    return Hit(ident, float(score), text)


def _kind(value: Any) -> str:
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 40 else shown[:39] + '…'}"


class OwnRetriever:
    """A retriever that ranks by itself, asked questions by their text (see the module's docstring)."""

    depth = ASKED
    twin = False  # its scores are its own: the local scorer only explains

    def __init__(self, name: str) -> None:
        self.name = name  # the target as given: "endpoint:search.toml", "python:my_retriever:search"
        self._placements: dict[int, tuple[Scorer, Placement]] = {}
        self._answers: OrderedDict[str, tuple[int, list[Hit] | Failure]] = OrderedDict()
        self._failed: dict[str, Failure] = {}
        self._unplaced: dict[str, int] = {}
        self._answered = False  # a request has succeeded: later failures are the question's, not the setup's
        self._questions: list[str] = []  # the texts of the corpus' questions, in file order
        self._question_at: dict[str, int] = {}
        self._last_question = -2  # the position of the question searched last (-2: none, or not a question)
        self._lock = threading.Lock()

    # what a subclass does

    def ask(self, texts: Sequence[str], k: int) -> list[list[Hit] | Failure]:
        """The hits (best first) of each question, or why it has none; ShapeError for an answer that is no
        list of hits."""
        raise NotImplementedError

    @property
    def source(self) -> str:
        """Where the hits come from, for the label and the runs' sidecars (the URL, never a secret)."""
        raise NotImplementedError

    # the Backend contract

    @property
    def label(self) -> str:
        return self.name if not self.source else f"{self.name} ({self.source})"

    @property
    def notes(self) -> list[str]:
        return []

    def ranking(self, setup: Setup, corpus: Corpus) -> Setup:
        """The setup as given, its chunking deciding the chunks hits are placed among; its scorer only explains,
        so one that needs more than the term index (a model, a factorisation) is BM25's instead."""
        from ranklens.engine.backends.registry import EXPLAINERS

        return setup if setup.scorer in EXPLAINERS else setup.replace(scorer=EXPLAINERS[0])

    def fingerprint(self) -> dict[str, Any]:
        return {"retriever": self.name, "source": self.source}

    def check(self, retriever: Retriever) -> None:
        """Nothing to refuse (the retriever holds no copy of the chunks): learn where its hits lie."""
        key = id(retriever.scorer)
        if key not in self._placements:  # the scorer is kept with it, so its id is not reused meanwhile
            self._placements[key] = (retriever.scorer, Placement(retriever.corpus, retriever.chunks))
        self._questions = [question.text for question in retriever.corpus.questions]
        self._question_at = {}
        for position, text in enumerate(self._questions):
            self._question_at.setdefault(text, position)

    def search(self, query: QueryTerms, k: int, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        """One question's top k; its failure is one line (a search asks nothing else), unless an evaluation's
        batch found it already (its report tells it: the evaluation's latency sample searches again)."""
        known = query.text in self.failed
        answer = self._asked(self._reading_ahead(query.text, k), k)[0]
        if isinstance(answer, Failure):
            if known:
                return _nothing()
            raise RanklensError(f"{self.name}: {answer.describe()}")
        return self._positions(query.text, answer, scorer, k)

    def search_batch(self, queries: Sequence[QueryTerms], k: int, scorer: Scorer
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each question's top k, asked together; a failed question ranks nothing (the report counts it)."""
        answers = self._asked([q.text for q in queries], max(k, self.depth))
        return [self._positions(q.text, a, scorer, k) if not isinstance(a, Failure) else _nothing()
                for q, a in zip(queries, answers, strict=True)]

    def score_of(self, query: QueryTerms, chunk: int, scorer: Scorer) -> float:
        ids, scores = self.search_batch([query], self.depth, scorer)[0]
        found = np.flatnonzero(ids == chunk)
        return float(scores[found[0]]) if found.size else 0.0

    def rank_of(self, query: QueryTerms, relevant: np.ndarray, scorer: Scorer, depth: int) -> int | None:
        return None  # the retriever's own top ``depth`` decides

    def close(self) -> None:
        pass

    # what the report says after the work

    def report(self) -> list[str]:
        """The questions that failed and the hits the corpus could not place, as lines for the user."""
        lines = []
        with self._lock:
            failed, unplaced = dict(self._failed), dict(self._unplaced)
        if failed:
            shown = "; ".join(f"{text!r}: {failure.describe()}"
                              for text, failure in list(failed.items())[:SHOWN_FAILURES])
            more = f" (and {len(failed) - SHOWN_FAILURES} more)" if len(failed) > SHOWN_FAILURES else ""
            lines.append(f"{len(failed)} question(s) failed at {self.name}, ranked as retrieving nothing: "
                         f"{shown}{more}")
        if unplaced:
            lines.append(f"{sum(unplaced.values())} hits of {self.name} are not in the corpus (neither a chunk "
                         f"nor a document id, nor a text found in a document), in {len(unplaced)} question(s): "
                         "each keeps its rank, never relevant")
        return lines

    @property
    def failed(self) -> dict[str, Failure]:
        """The questions (by text) whose request failed, and why."""
        with self._lock:
            return dict(self._failed)

    # the work

    def _reading_ahead(self, text: str, k: int) -> list[str]:
        """``text``, and the next ``READ_AHEAD`` questions of the corpus when the search before was of the
        question just before it (a run going through the questions) and no answer is kept for ``text``."""
        position = self._question_at.get(text, -2)
        following = position >= 0 and position == self._last_question + 1
        self._last_question = position
        if not following or self._kept(text, k) is not None:
            return [text]
        return [text, *self._questions[position + 1:position + READ_AHEAD]]

    def _kept(self, text: str, k: int) -> list[Hit] | Failure | None:
        """The answer kept for ``text`` that holds its top ``k`` (a failure holds nothing), None when none."""
        with self._lock:
            kept = self._answers.get(text)
        if kept is None:
            return None
        asked, answer = kept
        if isinstance(answer, Failure):
            return answer
        return answer[:k] if asked >= k or len(answer) < asked else None

    def _asked(self, texts: Sequence[str], k: int) -> list[list[Hit] | Failure]:
        """Each text's answer for ``k``, asking only those no kept answer holds; the first request alone."""
        answers: dict[str, list[Hit] | Failure] = {}
        wanted = []
        for text in dict.fromkeys(texts):
            kept = self._kept(text, k)
            if kept is not None:
                answers[text] = kept
            else:
                wanted.append(text)
        if wanted and not self._answered:
            first = self.ask(wanted[:1], k)[0]
            if isinstance(first, Failure) and first.fatal:
                raise RanklensError(f"{self.name}: the first request failed: {first.describe()}")
            self._keep(wanted[0], k, first)
            answers[wanted[0]] = first
            wanted = wanted[1:]
        if wanted:
            for text, answer in zip(wanted, self.ask(wanted, k), strict=True):
                self._keep(text, k, answer)
                answers[text] = answer
        return [answers[text] for text in texts]

    def _keep(self, text: str, k: int, answer: list[Hit] | Failure) -> None:
        with self._lock:
            if isinstance(answer, Failure):
                self._failed[text] = answer
            else:
                self._answered = True
                self._failed.pop(text, None)
            self._answers[text] = (k, answer)
            self._answers.move_to_end(text)
            while len(self._answers) > KEPT_ANSWERS:
                self._answers.popitem(last=False)

    def _positions(self, text: str, hits: list[Hit], scorer: Scorer, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(chunk positions, scores) of the hits the corpus places, in the retriever's order; the others counted."""
        ids, scores, unplaced = self._placed(hits, scorer, k)
        if unplaced:
            with self._lock:  # the deepest ask's count: a search of the top 5 after an evaluation finds fewer
                self._unplaced[text] = max(self._unplaced.get(text, 0), len(unplaced))
        return ids, scores

    def unplaced(self, query: QueryTerms, k: int, scorer: Scorer) -> list[Unplaced]:
        """The hits of the question's top ``k`` the corpus cannot place, each at its rank (none once failed)."""
        answer = self._kept(query.text, k)
        if answer is None or isinstance(answer, Failure):
            return []
        return self._placed(answer, scorer, k)[2]

    def _placed(self, hits: list[Hit], scorer: Scorer, k: int) -> tuple[np.ndarray, np.ndarray, list[Unplaced]]:
        """(chunk positions, scores) of the first ``k`` hits the corpus places, in the retriever's order, and the
        hits it cannot place with their ranks. A chunk placed twice keeps its first (best) hit, and a hit the corpus
        cannot place repeating an earlier one's id is that one: each is ranked once. Ranks are by descending
        score: a hit not placed comes after the chunks of its score and the hits not placed before it."""
        _, placement = self._placements[id(scorer)]
        ids: list[int] = []
        scores: list[float] = []
        seen: set[int] = set()
        not_placed: dict[str | int, Hit] = {}
        for number, hit in enumerate(hits[:k]):
            position = placement.place(hit.id, hit.text)
            if position is None:
                not_placed.setdefault(hit.id if hit.id is not None else number, hit)
            elif position not in seen:
                seen.add(position)
                ids.append(position)
                scores.append(hit.score)
        placed = np.asarray(scores, dtype=np.float64)
        ascending = np.sort(placed)
        unplaced = []
        for above, hit in enumerate(sorted(not_placed.values(), key=lambda h: -h.score)):
            chunks_above = placed.size - int(np.searchsorted(ascending, hit.score, side="left"))
            unplaced.append(Unplaced(above + chunks_above + 1, hit.id, hit.score, hit.text))
        return np.asarray(ids, dtype=np.int64), placed, unplaced


def _nothing() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0)
