"""Charts drawn with characters: they work over SSH in any terminal and compare equal in snapshots.

Both charts take numbers and a size in cells and return ``Content`` lines;
labels are ranklens' own strings, never corpus text. Styles are theme
variables, so the charts follow the app's theme.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

from textual.content import Content

AXIS_STYLE = "$text-muted"
MARK_STYLE = "bold $warning"
LINE_STYLE = "$text-muted"
POINT_STYLE = "bold $accent"
MIN_PLOT_WIDTH = 10
LABEL_GAP = 2  # cells between a dot row's label and its first column
SEVERAL = "◉"  # two or more values in one cell


@dataclass(frozen=True)
class DotRow:
    """One row of a dot chart: a label and the values marked on the shared axis."""

    label: str
    values: Sequence[float]
    style: str
    marker: str = "●"


def _column(value: float, low: float, high: float, width: int) -> int:
    if high <= low:
        return 0
    return max(0, min(width - 1, round((value - low) / (high - low) * (width - 1))))


def _place(line: list[str], start: int, text: str) -> bool:
    """Write ``text`` into ``line`` at ``start`` if those cells are still blank."""
    if start < 0 or start + len(text) > len(line) or any(c != " " for c in line[start:start + len(text)]):
        return False
    line[start:start + len(text)] = text
    return True


def dot_rows(rows: Sequence[DotRow], width: int, mark: float | None = None, mark_label: str = "") -> list[Content]:
    """Each row's values as markers on one shared axis, with an optional vertical mark (a threshold).

    Values that fall in the same cell show as ``SEVERAL`` (a digit there read
    as a stray number), so no question disappears behind another. The axis
    spans the values, and its last line always labels both ends (the mark's
    value goes where it fits).
    """
    label_width = max((len(r.label) for r in rows), default=0) + LABEL_GAP
    plot = max(MIN_PLOT_WIDTH, width - label_width)
    values = [v for r in rows for v in r.values] + ([mark] if mark is not None else [])
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    mark_column = _column(mark, low, high, plot) if mark is not None else None
    lines = []
    for row in rows:
        counts = [0] * plot
        for value in row.values:
            counts[_column(value, low, high, plot)] += 1
        parts: list[str | tuple[str, str]] = [(row.label.ljust(label_width), AXIS_STYLE)]
        for column, count in enumerate(counts):
            if count:
                parts.append((row.marker if count == 1 else SEVERAL, row.style))
            elif column == mark_column:
                parts.append(("│", MARK_STYLE))
            else:
                parts.append(("·" if column % 5 == 0 else " ", AXIS_STYLE))
        lines.append(Content.assemble(*parts))
    axis = [" "] * plot
    # The ends first, so the axis always says where it starts; the mark's value where it fits.
    _place(axis, 0, f"{low:.3f}")
    _place(axis, plot - 5, f"{high:.3f}")
    if mark_column is not None:
        text = f"▲ {mark_label}{mark:.3f}"
        if not _place(axis, mark_column, text):
            _place(axis, mark_column - len(text) + 1, f"{mark_label}{mark:.3f} ▲")
    lines.append(Content.assemble((" " * label_width + "".join(axis), AXIS_STYLE)))
    return lines


def line_plot(
    points: Sequence[tuple[float, float]],
    width: int,
    height: int,
    x_max: float = 1.0,
    y_range: tuple[float, float] = (0.0, 1.0),
    x_label: str = "",
) -> list[Content]:
    """Points (x, y), x from 0 to ``x_max``, joined left to right by dotted segments.

    The y axis is labelled at its top, middle and bottom; the x axis at both
    ends with percentages and ``x_label`` in the middle.
    """
    height = max(3, height)
    y_min, y_max = y_range
    y_labels = {0: f"{y_max:.2f}", (height - 1) // 2: f"{(y_min + y_max) / 2:.2f}", height - 1: f"{y_min:.2f}"}
    gutter = max(len(label) for label in y_labels.values()) + 1
    plot = max(MIN_PLOT_WIDTH, width - gutter)
    grid = [[" "] * plot for _ in range(height)]
    styles = [[LINE_STYLE] * plot for _ in range(height)]

    def cell(x: float, y: float) -> tuple[int, int]:
        return height - 1 - _column(y, y_min, y_max, height), _column(x, 0.0, x_max, plot)

    ordered = sorted(points)
    for (x0, y0), (x1, y1) in zip(ordered, ordered[1:]):
        (_, c0), (_, c1) = cell(x0, y0), cell(x1, y1)
        for column in range(c0 + 1, c1):
            x = x_max * column / (plot - 1)
            row, _ = cell(x, y0 + (y1 - y0) * (x - x0) / (x1 - x0))
            grid[row][column] = "·"
    for x, y in ordered:
        row, column = cell(x, y)
        grid[row][column] = "●"
        styles[row][column] = POINT_STYLE
    lines = []
    for r in range(height):
        label = y_labels.get(r)
        parts: list[str | tuple[str, str]] = [((label or "").rjust(gutter - 1) + ("┤" if label else "│"), AXIS_STYLE)]
        parts.extend((grid[r][c], styles[r][c]) for c in range(plot))
        lines.append(Content.assemble(*parts))
    axis = [" "] * plot
    _place(axis, 0, "0%")
    right = f"{x_max:.0%}"
    _place(axis, plot - len(right), right)
    _place(axis, (plot - len(x_label)) // 2, x_label)
    lines.append(Content.assemble((" " * gutter + "".join(axis), AXIS_STYLE)))
    return lines
