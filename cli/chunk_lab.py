"""sweep chunks' table: the chunking lab's grid, one block per chunker, rows by size and overlap.

Each row is one cell of the engine's ``ChunkSweep``: its chunk count, the share of them over the
model's window (when it can be counted), nDCG@10, recall@10, span IoU@10 and the Holm-adjusted p of
the cell against the setup's own chunking. It fits 80 columns with every optional column shown; the
other metrics are in ``--json``.
"""
from __future__ import annotations

import textwrap

from ranklens.cli.output import say, tell
from ranklens.engine.chunking.chunkers import CHUNKER_TABLE
from ranklens.engine.experiments.chunking import SIGNIFICANCE, ChunkSweep, SweepCell, lab_rule
from ranklens.engine.judging.counted import Judged
from ranklens.engine.measuring.metric_table import NDCG, RECALL, SPAN_K, metric
from ranklens.engine.comparing.p_text import format_p

IOU = f"span_iou@{SPAN_K}"
MEASURED = (NDCG, RECALL, IOU)  # the grid's metrics, in its order
_WIDTHS = (8, 10, 7)


def say_chunk_lab(sweep: ChunkSweep, judged: Judged) -> None:
    """The grid as the terminal shows it, with what its columns mean and the retriever's notes."""
    _explain(f"# {sweep.corpus} · {judged.describe()} · {sweep.scorer}")
    if sweep.baseline is not None:
        base = sweep.baseline
        say(f"against the setup's chunking, {base.label} ({base.chunks:,} chunks): "
            f"{metric(NDCG).header} {metric(NDCG).text(base.evaluation.metrics[NDCG], sweep.questions)}")
    # whole: out of the questions with an answer span; judged per document alone, there is nothing to count
    by_text = any(cell.carried.moved for cell in sweep.cells)
    over = sweep.window_tokens > 0
    header = (f"{'size':>5}{'overlap':>8}{'chunks':>8}" + (f"{'whole':>7}" if sweep.spans else "")
              + (f"{'carried':>8}" if by_text else "") + (f"{f'>{sweep.window_tokens}tok':>8}" if over else "")
              + "".join(f"{metric(key).header:>{width}}" for key, width in zip(MEASURED, _WIDTHS))
              + f"{'p Holm':>9}")
    current = sweep.baseline.window if sweep.baseline is not None else None
    for chunker in sweep.chunkers:
        say(f"{chunker} ({CHUNKER_TABLE[chunker].units})")
        say(f"  {header}")
        for row in sweep.grid(chunker):
            for i in row:
                cell = sweep.cells[i]
                mark = "★ " if i == sweep.winner else "= " if cell.window == current else "  "
                say(mark + _row(sweep, cell, by_text))
    if sweep.winner is not None:
        say(f"★ best by {lab_rule()}: {sweep.cells[sweep.winner].window.label}"
            + (" · = the setup's chunking" if any(c.window == current for c in sweep.cells) else ""))
    _explain(f"p Holm: {SIGNIFICANCE} over the {len(sweep.cells)} cell{'' if len(sweep.cells) == 1 else 's'}")
    if sweep.spans:
        _explain("whole: questions whose answer span some chunk holds whole")
    if by_text:
        _explain("carried: your judgments reaching the window's chunks by their text, of those judged in another "
                 "chunking")
    if over:
        _explain(f">{sweep.window_tokens}tok: the share of chunks longer than {sweep.window_model}'s window")
    else:
        _explain(f"chunks over {sweep.window_model}'s window: not counted (ranklens counts e5-small's tokens with "
                 "the neural extra)")
    _explain(f"{metric(IOU).header}: {metric(IOU).definition}")
    _say_notes(sweep)


def _explain(text: str) -> None:
    """A line under the table, wrapped to the 80 columns the table fits."""
    say(textwrap.fill(text, 80, subsequent_indent="  "))


def _row(sweep: ChunkSweep, cell: SweepCell, by_text: bool) -> str:
    n = sweep.questions
    whole = f"{f'{cell.whole}/{sweep.spans}':>7}" if sweep.spans else ""
    carried = f"{f'{cell.carried.carried}/{cell.carried.moved}':>8}" if by_text else ""
    share = cell.over_share
    over = "" if not sweep.window_tokens else f"{'—' if share is None else f'{share:.1%}':>8}"
    values = "".join(f"{metric(key).text(cell.evaluation.metrics[key], n):>{width}}"
                     for key, width in zip(MEASURED, _WIDTHS))
    return (f"{cell.window.size:>5}{cell.window.overlap:>8}{cell.chunks:>8}{whole}{carried}{over}{values}"
            f"{format_p(cell.holm):>9}")


def _say_notes(sweep: ChunkSweep) -> None:
    """A note of every window once (the model's own); one of some windows with it (chunks longer than the
    model's)."""
    common = set.intersection(*(set(cell.notes) for cell in sweep.cells)) if sweep.cells else set()
    for note in dict.fromkeys(note for cell in sweep.cells for note in cell.notes if note in common):
        tell("note", note)
    for cell in sweep.cells:
        for note in cell.notes:
            if note not in common:
                tell("note", f"{cell.window.label}: {note}")
