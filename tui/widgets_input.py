"""A text box that never puts a control character on screen, and whose cursor blink the app decides.

Text reaches a box from pasting and from questions other tabs send (untrusted
corpus text); Textual's Input would draw an ESC in it raw. Control, bidi and
invisible characters are made visible as they arrive (tui/safe.py), one line.
Snapshot tests turn the blink off so that screens compare equal.
"""
from __future__ import annotations

from textual.widgets import Input

from tui.safe import clean


class TextBox(Input):
    def on_mount(self) -> None:
        self.cursor_blink = getattr(self.app, "cursor_blink", True)

    def validate_value(self, value: str) -> str:
        return clean(value, keep_newlines=False)
