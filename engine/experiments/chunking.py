"""Chunker x size x overlap: re-chunk the corpus at each setting, evaluate, test against the setup's own
chunking, and name the winner.

Judgments of a corpus' own passages do not survive re-chunking, so the
sweep needs questions that carry an "answer" span, chunks judged in ranklens
(carried by their text) or judgments per document: a chunk counts as relevant
when it holds the whole span. A
window that cuts a question's span in every chunk leaves it without a
relevant chunk; ``SweepCell.whole`` counts the questions that keep theirs. A question judged
per document without a span keeps its document's chunks whatever the window: ``whole`` does
not count it, and a corpus without spans (``ChunkSweep.spans`` 0) has no such column.

Each cell is also tested against the setup's own chunking (``ChunkSweep.baseline``): a paired t-test of the
questions' nDCG@10, Holm-corrected over the cells measured (engine/comparing/significance.py), since a grid of many
chunkings will find one that looks better by chance. The winner is the best nDCG@10 (``lab_key``): the
measure that reads every relevant chunk's rank and grade, where the experiments' "better" reads the first
relevant one. Each cell also counts its chunks longer than a dense model's window (engine/chunking/model_window.py),
or says it could not (``ChunkSweep.window_tokens`` 0): a count is never guessed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ranklens.engine.chunking.chunkers import CHUNKER_TABLE
from ranklens.engine.chunking.chunkers import default_window
from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.experiments.common import Checkpoint, no_checkpoint, ranking, scorer_label, stage
from ranklens.engine.measuring.metric_table import NDCG
from ranklens.engine.measuring.metric_table import better_rule
from ranklens.engine.measuring.metric_table import metric
from ranklens.engine.neural.model_names import E5_SMALL
from ranklens.engine.judging.counted import Carried
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.settings import SettingError

if TYPE_CHECKING:  # numpy comes with these; importing this module must stay cheap
    from ranklens.engine.measuring.metrics import Evaluation
    from ranklens.engine.retriever import Retriever, Workbench
    from ranklens.engine.setup import Setup


@dataclass(frozen=True)
class Window:
    """A chunking: chunk size and overlap in the chunker's units (engine/chunking/chunkers.py), and the chunker."""

    size: int
    overlap: int
    chunker: str

    @property
    def label(self) -> str:
        return CHUNKER_TABLE[self.chunker].window_label(self.size, self.overlap)

    def changes(self) -> dict[str, Any]:
        """The setup fields this window sets."""
        return {"size": self.size, "overlap": self.overlap, "chunker": self.chunker}


def sweep_overlaps(size: int, chunker: str) -> tuple[int, int]:
    """The default overlaps of a size: none, and a quarter of the window (one sentence for sentences)."""
    return (0, 1) if chunker == "sentences" else (0, size // 4)


def sweep_windows(sizes: Sequence[int] | None = None, overlaps: Sequence[int] | None = None,
                  chunker: str = "words") -> tuple[Window, ...]:
    """Size-major windows: each size (default: the chunker's sweep sizes) with each overlap (default:
    ``sweep_overlaps`` of the size)."""
    sizes = CHUNKER_TABLE[chunker].sweep if sizes is None else sizes
    if not sizes:
        raise SettingError("size", "the sweep needs at least one size")
    windows = []
    for size in sizes:
        if size < 1:
            raise SettingError("size", f"size {size} must be at least 1")
        for overlap in sweep_overlaps(size, chunker) if overlaps is None else overlaps:
            if overlap < 0:
                raise SettingError("overlap", f"overlap {overlap} must be at least 0")
            if overlap >= size:
                raise SettingError("overlap", f"overlap {overlap} must be smaller than size {size}")
            windows.append(Window(size, overlap, chunker))
    return tuple(windows)


@dataclass(frozen=True)
class SweepCell:
    window: Window
    evaluation: Evaluation
    chunks: int  # how many chunks the corpus makes at this window
    whole: int  # questions with an answer span that lies whole in some chunk (have a relevant chunk)
    notes: tuple[str, ...] = ()  # the retriever's at this window (chunks longer than a dense model's window)
    carried: Carried = Carried()  # judgments counted here by their chunk's text (engine/judging/counted.py)
    over_window: int | None = None  # chunks longer than ``ChunkSweep.window_model``'s window; None: not counted
    p_value: float = math.nan  # paired t-test of the questions' nDCG@10 against the baseline's; NaN: no test
    holm: float = math.nan  # ``p_value`` Holm-adjusted over the sweep's cells

    @property
    def over_share(self) -> float | None:
        """The share of the chunks longer than the model's window; None: not counted."""
        return None if self.over_window is None else self.over_window / self.chunks if self.chunks else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.window.size, "overlap": self.window.overlap, "chunker": self.window.chunker,
                "chunks": self.chunks, "whole": self.whole, "metrics": self.evaluation.metrics,
                "notes": list(self.notes),
                "by_text": {"judgments": self.carried.moved, "carried": self.carried.carried},
                "over_window": self.over_window, "over_window_share": self.over_share,
                "p_value": _number(self.p_value), "p_holm": _number(self.holm)}


