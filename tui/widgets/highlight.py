"""Untrusted text with some character spans styled: matched query terms, a chunk in its document.

Offsets index the original text, but cleaning (tui/safe.py) can change
lengths (a control character becomes a visible escape). So the text is cut at
the span boundaries first and each piece cleaned on its own: styles land on
the right characters and no piece is ever parsed as markup.
"""
from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from ranklens.tui.safe import clean

MATCH_STYLE = "bold reverse"
SNIPPET_BEFORE = 12  # characters of context kept before the first matched term


def highlighted(text: str, spans: Iterable[tuple[int, int]], style: str = MATCH_STYLE,
                keep_newlines: bool = True) -> Text:
    """``text`` made safe, with ``style`` on each ``(start, end)`` span (overlaps merged)."""
    result = Text(no_wrap=not keep_newlines, overflow="ellipsis" if not keep_newlines else "fold")
    position = 0
    for start, end in _merged(spans, len(text)):
        result.append(clean(text[position:start], keep_newlines))
        result.append(clean(text[start:end], keep_newlines), style=style)
        position = end
    result.append(clean(text[position:], keep_newlines))
    return result


def snippet(text: str, spans: list[tuple[int, int]], length: int) -> Text:
    """About ``length`` characters of ``text`` on one line, from just before its first span."""
    first = min((start for start, _ in spans), default=0)
    begin = max(0, first - SNIPPET_BEFORE)
    # Start on a word boundary so the snippet does not open mid-word.
    if begin > 0:
        space = text.find(" ", begin, first)
        begin = space + 1 if space != -1 else begin
    end = min(len(text), begin + length)
    window = [(max(s, begin) - begin, min(e, end) - begin) for s, e in spans if e > begin and s < end]
    line = highlighted(text[begin:end], window, keep_newlines=False)
    if begin > 0:
        line = Text("…", no_wrap=True, overflow="ellipsis").append_text(line)
    if end < len(text):
        line.append("…")
    return line


def _merged(spans: Iterable[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s), min(limit, e)) for s, e in spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
