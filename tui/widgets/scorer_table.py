"""The Metrics tab's table of scorers: each scorer's metrics, the best of each column highlighted.

The setup's scorer is marked ▸ and, with a reranker, its ranking reranked
sits under it, marked ↳ and labelled by its reranker only: its first stage is the
row above, and the whole label would leave the metrics no room at 80 columns.
Hit rates show as counts only when the tab is narrow or the full table would not
fit; a scorer's label is cut to what the metrics leave.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ranklens.tui.colours import theme_colour
from ranklens.tui.metric_text import metric_columns, metric_text
from ranklens.tui.metrics_work import RERANKED, Reranked
from ranklens.tui.safe import one_line
from ranklens.tui.widgets.lists import KeyTable

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison
    from ranklens.engine.measuring.metrics import Evaluation

LABEL_MIN = 16  # cells a scorer's label keeps however narrow the pane: cut shorter, labels look alike

Row = tuple[str, str, "Evaluation", bool]  # key, label, evaluation, whether the setup ranks by it


def table_rows(result: ScorerComparison, reranked: Reranked | None) -> list[Row]:
    """The table's rows: (key, label, evaluation, whether the setup ranks by it); the reranked ranking
    under its first stage."""
    rows: list[Row] = []
    for r in result.scorers:
        rows.append((r.scorer, r.label, r.evaluation, r.scorer == result.current))
        if r.scorer == result.current and reranked is not None:
            rows.append((RERANKED, reranked.step, reranked.reranking.evaluation, True))
    return rows


class ScorerTable(KeyTable):
    def __init__(self, *, id: str | None = None) -> None:
        # Nothing to do on a scorer row, so the table stays out of the focus chain.
        super().__init__(id=id, cursor_type="none")
        self.can_focus = False
        self._fit: tuple[bool, int] | None = None  # the layout when last drawn (see layout)

    def fits(self, result: ScorerComparison, reranked: Reranked | None, width: int, narrow: bool) -> bool:
        """Whether the table as drawn still fits ``width`` cells (see ``show``)."""
        return self._fit == layout(table_rows(result, reranked), width, narrow)

    def show(self, result: ScorerComparison, reranked: Reranked | None, width: int, narrow: bool) -> None:
        """Draw ``result``'s scorers (and ``reranked`` under the setup's) in ``width`` cells; ``narrow``: the
        tab is too narrow for hit rates as fractions."""
        # The columns come with the first result: their names are the engine's (see metric_columns).
        columns = metric_columns()
        rows = table_rows(result, reranked)
        self.clear(columns=True)
        self._fit = compact, room = layout(rows, width, narrow)
        self.cell_padding = 0 if compact else 1  # compact: one leading space per cell instead
        gap = " " if compact else ""
        self.add_columns("scorer", *(gap + header for header, _ in columns))
        keys = [key for _, key in columns]
        best = {key: max(evaluation.metrics[key] for _, _, evaluation, _ in rows) for key in keys}
        highlight = f"bold {theme_colour(self.app, 'success')}"
        # Under 80 columns hit rates show as counts only, so every metric's column fits.
        for name, label, evaluation, current in rows:
            mark = "▸ " if name == result.current else "↳ " if name == RERANKED else "  "
            cells = [Text(mark + one_line(label, room - len(mark)), style="bold" if current else "")]
            for key in keys:
                is_best = evaluation.metrics[key] >= best[key] - 1e-12
                cells.append(Text(gap + metric_text(evaluation, key, compact), style=highlight if is_best else ""))
            self.add_row(*cells, key=name)


def layout(rows: list[Row], width: int, narrow: bool) -> tuple[bool, int]:
    """How the table fits ``width`` cells: whether hit rates show as counts only (when ``narrow``, or when
    the full table would not fit: 4281/7609 0.563 on a large corpus), and the cells a scorer's label may
    take (a reranker's name can be long: what the metrics leave, at least LABEL_MIN)."""
    labels = max(len(label) + 2 for _, label, _, _ in rows)

    def metrics(compact: bool) -> int:  # compact: one leading space per cell, else one on each side
        return sum(max(len(header), *(len(metric_text(evaluation, key, compact)) for _, _, evaluation, _ in rows))
                   + (1 if compact else 2) for header, key in metric_columns())

    if not narrow and labels + 2 + metrics(False) <= width:
        return False, labels
    return True, labels if not width else max(LABEL_MIN, min(labels, width - metrics(True)))