def _number(value: float) -> float | None:
    """JSON has no NaN: no test is null."""
    return None if value != value else value


@dataclass(frozen=True)
class Baseline:
    """The setup's own chunking, measured: what every cell is tested against."""

    window: Window | None  # None: the corpus' own passages
    chunks: int
    evaluation: Evaluation

    @property
    def label(self) -> str:
        return "the corpus' passages" if self.window is None else self.window.label

    def to_dict(self) -> dict[str, Any]:
        where = None if self.window is None else self.window.changes()
        return {"chunking": where, "label": self.label, "chunks": self.chunks, "metrics": self.evaluation.metrics}


@dataclass(frozen=True)
class ChunkSweep:
    corpus: str
    scorer: str  # label of the scorer evaluated
    windows: tuple[Window, ...]  # as asked, size-major
    cells: tuple[SweepCell, ...]  # the windows measured, in that order (fewer when cancelled)
    questions: int  # questions measured in each cell
    winner: int | None  # index into ``cells`` of the best by ``ranking``; None without cells
    complete: bool = True
    spans: int = 0  # questions measured that carry an answer span: what ``SweepCell.whole`` is out of
    baseline: Baseline | None = None  # the setup's own chunking; None when cancelled before it was measured
    window_model: str = ""  # whose window ``SweepCell.over_window`` counts against (``window_model``)
    window_tokens: int = 0  # that window, in the model's tokens; 0: its tokens cannot be counted here

    @property
    def chunkers(self) -> tuple[str, ...]:
        """The chunkers of the grid, in the order asked."""
        return tuple(dict.fromkeys(w.chunker for w in self.windows))

    def grid(self, chunker: str) -> list[list[int]]:
        """The measured cells of one chunker as rows of sizes, each row its overlaps: indices into ``cells``."""
        rows: dict[int, list[int]] = {}
        for i, cell in enumerate(self.cells):
            if cell.window.chunker == chunker:
                rows.setdefault(cell.window.size, []).append(i)
        return list(rows.values())

    @property
    def columns(self) -> int:
        """Overlaps per size: the width of the size x overlap grid."""
        first = self.windows[0]
        return sum(1 for w in self.windows if (w.size, w.chunker) == (first.size, first.chunker))

    def to_dict(self) -> dict[str, Any]:
        best = None if self.winner is None else self.cells[self.winner].window
        return {"corpus": self.corpus, "scorer": self.scorer, "questions": self.questions,
                "answer_spans": self.spans, "complete": self.complete, "cells": [c.to_dict() for c in self.cells],
                "best": None if best is None else {"size": best.size, "overlap": best.overlap,
                                                   "chunker": best.chunker},
                "best_by": lab_rule(), "test": SIGNIFICANCE,
                "baseline": None if self.baseline is None else self.baseline.to_dict(),
                "window": {"model": self.window_model, "tokens": self.window_tokens or None}}


SIGNIFICANCE = f"a paired t-test of the questions' {metric(NDCG).header} against the setup's chunking, Holm-corrected"


def lab_key(evaluation: Evaluation) -> tuple[float, ...]:
    """The winner's rule: nDCG@10, then the experiments' "better" (``ranking``), rounded so float noise ties."""
    return (round(evaluation.metrics[NDCG], 9), *ranking(evaluation))


def lab_rule() -> str:
    """``lab_key`` in words: "nDCG@10, then MRR, then hit@1, then recall@10"."""
    return f"{metric(NDCG).header}, then {better_rule()}"


LAB_CHUNKERS = ("words", "recursive")  # the Chunking tab's grid: a chunker of words and one of characters


def lab_chunkers(chunker: str) -> tuple[str, ...]:
    """The chunkers the Chunking tab's sweep compares: ``chunker`` first, then those of ``LAB_CHUNKERS``."""
    return tuple(dict.fromkeys((chunker, *LAB_CHUNKERS)))


def dense_model(setup: Setup) -> str | None:
    """The dense scorer's model when the setup ranks with it, alone or fused; else None."""
    dense = setup.scorer == "dense" or (setup.scorer == "fusion" and "dense" in setup.fuse)
    return setup.model if dense else None


