"""Untrusted text (documents, queries, file names) made safe to put on screen.

Never parsed as markup: callers wrap the result in ``Content`` or
``rich.text.Text``, never in a markup string. Control characters (ESC starts
ANSI/OSC sequences that would drive the terminal) are made visible as their
Unicode control pictures (␛, ␇, …) or \\x escapes; bidi overrides and
zero-width characters are shown as ⟨U+XXXX⟩ so they cannot reorder or hide text.
"""
from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.content import Content

_BIDI_AND_INVISIBLE = {
    0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
    0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF,
}
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"
    + "".join(re.escape(chr(c)) for c in sorted(_BIDI_AND_INVISIBLE))
    + "]"
)


def _visible(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟ control pictures
    if code == 0x7F:
        return "␡"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"⟨U+{code:04X}⟩"


def clean(text: str, keep_newlines: bool = True) -> str:
    """``text`` with every character that could act on the terminal made visible."""
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    if not keep_newlines:
        text = text.replace("\n", " ")
    return _UNSAFE.sub(_visible, text)


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
