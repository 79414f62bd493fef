"""One line of text fitted to a width at a word: "… stem=none …", never "… ste…".

The setup line and the tabs' status lines say several things in one line; a narrow terminal cut them
wherever the edge fell. Cut here, the line ends after its last whole word that fits, then " …"; a single
word longer than the width is the only thing cut inside a word.
"""
from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

ELLIPSIS = " …"
_TRAILING = " ·,;:—-("  # separators left dangling before the ellipsis


def word_cut(text: str, width: int) -> int | None:
    """Where to cut ``text`` so that it and the ellipsis fit in ``width`` cells, at the end of a word; None
    when it fits whole, or when not even its first word fits (cut it anywhere)."""
    if cell_len(text) <= width:
        return None
    room = width - cell_len(ELLIPSIS)
    best = None
    for at, char in enumerate(text):
        if char == " ":
            end = len(text[:at].rstrip(_TRAILING))
            if end and cell_len(text[:end]) <= room:
                best = end
            elif cell_len(text[:at]) > room:
                break
    return best


def fit_content(content: Content, width: int) -> Content:
    """``content`` (styles kept) fitted to ``width`` cells at a word."""
    if width <= 0:
        return content
    cut = word_cut(content.plain, width)
    if cut is None:
        return content if cell_len(content.plain) <= width else content.truncate(width, ellipsis=True)
    return content[:cut] + Content(ELLIPSIS)
