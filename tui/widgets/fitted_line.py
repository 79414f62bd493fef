"""One line of text that a narrow terminal cuts at a word, with " …" after it (tui/text_fit.py)."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ranklens.tui.text_fit import fit_content


class FittedLine(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._line = Content()

    @property
    def text(self) -> str:
        """The whole line, as said (the screen may show it cut)."""
        return self._line.plain

    def say(self, line: Content) -> None:
        """Show ``line`` (made safe by the caller), fitted to the width now and at every resize."""
        self._line = line
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        self.update(fit_content(self._line, self.size.width))
