"""Untrusted text (documents, queries, file names) made safe to put on screen.

Never parsed as markup: callers wrap the result in ``Content`` or
``rich.text.Text``, never in a markup string. Control characters (ESC starts
ANSI/OSC sequences that would drive the terminal) are made visible as their
Unicode control pictures (␛, ␇, …) or \\x escapes; bidi overrides and
zero-width characters are shown as ⟨U+XXXX⟩ so they cannot reorder or hide text.
"""
from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.content import Content

from ranklens.engine.text.visible import clean


def safe_text(text: str, style: str = "", keep_newlines: bool = True) -> Text:
    """A rich ``Text`` holding ``text`` literally (no markup, no escapes)."""
    return Text(clean(text, keep_newlines), style=style, no_wrap=False)


def safe_content(text: str, keep_newlines: bool = True) -> Content:
    """A Textual ``Content`` holding ``text`` literally."""
    return Content(clean(text, keep_newlines))


def one_line(text: str, width: int) -> str:
    """A cleaned single line cut to ``width`` terminal cells with an ellipsis."""
    flat = " ".join(clean(text, keep_newlines=False).split())
    if cell_len(flat) <= width:
        return flat
    return set_cell_size(flat, max(0, width - 1)) + "…"
