"""Reranking: a cross-encoder rereads the first stage's top results and reorders them.

The lesson's two-stage retrieval (seed 000): any scorer ranks every chunk; a
cross-encoder (``cross-encoder/mmarco-mMiniLMv2-L12-H384-v1`` there) reads the
question and each of the top ``rerank_top`` chunks together and scores the pair;
those chunks are reordered by that score (ties keep the first-stage order); the
chunks below them keep their first-stage order. A search result shows both ranks
and both scores; an evaluation reports the first stage and the reranked ranking
side by side, over the same questions (the first stage's own evaluation, then its top
results scored again for the reranker: two passes, the first stage's numbers exactly
those of ``ranklens eval`` without ``--rerank``). ``evaluate_reranking`` is the
second pass alone, for a caller that measured the first stage already (the TUI's
Metrics tab, which measures every scorer).

Built on the retriever's public API (``search``, ``score_batches``, ``relevant``);
the model is loaded by ``engine.models`` (the neural extra).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterator

import numpy as np

from ranklens.engine.corpus import Chunk
from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.metrics import Evaluation, QuestionScores, evaluate
from ranklens.engine.neural.models import Reranker, load_reranker
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.retriever import EvalReport, Retriever, SearchResult
from ranklens.engine.corpus.source import chunk_source
from ranklens.engine.topk import QueryScores


@dataclass(frozen=True)
class RerankedHit:
    rank: int  # after reranking, 1-based
    first_rank: int  # in the first stage
    index: int  # position of the chunk in ``Retriever.chunks``
    chunk: Chunk
    first_score: float
    rerank_score: float | None  # None below the reranked top


@dataclass(frozen=True)
class RerankedSearch:
    first: SearchResult  # the first stage, as ``Retriever.search`` returns it
    reranker: str
    top: int  # first-stage results reread
    hits: list[RerankedHit]
    rerank_s: float

    def to_dict(self, corpus: Any) -> dict[str, Any]:
        """The search JSON (``score`` is the rank-deciding score: the reranker's for reranked rows)
        plus each row's ``first_rank``, ``first_score`` and ``rerank_score``."""
        data = self.first.to_dict(corpus)
        data["reranker"] = self.reranker
        data["rerank_top"] = self.top
        data["rerank_s"] = self.rerank_s
        data["results"] = [
            {"rank": h.rank, "id": h.chunk.id,
             "score": h.rerank_score if h.rerank_score is not None else h.first_score,
             "first_rank": h.first_rank, "first_score": h.first_score, "rerank_score": h.rerank_score,
             "document": corpus.document(h.chunk.doc_id).title or h.chunk.doc_id, "doc_id": h.chunk.doc_id,
             "text": h.chunk.text, "source": chunk_source(corpus.document(h.chunk.doc_id), h.chunk)}
            for h in self.hits
        ]
        return data


def reranker_for(retriever: Retriever, name: str | None = None) -> Reranker:
    """The setup's reranker (or ``name``); a ``RanklensError`` when there is none."""
    name = name or retriever.setup.rerank
    if not name:
        raise RanklensError("no reranker: give a cross-encoder's folder or cached name")
    return load_reranker(name)


def rerank_order(scores: np.ndarray) -> np.ndarray:
    """Positions of ``scores`` from best to worst; equal scores keep their first-stage order."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def rerank_search(retriever: Retriever, text: str, k: int | None = None, top: int | None = None,
                  reranker: Reranker | None = None) -> RerankedSearch:
    """The first stage's top ``max(k, top)`` for ``text``, its top ``top`` reread by the reranker, cut at k."""
    k = retriever.setup.k if k is None else k
    top = retriever.setup.rerank_top if top is None else top
    if top < 1:
        raise RanklensError(f"rerank_top must be at least 1 (got {top})")
    reranker = reranker or reranker_for(retriever)
    first = retriever.search(text, max(k, top))
    head = first.hits[:top]
    started = time.perf_counter()
    scores = reranker.scores(text, [h.chunk.text for h in head])
    rerank_s = time.perf_counter() - started
    order = [*rerank_order(scores).tolist(), *range(len(head), len(first.hits))]
    hits = [RerankedHit(rank + 1, first.hits[i].rank, first.hits[i].index, first.hits[i].chunk,
                        first.hits[i].score, float(scores[i]) if i < len(head) else None)
            for rank, i in enumerate(order[:k])]
    cut = SearchResult(first.query, first.scorer, first.hits[:k], first.terms, first.unknown, first.note)
    return RerankedSearch(cut, reranker.name, top, hits, rerank_s)


def rerank_prompt(retriever: Retriever, text: str, k: int | None = None, reranker: Reranker | None = None) -> str:
    """The prompt a model would get, its context the reranked top k (``Retriever.prompt`` after reranking)."""
    hits = rerank_search(retriever, text, k, reranker=reranker).hits
    return retriever.prompt_for(text, [hit.chunk for hit in hits])


@dataclass(frozen=True)
class RerankEval:
    """The first stage and the reranked ranking on the same questions."""

    first: EvalReport
    reranked: Evaluation
    reranker: str
    top: int
    timing: dict[str, float]  # rerank_s (all questions), pairs_per_s

    def to_dict(self) -> dict[str, Any]:
        """The eval JSON of the first stage, plus ``rerank``: the reranked metrics and per-question ranks."""
        data = self.first.to_dict()
        data["rerank"] = Reranking(self.reranked, self.reranker, self.top, self.timing).to_dict()
        return data


def evaluate_reranked(retriever: Retriever, reranker: Reranker | None = None, top: int | None = None,
                      progress: Progress = no_progress) -> RerankEval:
    """Metrics of the first stage and of its top ``top`` reranked, over the answerable questions.

    The first-stage numbers are ``Retriever.evaluate``'s (same questions, same
    rules); the reranked ranking moves only the top ``top`` chunks, so ranks
    below it, and recall beyond it, are the first stage's.
    """
    reranker = reranker or reranker_for(retriever)
    if not retriever.corpus.answerable:
        raise RanklensError(f"{retriever.corpus.name}: no questions with an answer to evaluate")
    first = retriever.evaluate(progress=progress)
    second = evaluate_reranking(retriever, reranker, top, progress)
    return RerankEval(first, second.evaluation, second.reranker, second.top, second.timing)


@dataclass(frozen=True)
class Reranking:
    """The reranked ranking alone, for a caller that has the first stage's numbers already."""

    evaluation: Evaluation
    reranker: str
    top: int
    timing: dict[str, float]  # rerank_s (all questions), pairs_per_s

    def to_dict(self) -> dict[str, Any]:
        """The eval JSON's ``rerank`` part: the reranker, its top, the metrics and per-question ranks, timing."""
        return {"reranker": self.reranker, "rerank_top": self.top, **self.evaluation.to_dict(), "timing": self.timing}


def evaluate_reranking(retriever: Retriever, reranker: Reranker | None = None, top: int | None = None,
                       progress: Progress = no_progress) -> Reranking:
    """Metrics of the first stage's top ``top`` reranked (the second pass of ``evaluate_reranked``).

    ``progress`` hears of every question reranked (a cross-encoder takes a
    while over each one's top), so a cancellation stops it after the current
    question.
    """
    top = retriever.setup.rerank_top if top is None else top
    reranker = reranker or reranker_for(retriever)
    questions = retriever.corpus.answerable
    if not questions:
        raise RanklensError(f"{retriever.corpus.name}: no questions with an answer to evaluate")
    texts = [q.text for q in questions]
    spent = [0.0, 0]

    def rows() -> Iterator[QuestionScores]:
        for i, scores in retriever.score_batches(texts, progress, "reranking"):
            dense = np.array(scores, dtype=np.float64)  # one question's vector at a time
            head = scores.retrieved_top(min(top, dense.size))[0]  # as search: what the question retrieves
            started = time.perf_counter()
            pair_scores = reranker.scores(texts[i], [retriever.chunks[j].text for j in head])
            spent[0] += time.perf_counter() - started
            spent[1] += len(head)
            progress(i + 1, len(texts), f"reranking ({spent[1] / max(spent[0], 1e-9):,.0f} pairs/s)")
            if head.size:
                # the reread chunks go above every other, in the reranker's order
                ceiling = float(dense.max()) + 1.0
                order = head[rerank_order(pair_scores)]
                dense[order] = ceiling + np.arange(order.size, 0, -1, dtype=np.float64)
            relevant = retriever.relevant(questions[i])
            yield QuestionScores(questions[i].id, questions[i].text, QueryScores.of(dense, scores.floor),
                                 np.fromiter(relevant.keys(), dtype=np.int64, count=len(relevant)),
                                 np.fromiter(relevant.values(), dtype=np.float64, count=len(relevant)),
                                 retriever.relevant_text(questions[i]))

    progress(0, len(texts), "reranking")
    reranked = evaluate(rows(), retriever.setup.k)
    timing = {"rerank_s": spent[0], "pairs_per_s": spent[1] / spent[0] if spent[0] > 0 else float("inf")}
    return Reranking(reranked, reranker.name, top, timing)