def window_model(setup: Setup) -> str:
    """The model whose window the chunks should fit: the setup's dense model, else the bundled e5-small, the
    dense model a pipeline over these chunks would embed them with here."""
    return dense_model(setup) or E5_SMALL


def current_window(workbench: Workbench, setup: Setup) -> Window | None:
    """The setup's own chunking as a window; None when it ranks the corpus' own passages."""
    if setup.size is None and len(workbench.corpus.chunks) > 0:
        return None
    size, overlap = (setup.size, setup.overlap) if setup.size else default_window(setup.chunker)
    return Window(size, overlap, setup.chunker)


def judged_questions(workbench: Workbench) -> list:
    """The questions a re-chunked corpus can still be judged on: an answer span, a chunk judged relevant with its
    text (engine/judging/positions.py carries it), or judged per document."""
    corpus = workbench.corpus
    return [q for q in corpus.answerable
            if q.answer or any(i in corpus.documents_by_id or i in q.spans for i in q.relevant)]


def chunk_sweep(workbench: Workbench, setup: Setup, windows: Sequence[Window] | None = None,
                progress: Progress = no_progress, checkpoint: Checkpoint = no_checkpoint) -> ChunkSweep:
    """Re-chunk the corpus at each window (default: ``sweep_windows()`` with the setup's chunker), evaluate, and
    test each against the setup's own chunking, measured first.

    The setup's scorer and analysis stay; only the chunking moves. When
    ``progress`` raises ``Cancelled``, the windows finished so far come back
    with ``complete`` False (their p-values Holm-adjusted among themselves).
    ``checkpoint`` runs between windows.
    """
    from ranklens.engine.chunking.model_window import window_check

    corpus = workbench.corpus
    if not judged_questions(workbench):
        raise RanklensError(f"{corpus.name}: the sweep needs questions with an \"answer\" span, chunks judged in "
                            "ranklens (their text carries) or judgments per document: judgments of the corpus' own "
                            "passages do not survive re-chunking")
    windows = tuple(windows) if windows is not None else sweep_windows(chunker=setup.chunker)
    spans = {q.id for q in judged_questions(workbench) if q.answer}
    model = window_model(setup)
    countable = window_check(model, [])  # None: this model's tokens cannot be counted here

    def measure(retriever: Retriever, report: Progress) -> tuple[Evaluation, int | None]:
        evaluation = retriever.evaluate(report, latency_sample=0).evaluation  # the lab shows no timing
        check = None if countable is None else window_check(model, [c.text for c in retriever.chunks], ends=False)
        return evaluation, None if check is None else len(check.over)

    cells: list[SweepCell] = []
    baseline: Baseline | None = None
    label = scorer_label(setup)
    complete = True
    steps = len(windows) + 1
    try:
        checkpoint()
        report = stage(progress, 0, steps, "the setup's chunking")
        report(0, 1, "chunking")
        current = current_window(workbench, setup)
        base = workbench.retriever(setup, report)
        base_measured = measure(base, report)
        baseline = Baseline(current, len(base.chunks), base_measured[0])
        for i, window in enumerate(windows):
            checkpoint()
            report = stage(progress, i + 1, steps, window.label)
            report(0, 1, "chunking")
            retriever = base if window == current else workbench.retriever(setup.replace(**window.changes()), report)
            evaluation, over = base_measured if window == current else measure(retriever, report)
            whole = sum(1 for q in corpus.answerable if q.id in spans and retriever.relevant(q))
            cells.append(SweepCell(window, evaluation, len(retriever.chunks), whole, tuple(retriever.notes),
                                   retriever.carried(), over, _paired_p(baseline.evaluation, evaluation)))
            label = scorer_label(retriever.setup)
    except Cancelled:
        complete = False
    cells = _holm(cells)
    winner = max(range(len(cells)), key=lambda i: lab_key(cells[i].evaluation)) if cells else None
    return ChunkSweep(corpus.name, label, windows, tuple(cells), len(corpus.answerable), winner, complete,
                      len(spans), baseline, model, 0 if countable is None else countable.window)


def _paired_p(baseline: Evaluation, evaluation: Evaluation) -> float:
    """The paired t-test's p of the questions' nDCG@10, these against the baseline's (the same questions)."""
    from ranklens.engine.comparing.significance import paired_t_test

    return paired_t_test([q.values[NDCG] for q in baseline.per_question],
                         [q.values[NDCG] for q in evaluation.per_question])


def _holm(cells: list[SweepCell]) -> list[SweepCell]:
    from ranklens.engine.comparing.significance import holm

    adjusted = holm([cell.p_value for cell in cells])
    return [replace(cell, holm=p) for cell, p in zip(cells, adjusted, strict=True)]
