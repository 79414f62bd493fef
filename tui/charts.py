"""Charts drawn with characters: they work over SSH in any terminal and compare equal in snapshots.

Both charts take numbers and a size in cells and return ``Content`` lines;
labels are ranklens' own strings, never corpus text. Styles are theme
variables, so the charts follow the app's theme.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable, Sequence

from textual.content import Content

AXIS_STYLE = "$text-muted"
MARK_STYLE = "bold $warning"
LINE_STYLE = "$text-muted"
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


@dataclass(frozen=True)
class Curve:
    """One series of a curve plot: its points (x, y), joined in their order (a knob's, cheapest first)."""

    label: str
    points: Sequence[tuple[float, float]]
    style: str
    marker: str = "●"


def legend(curves: Sequence[Curve]) -> Content:
    """Each curve's marker and label, in its style, on one line."""
    return Content(" ").join(Content.assemble((c.marker, c.style), " ", (c.label, AXIS_STYLE)) for c in curves)


def curve_plot(
    curves: Sequence[Curve],
    width: int,
    height: int,
    y_range: tuple[float, float] = (0.0, 1.0),
    x_label: str = "",
    x_format: Callable[[float], str] = "{:g}".format,
) -> list[Content]:
    """Curves on one grid, x on a log scale spanning their points, y over ``y_range``.

    A log scale because costs span orders of magnitude (one probed cell against
    every vector): on a linear one the cheap end of a curve is a single column.
    The y axis is labelled at its top, middle and bottom; the x axis at both
    ends (``x_format``) with ``x_label`` in the middle. Markers are drawn over
    the dotted segments, a shorter curve's over a longer one's.
    """
    height = max(3, height)
    y_min, y_max = y_range
    y_labels = {0: f"{y_max:.2f}", (height - 1) // 2: f"{(y_min + y_max) / 2:.2f}", height - 1: f"{y_min:.2f}"}
    gutter = max(len(label) for label in y_labels.values()) + 1
    plot = max(MIN_PLOT_WIDTH, width - gutter)
    grid = [[" "] * plot for _ in range(height)]
    styles = [[LINE_STYLE] * plot for _ in range(height)]
    xs = [x for c in curves for x, _ in c.points if x > 0]
    low, high = (min(xs), max(xs)) if xs else (1.0, 10.0)
    if high <= low * 1.01:  # one cost for every point: give the axis a decade to sit in
        low, high = low / 3, high * 3
    log_low, log_high = math.log10(low), math.log10(high)

    def column(x: float) -> float:
        return (math.log10(max(x, low)) - log_low) / (log_high - log_low) * (plot - 1)

    def row(y: float) -> int:
        return height - 1 - _column(y, y_min, y_max, height)

    for curve in curves:
        # joined in the order given (a knob's), not by x: measured times may step back
        for (x0, y0), (x1, y1) in zip(curve.points, curve.points[1:]):
            c0, c1 = column(x0), column(x1)
            for c in range(round(min(c0, c1)) + 1, round(max(c0, c1))):
                r = row(y0 + (y1 - y0) * (c - c0) / (c1 - c0))
                grid[r][c], styles[r][c] = "·", curve.style
    # shorter curves over longer ones: a single point (exact search) is never hidden under a curve
    for curve in sorted(curves, key=lambda c: -len(c.points)):
        for x, y in curve.points:
            r, c = row(y), round(column(x))
            grid[r][c] = curve.marker
            styles[r][c] = curve.style
    lines = []
    for r in range(height):
        label = y_labels.get(r)
        parts: list[str | tuple[str, str]] = [((label or "").rjust(gutter - 1) + ("┤" if label else "│"), AXIS_STYLE)]
        parts.extend((grid[r][c], styles[r][c]) for c in range(plot))
        lines.append(Content.assemble(*parts))
    axis = [" "] * plot
    _place(axis, 0, x_format(low))
    right = x_format(high)
    _place(axis, plot - len(right), right)
    _place(axis, (plot - len(x_label)) // 2, x_label)
    lines.append(Content.assemble((" " * gutter + "".join(axis), AXIS_STYLE)))
    return lines
