"""Eval's metrics over score vectors (the table of ``engine/measuring/metric_table.py``) and threshold analysis.

Nothing here retrieves: callers hand in score vectors and the relevant items.
Every ranking follows one convention, the one the seeds use:
``np.argsort(-scores, kind="stable")``, i.e. descending score, ties broken by
the lower index. It is computed without a full sort of N. The chunks a question
does not retrieve (at or below its scores' ``floor``: ``engine/topk.py``'s ranking
rule) are not in it: a relevant chunk among them counts as not found, as in a run.

A score vector may be a ``QueryScores`` holding only the chunks a query
touched: a question's metrics then cost what its postings cost, and
``evaluate`` consumes its rows one at a time, so a retriever can stream
questions through it without keeping any vector of size N per question.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple
from collections.abc import Iterable, Sequence

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.measures.covered_text import RelevantText
from ranklens.engine.measuring.metric_table import Ranked, depth, eval_metrics, no_text, per_question_metrics
from ranklens.engine.topk import PendingScores, QueryScores, around_taken, rank_around

# Bounds the (rows x N) temporaries of gold_ranks to ~4M cells.
_BLOCK_CELLS = 1 << 22


def gold_rank(scores: np.ndarray | QueryScores | PendingScores, relevant_idx: np.ndarray) -> int | None:
    """1-based rank of the best-ranked relevant item, None without relevant items.

    Under the stable descending order, item g sits at
    ``count(s > s[g]) + count(s[:g] == s[g]) + 1``; the best-ranked relevant
    item is the one with the highest score, the lowest index among equals.
    """
    if isinstance(scores, PendingScores):
        return scores.gold_rank(relevant_idx)
    return QueryScores.of(scores).gold_rank(relevant_idx)


def gold_ranks(scores: np.ndarray, relevant: Sequence[np.ndarray]) -> np.ndarray:
    """``gold_rank`` for every row of a (questions x N) score matrix.

    Returns an int array, 0 where a question has no relevant item. Rows are
    processed in blocks so temporaries stay near a few million cells whatever
    the number of questions.
    """
    s = np.asarray(scores)
    nq, n = s.shape
    if len(relevant) != nq:
        raise ValueError(f"{nq} score rows but {len(relevant)} relevant lists")
    lens = np.fromiter((len(r) for r in relevant), dtype=np.intp, count=nq)
    ranks = np.zeros(nq, dtype=np.int64)
    if lens.sum() == 0:
        return ranks
    rows = np.repeat(np.arange(nq), lens)
    cols = np.concatenate([np.asarray(r, dtype=np.intp) for r in relevant])
    vals = s[rows, cols]
    # First of each row after sorting by (row, -score, index) = its best relevant item.
    order = np.lexsort((cols, -vals, rows))
    first = order[np.r_[True, rows[order][1:] != rows[order][:-1]]]
    qs, gs = rows[first], cols[first]
    step = max(1, _BLOCK_CELLS // max(n, 1))
    positions = np.arange(n)
    for i in range(0, len(qs), step):
        q, g = qs[i:i + step], gs[i:i + step]
        block = s[q]
        sg = block[np.arange(len(q)), g][:, None]
        above = np.count_nonzero(block > sg, axis=1)
        before = np.count_nonzero((block == sg) & (positions < g[:, None]), axis=1)
        ranks[q] = above + before + 1
    return ranks


@dataclass(frozen=True, slots=True)
class QuestionScores:
    """What a retriever hands to ``evaluate`` for one question.

    ``scores`` covers all N chunks (an array, a ``QueryScores`` of the
    touched chunks, or ``PendingScores``; their ``floor`` says which chunks the
    question retrieves, an array's every one); ``relevant`` holds the indices of the
    relevant chunks and ``grades`` their graded relevance (all 1 when omitted).
    Entries with grade <= 0 are judged non-relevant, as in trec_eval.
    """

    id: str
    text: str
    scores: np.ndarray | QueryScores | PendingScores
    relevant: np.ndarray
    grades: np.ndarray | None = None
    relevant_text: RelevantText | None = None  # for the span measures (none: they are 0)
    # ranks (1-based, ascending) held by results that are no chunk (a user's own retriever's hits the corpus
    # cannot place): never relevant, and the chunks below them keep their ranks (``engine/topk.py``)
    taken: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class QuestionResult:
    id: str
    text: str
    rank: int | None  # full rank of the best relevant item, never cut at k; None: nothing relevant retrieved
    values: dict[str, float]  # the question's value of each metric of the table, by key


def relevant_grades(q: QuestionScores) -> tuple[np.ndarray, np.ndarray]:
    """The question's relevant chunks (ascending, each once with its highest grade) and their grades above 0."""
    rel = np.asarray(q.relevant, dtype=np.intp).ravel()
    grades = (np.ones(rel.size) if q.grades is None
              else np.asarray(q.grades, dtype=float).ravel())
    if grades.size != rel.size:
        raise ValueError(f"question {q.id}: {rel.size} relevant items but {grades.size} grades")
    keep = grades > 0
    rel, grades = rel[keep], grades[keep]
    # A chunk listed twice counts once, with its highest grade.
    order = np.lexsort((-grades, rel))
    rel, grades = rel[order], grades[order]
    first = np.r_[True, rel[1:] != rel[:-1]] if rel.size else np.zeros(0, dtype=bool)
    return rel[first], grades[first]


def gains_at(ranked: np.ndarray, rel: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """The gain at each position of ``ranked`` (chunk indices, any shape): its grade when it is one of
    ``rel`` (ascending, with ``grades``, as ``relevant_grades`` returns them), else 0."""
    pos = np.searchsorted(rel, ranked)
    pos[pos == rel.size] = 0
    return np.where(rel[pos] == ranked, grades[pos], 0.0)


def score_question(q: QuestionScores) -> QuestionResult:
    """The question's full rank and its value of every metric of the table (0 with nothing relevant; with
    relevant text but no relevant chunk, an answer span every chunk cuts, the metrics of text alone)."""
    rel, grades = relevant_grades(q)
    text = q.relevant_text if q.relevant_text is not None and q.relevant_text.spans else None
    if rel.size == 0 and text is None:
        return QuestionResult(q.id, q.text, None, {m.key: 0.0 for m in eval_metrics()})
    s = q.scores if isinstance(q.scores, (QueryScores, PendingScores)) else QueryScores.of(np.asarray(q.scores))
    if rel.size == 0 and text is not None:  # relevant text, no relevant chunk: only the text's metrics have a value
        top = around_taken(s.retrieved_top(depth())[0], np.asarray(q.taken, dtype=np.int64), depth())
        ranked = Ranked(None, np.zeros(top.size), grades, text.covered(top.tolist()))
        return QuestionResult(q.id, q.text, None, {m.key: m.value(ranked) if m.reads_text else 0.0
                                                   for m in eval_metrics()})
    if isinstance(s, PendingScores) and s.top_first:
        # an engine's top 10 first: most ranks are read off it, without the deep query scoring in full takes
        top = s.retrieved_top(depth())[0]
        rank = s.retrieved_rank(rel)
    else:
        rank = s.retrieved_rank(rel)  # first: a pending vector is then scored once, for the rank and the top alike
        top = s.retrieved_top(depth())[0]
    if q.taken:
        taken = np.asarray(q.taken, dtype=np.int64)
        top = around_taken(top, taken, depth())
        rank = rank_around(rank, taken) if rank is not None else None
    covered = text.covered(top.tolist()) if text is not None else no_text
    ranked = Ranked(rank, gains_at(top, rel, grades), grades, covered)
    return QuestionResult(q.id, q.text, rank, {m.key: m.value(ranked) for m in eval_metrics()})


@dataclass(frozen=True)
class Evaluation:
    """Aggregate metrics over answerable questions plus one row per question.

    ``k`` is the retrieval depth the user asked for: in ``to_dict`` a rank
    beyond it is reported as null (the aggregate metrics never cut at ``k``).
    """

    metrics: dict[str, float]
    per_question: list[QuestionResult]
    k: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The "questions", "metrics" and "per_question" parts of the eval JSON."""
        listed = [m.key for m in per_question_metrics()]
        return {
            "questions": len(self.per_question),
            "metrics": dict(self.metrics),
            "per_question": [
                {
                    "id": r.id,
                    "text": r.text,
                    "rank": r.rank if r.rank is not None and (self.k is None or r.rank <= self.k) else None,
                    "full_rank": r.rank,
                    **{key: r.values[key] for key in listed},
                }
                for r in self.per_question
            ],
        }


def evaluate(rows: Iterable[QuestionScores], k: int | None = None) -> Evaluation:
    """Every metric of the table averaged over all questions (hit@1, hit@3, MRR, nDCG@10, recall@10, …).

    MRR uses the full rank of the best relevant item; a question whose
    relevant chunks are all missing (e.g. an answer span cut by chunking) or
    not retrieved counts as a miss everywhere. ``rows`` is consumed one row at a time and
    only each row's result is kept: pass a generator to stream questions.
    """
    results = [score_question(q) for q in rows]
    if not results:
        raise RanklensError("no answerable questions to evaluate")
    metrics = {m.key: float(np.mean([r.values[m.key] for r in results])) for m in eval_metrics()}
    return Evaluation(metrics, results, k)


class ScoredQuestion(NamedTuple):
    id: str
    text: str
    top_score: float


@dataclass(frozen=True)
class ThresholdReport:
    """How well "answer only when the top score is >= t" separates the questions.

    ``best_threshold`` is the smallest candidate t with the highest accuracy;
    candidates are the lowest score (accept all), the midpoints between
    consecutive distinct scores, and the float just above the highest score
    (reject all). None when there are no questions at all.
    """

    answerable: list[ScoredQuestion]
    unanswerable: list[ScoredQuestion]
    best_threshold: float | None
    best_accuracy: float | None

    @property
    def answerable_summary(self) -> dict[str, float | None]:
        a = np.array([q.top_score for q in self.answerable], dtype=float)
        if a.size == 0:
            return {"min": None, "median": None, "max": None}
        return {"min": float(a.min()), "median": float(np.median(a)), "max": float(a.max())}

    def to_dict(self) -> dict[str, Any]:
        """The threshold JSON shape of the command line (docs/cli.md)."""
        return {
            "answerable": self.answerable_summary,
            "unanswerable": [
                {"id": q.id, "text": q.text, "top_score": q.top_score} for q in self.unanswerable
            ],
            "best_threshold": self.best_threshold,
            "best_accuracy": self.best_accuracy,
        }


def threshold_analysis(
    answerable: Iterable[tuple[str, str, float]],
    unanswerable: Iterable[tuple[str, str, float]],
) -> ThresholdReport:
    """Find the threshold on the top score that best tells answerable from unanswerable."""
    ans = [ScoredQuestion(i, t, float(s)) for i, t, s in answerable]
    una = [ScoredQuestion(i, t, float(s)) for i, t, s in unanswerable]
    a = np.sort(np.array([q.top_score for q in ans], dtype=float))
    u = np.sort(np.array([q.top_score for q in una], dtype=float))
    distinct = np.unique(np.concatenate([a, u]))
    if distinct.size == 0:
        return ThresholdReport(ans, una, None, None)
    candidates = np.concatenate([
        distinct[:1],
        (distinct[:-1] + distinct[1:]) / 2,
        [np.nextafter(distinct[-1], np.inf)],
    ])
    accepted = a.size - np.searchsorted(a, candidates, side="left")  # answerable with score >= t
    rejected = np.searchsorted(u, candidates, side="left")  # unanswerable with score < t
    correct = accepted + rejected
    best = int(np.argmax(correct))  # first maximum = smallest t, candidates ascend
    return ThresholdReport(ans, una, float(candidates[best]), float(correct[best] / (a.size + u.size)))
