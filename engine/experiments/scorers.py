"""Every scorer under one setup: the metrics table, each question's rank per scorer, the threshold.

The scorers share the setup's analysis and chunking settings (each is the
setup with another scorer), so the table answers "which scorer, with these
settings?". The threshold analysis is the setup's own scorer's: can its top
score tell the questions the corpus answers from those it does not?
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.experiments.common import Checkpoint, no_checkpoint, scorer_label, stage
from ranklens.engine.judging.counted import Carried
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.scoring.registry import scorer_names, spec

if TYPE_CHECKING:  # numpy comes with these; importing this module must stay cheap
    from ranklens.engine.measuring.metrics import Evaluation, ThresholdReport
    from ranklens.engine.retriever import Retriever, Workbench
    from ranklens.engine.setup import Setup


@dataclass(frozen=True)
class ScorerResult:
    scorer: str  # a scorer's registered name
    label: str  # with the parameters that distinguish it: "BM25 lucene", "LSA 18 dims"
    evaluation: Evaluation
    notes: tuple[str, ...]  # adjustments the setup got (LSA dims clamped, ...)

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "label": self.label, "metrics": self.evaluation.metrics,
                "notes": list(self.notes)}


@dataclass(frozen=True)
class QuestionRow:
    id: str
    text: str
    gold: tuple[str, ...]  # ids of the chunks that count as its answer; empty when every chunk cuts it
    ranks: tuple[int | None, ...]  # one per finished scorer, in their order; None: no relevant chunk

    def to_dict(self, scorers: Sequence[str]) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "gold": list(self.gold), "ranks": dict(zip(scorers, self.ranks))}


@dataclass(frozen=True)
class ScorerComparison:
    corpus: str
    current: str  # the setup's scorer, whose threshold is analysed
    scorers: tuple[ScorerResult, ...]  # empty when the corpus has no question with an answer
    questions: tuple[QuestionRow, ...]  # the first ``question_rows`` answerable questions
    question_count: int  # answerable questions measured
    threshold: ThresholdReport | None
    threshold_note: str  # why there is no threshold analysis
    complete: bool = True  # False when cancelled: the finished scorers only
    notes: tuple[str, ...] = ()  # what the table leaves out and why (scorers a backend cannot rank)
    # the judgments counted by their text under the setup's chunking (engine/judging/counted.py)
    carried: Carried = Carried()

    def to_dict(self) -> dict[str, Any]:
        names = [r.scorer for r in self.scorers]
        return {
            "corpus": self.corpus, "current": self.current, "questions": self.question_count,
            "complete": self.complete, "scorers": [r.to_dict() for r in self.scorers],
            "per_question": [q.to_dict(names) for q in self.questions],
            "threshold": None if self.threshold is None else self.threshold.to_dict(),
            "threshold_note": self.threshold_note, "notes": list(self.notes),
        }


def compare_scorers(workbench: Workbench, setup: Setup, scorers: Sequence[str] | None = None,
                    progress: Progress = no_progress, checkpoint: Checkpoint = no_checkpoint,
                    question_rows: int | None = None) -> ScorerComparison:
    """Evaluate each scorer (default: every registered one) under ``setup``, then its own scorer's threshold.

    ``question_rows`` caps the per-question rows (None: all). When ``progress``
    raises ``Cancelled``, the scorers finished so far come back with
    ``complete`` False. ``checkpoint`` runs between scorers, once what the
    previous one built is cached.
    """
    corpus = workbench.corpus
    if workbench.backend is not None:
        setup = workbench.backend.ranking(setup, corpus)  # the scorer the collection ranks by is the current one
    names = tuple(scorers if scorers is not None else
                  (n for n in scorer_names() if spec(n).compared or n == setup.scorer))
    names, notes = _rankable(workbench, setup, names)
    answerable = corpus.answerable
    if not answerable:
        return ScorerComparison(corpus.name, setup.scorer, (), (), 0, None, "", notes=notes)
    steps = len(names) + 1
    results: list[ScorerResult] = []
    retrievers: dict[str, Retriever] = {}
    try:
        for i, name in enumerate(names):
            checkpoint()
            report = stage(progress, i, steps, spec(name).label)
            report(0, 1, "indexing")
            retriever = workbench.retriever(setup.replace(scorer=name), report)
            evaluation = retriever.evaluate(report, latency_sample=0).evaluation  # no timing shown
            retrievers[name] = retriever
            results.append(ScorerResult(name, scorer_label(retriever.setup), evaluation, tuple(retriever.notes)))
        checkpoint()
        threshold, note = _threshold(workbench, setup, retrievers, stage(progress, steps - 1, steps, "threshold"))
        complete = True
    except Cancelled:
        threshold, note, complete = None, "cancelled", False
    questions = _question_rows(answerable[:question_rows], results, retrievers)
    carried = next(iter(retrievers.values())).carried() if retrievers else Carried()  # one chunking for all
    return ScorerComparison(corpus.name, setup.scorer, tuple(results), questions, len(answerable),
                            threshold, note, complete, notes, carried)


def _rankable(workbench: Workbench, setup: Setup, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The scorers among ``names`` the workbench's backend ranks by, and a note naming the others (all of
    them, and no note, without a backend): a collection holds the vectors of some scorers only."""
    backend = workbench.backend
    if backend is None:
        return names, ()
    kept = []
    for name in names:
        try:
            if backend.ranking(setup.replace(scorer=name), workbench.corpus).scorer == name:
                kept.append(name)
        except RanklensError:  # its vectors are not in the collection (dense, fusion without --dense)
            pass
    left = [spec(name).label for name in names if name not in kept]
    if not left:
        return tuple(kept), ()
    return tuple(kept), (f"through {backend.label}: {', '.join(left)} left out (the collection cannot rank by "
                         f"{'it' if len(left) == 1 else 'them'})",)


def _threshold(workbench: Workbench, setup: Setup, retrievers: dict[str, Retriever],
               progress: Progress) -> tuple[ThresholdReport | None, str]:
    retriever = retrievers.get(setup.scorer) or workbench.retriever(setup, progress)
    try:
        return retriever.threshold(progress), ""
    except RanklensError as error:  # no unanswerable questions: the table still stands
        return None, str(error)


def _question_rows(questions: Sequence, results: Sequence[ScorerResult],
                   retrievers: dict[str, Retriever]) -> tuple[QuestionRow, ...]:
    if not results:
        return ()
    first = retrievers[results[0].scorer]  # the scorers differ, the chunks do not
    chunks = first.chunks
    rows = []
    for n, question in enumerate(questions):
        gold = tuple(chunks[i].id for i in sorted(first.relevant(question)))
        ranks = tuple(r.evaluation.per_question[n].rank for r in results)
        rows.append(QuestionRow(question.id, question.text, gold, ranks))
    return tuple(rows)
