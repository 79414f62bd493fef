"""A document drawn with its chunks: alternate colours per chunk, overlaps in a third, a number at each start.

Pure functions over text and spans, so the chunking tab can build the view in
a worker thread. Offsets index the original text; each piece between two
boundaries is cleaned on its own (tui/safe.py), so styles land on the right
characters and no piece is parsed as markup.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from collections.abc import Sequence

from textual.content import Content

from ranklens.engine.corpus import normalise_space
from ranklens.tui.safe import clean

if TYPE_CHECKING:  # engine.chunking loads numpy, which the first paint must not wait for
    from ranklens.engine.chunking.cutting import Span

CHUNK_STYLES = ("on $primary 40%", "on $success 30%")  # even and odd chunks: two hues, told apart at a glance
OVERLAP_STYLE = "bold on $warning 55%"  # text that sits in two chunks or more
START_STYLE = "bold reverse"  # light on dark whatever the chunk colours around it
FOUND_STYLE = "underline bold"
WINDOW_STYLE = "bold reverse $error"  # where a dense model's window ends inside a chunk


@dataclass(frozen=True)
class Verdict:
    """Whether a sentence survives the chunking: in one piece in some chunk, or cut."""

    text: str  # e.g. "whole in chunks 3, 4"
    whole: bool
    found_at: tuple[int, int] | None = None  # where it is in the document, whole or cut


def legend() -> Content:
    """The styles on one line, short enough for a border."""
    return Content.assemble(
        (" chunk ", CHUNK_STYLES[0]), (" next ", CHUNK_STYLES[1]), (" overlap ", OVERLAP_STYLE), " ",
        ("‹n›", START_STYLE), " starts chunk n",
    )


def locate(text: str, sentence: str) -> tuple[int, int] | None:
    """Where ``sentence`` occurs in ``text`` with any white space between its words, as answers match."""
    words = sentence.split()
    if not words:
        return None
    match = re.search(r"\s+".join(map(re.escape, words)), text)
    return match.span() if match else None


def find_verdict(text: str, spans: Sequence[Span], sentence: str) -> Verdict | None:
    """None for an empty sentence; else which chunks keep it whole (``contains_answer`` on each)."""
    from ranklens.engine.chunking.cutting import contains_answer  # here, not at the top: see TYPE_CHECKING above

    if not normalise_space(sentence):
        return None
    whole = tuple(i for i, s in enumerate(spans) if contains_answer(text[s.start_char:s.end_char], sentence))
    found = locate(text, sentence)
    if whole:
        names = ", ".join(str(i + 1) for i in whole)
        return Verdict(f"whole in chunk{'s' if len(whole) > 1 else ''} {names}", True, found)
    if found:
        return Verdict("cut: no chunk holds it whole", False, found)
    return Verdict("not in this text", False)


def chunk_map(text: str, spans: Sequence[Span], found: tuple[int, int] | None, limit: int,
              window_ends: Sequence[int] = (), window: int = 0) -> Content:
    """The first ``limit`` characters of ``text`` with the chunk styles and start numbers, and a mark
    ``⟪window⟫`` at each of ``window_ends``: where a model's window ends inside a chunk longer than it."""
    end = min(len(text), limit)
    starts = {s.start_char: i for i, s in enumerate(spans)}
    marks = set(window_ends)
    cuts = {0, end} | {s.start_char for s in spans} | {s.end_char for s in spans} | {m for m in marks if m < end}
    if found:
        cuts |= set(found)
    bounds = sorted(c for c in cuts if 0 <= c <= end)
    parts: list[str | tuple[str, str] | Content] = []
    # Spans are in start order: walk them once, keeping those that cover the current piece.
    active: list[int] = []
    following = 0
    for a, b in zip(bounds, bounds[1:]):
        while following < len(spans) and spans[following].start_char <= a:
            active.append(following)
            following += 1
        active = [i for i in active if spans[i].end_char >= b]
        if a in marks:
            parts.append((f"⟪{window}⟫", WINDOW_STYLE))
        if a in starts:
            parts.append((f"‹{starts[a] + 1}›", START_STYLE))
        piece = Content.styled(clean(text[a:b]), _style(active))
        if found and found[0] <= a and b <= found[1]:
            piece = piece.stylize(FOUND_STYLE)
        parts.append(piece)
    return Content.assemble(*parts)


def _style(covering: list[int]) -> str:
    if not covering:
        return ""
    if len(covering) > 1:
        return OVERLAP_STYLE
    return CHUNK_STYLES[covering[0] % 2]
