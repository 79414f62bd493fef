"""A widget that redraws a character chart for whatever size it is given.

The chart is a function of (width, height): the widget calls it when it
renders, so a resize or a neighbour growing never leaves a chart drawn for
the old width. Lines are cut, never wrapped, so rows stay aligned.
"""
from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from ranklens.tui.text_fit import fit_content

# (width, height) -> lines; height 0 asks for the chart's natural height.
Draw = Callable[[int, int], list[Content]]


class Chart(Widget):
    DEFAULT_CSS = "Chart { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._draw: Draw | None = None

    def plot(self, draw: Draw | None) -> None:
        """Show ``draw``'s chart from now on (None: nothing)."""
        self._draw = draw
        self.refresh(layout=True)

    def render(self) -> Content:
        if self._draw is None:
            return Content("")
        size = self.content_size
        # One row per line, always: a wrapped line would push the axis out of place. A caption too long
        # ends after a whole word (a number cut, "0.84…", would read as another number).
        lines = self._draw(size.width, size.height)
        return Content("\n").join(fit_content(line, size.width) for line in lines)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._draw(width, 0)) if self._draw is not None else 0
