"""Chunk size x overlap: re-chunk the corpus at each setting, evaluate, and name the winner.

Judgments of a corpus' own passages do not survive re-chunking, so the
sweep needs questions that carry an "answer" span, chunks judged in ranklens
(carried by their text) or judgments per document: a chunk counts as relevant
when it holds the whole span. A
window that cuts a question's span in every chunk leaves it without a
relevant chunk; ``SweepCell.whole`` counts the questions that keep theirs. A question judged
per document without a span keeps its document's chunks whatever the window: ``whole`` does
not count it, and a corpus without spans (``ChunkSweep.spans`` 0) has no such column.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ranklens.engine.chunking.chunkers import CHUNKER_TABLE
from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.experiments.common import Checkpoint, no_checkpoint, ranking, scorer_label, stage
from ranklens.engine.judging.counted import Carried
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.settings import SettingError

if TYPE_CHECKING:  # numpy comes with these; importing this module must stay cheap
    from ranklens.engine.measuring.metrics import Evaluation
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup

SWEEP_SIZES = CHUNKER_TABLE["words"].sweep


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

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.window.size, "overlap": self.window.overlap, "chunker": self.window.chunker,
                "chunks": self.chunks, "whole": self.whole, "metrics": self.evaluation.metrics,
                "notes": list(self.notes),
                "by_text": {"judgments": self.carried.moved, "carried": self.carried.carried}}


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
                                                   "chunker": best.chunker}}


def judged_questions(workbench: Workbench) -> list:
    """The questions a re-chunked corpus can still be judged on: an answer span, a chunk judged relevant with its
    text (engine/judging/positions.py carries it), or judged per document."""
    corpus = workbench.corpus
    return [q for q in corpus.answerable
            if q.answer or any(i in corpus.documents_by_id or i in q.spans for i in q.relevant)]


def chunk_sweep(workbench: Workbench, setup: Setup, windows: Sequence[Window] | None = None,
                progress: Progress = no_progress, checkpoint: Checkpoint = no_checkpoint) -> ChunkSweep:
    """Re-chunk the corpus at each window (default: ``sweep_windows()`` with the setup's chunker) and evaluate.

    The setup's scorer and analysis stay; only the chunking moves. When
    ``progress`` raises ``Cancelled``, the windows finished so far come back
    with ``complete`` False. ``checkpoint`` runs between windows.
    """
    corpus = workbench.corpus
    if not judged_questions(workbench):
        raise RanklensError(f"{corpus.name}: the sweep needs questions with an \"answer\" span, chunks judged in "
                            "ranklens (their text carries) or judgments per document: judgments of the corpus' own "
                            "passages do not survive re-chunking")
    windows = tuple(windows) if windows is not None else sweep_windows(chunker=setup.chunker)
    spans = {q.id for q in judged_questions(workbench) if q.answer}
    cells: list[SweepCell] = []
    label = scorer_label(setup)
    complete = True
    try:
        for i, window in enumerate(windows):
            checkpoint()
            report = stage(progress, i, len(windows), window.label)
            report(0, 1, "chunking")
            retriever = workbench.retriever(setup.replace(**window.changes()), report)
            evaluation = retriever.evaluate(report).evaluation
            whole = sum(1 for q in corpus.answerable if q.id in spans and retriever.relevant(q))
            cells.append(SweepCell(window, evaluation, len(retriever.chunks), whole, tuple(retriever.notes),
                                   retriever.carried()))
            label = scorer_label(retriever.setup)
    except Cancelled:
        complete = False
    winner = max(range(len(cells)), key=lambda i: ranking(cells[i].evaluation)) if cells else None
    return ChunkSweep(corpus.name, label, windows, tuple(cells), len(corpus.answerable), winner, complete,
                      len(spans))
