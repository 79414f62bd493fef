"""The chunking lab's heat map: one chunker's cells of a chunk sweep, sizes down and overlaps across.

A cell's background goes from the theme's panel colour (the sweep's lowest nDCG@10) to its success
colour (the highest), over every chunker of the sweep so that two chunkers' maps compare; the number
is written in the cell too, so nothing is said by colour alone. ★ marks the winner, = the setup's own
chunking. ``c`` shows the next chunker's map; Enter on a cell posts ``DataTable.CellSelected`` as any
table does (the Chunking tab makes that cell the setup).
"""
from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.color import Color

from ranklens.engine.chunking.chunkers import CHUNKER_TABLE
from ranklens.engine.experiments.chunking import ChunkSweep, SweepCell
from ranklens.engine.measuring.metric_table import NDCG
from ranklens.tui.colours import theme_colour
from ranklens.tui.widgets.lists import KeyTable


def column_names(sweep: ChunkSweep, rows: list[list[int]]) -> list[str]:
    """Each overlap column's heading: its overlap when every size has the same one, else what they share
    (a quarter of each size: the default grid)."""
    names = []
    for column in range(max(len(row) for row in rows)):
        windows = [sweep.cells[row[column]].window for row in rows if column < len(row)]
        overlaps = {w.overlap for w in windows}
        if len(overlaps) == 1:
            names.append(f"overlap {overlaps.pop()}")
        elif all(w.overlap == w.size // 4 for w in windows):
            names.append("overlap 25%")
        else:
            names.append(f"overlap #{column + 1}")
    return names


class ChunkGrid(KeyTable):
    """A chunk sweep's heat map, one chunker at a time."""

    BINDINGS = [
        Binding("enter", "select_cursor", "use", tooltip="Use in app", id="chunking.apply_cell"),
        Binding("c", "next_chunker", "chunker", tooltip="The next chunker's grid", id="chunking.grid_chunker"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="cell")
        self.sweep: ChunkSweep | None = None
        self.chunker = ""
        self._rows: list[list[int]] = []
        # where ``show`` put the cursor: the highlight that follows is the drawing's, not the user's move
        self.placed: tuple[int, int] | None = None

    def show(self, sweep: ChunkSweep | None, chunker: str | None = None) -> None:
        """Draw ``sweep``'s grid of ``chunker`` (default: the winner's), the cursor on the winner when it is
        in it; None clears the table."""
        self.sweep = sweep
        self.clear(columns=True)
        if sweep is None or sweep.winner is None:
            self._rows, self.placed = [], None
            return
        self.chunker = chunker or sweep.cells[sweep.winner].window.chunker
        self._rows = sweep.grid(self.chunker)
        for name in column_names(sweep, self._rows):
            self.add_column(name)
        for row in self._rows:
            self.add_row(*(self._cell(i) for i in row), label=str(sweep.cells[row[0]].window.size))
        where = next(((r, c) for r, row in enumerate(self._rows) for c, i in enumerate(row) if i == sweep.winner),
                     (0, 0))
        self.placed = where
        self.move_cursor(row=where[0], column=where[1])
        self.border_title = f"{self.chunker} · c: next"
        self.border_subtitle = f"size in {CHUNKER_TABLE[self.chunker].unit}"

    def moved_to(self, row: int, column: int) -> bool:
        """Whether a highlight of (row, column) is the user's move, not the cursor ``show`` placed."""
        placed, self.placed = self.placed, None
        return placed != (row, column)

    def index_at(self, row: int, column: int) -> int | None:
        """The sweep's cell index at a grid position; None off the grid."""
        if row < len(self._rows) and column < len(self._rows[row]):
            return self._rows[row][column]
        return None

    def action_next_chunker(self) -> None:
        if self.sweep is None or not self.chunker:
            return
        chunkers = self.sweep.chunkers
        measured = [c for c in chunkers if self.sweep.grid(c)]
        if len(measured) < 2:
            self.notify(f"this sweep measured one chunker: {self.chunker}", severity="information")
            return
        self.show(self.sweep, measured[(measured.index(self.chunker) + 1) % len(measured)])

    def _cell(self, index: int) -> Text:
        assert self.sweep is not None  # drawn from a sweep
        sweep = self.sweep
        cell = sweep.cells[index]
        current = sweep.baseline is not None and cell.window == sweep.baseline.window
        mark = "★" if index == sweep.winner else "=" if current else " "
        background = self._heat(cell)
        style = f"{background.get_contrast_text().hex} on {background.hex}"
        return Text(f"{mark} {cell.evaluation.metrics[NDCG]:.3f} ", style=f"bold {style}" if mark == "★" else style)

    def _heat(self, cell: SweepCell) -> Color:
        assert self.sweep is not None
        values = [c.evaluation.metrics[NDCG] for c in self.sweep.cells]
        low, high = min(values), max(values)
        share = (cell.evaluation.metrics[NDCG] - low) / (high - low) if high > low else 1.0
        cold = Color.parse(theme_colour(self.app, "panel"))
        hot = Color.parse(theme_colour(self.app, "success"))
        return cold.blend(hot, share)
