"""A document's text put together block by block, with where its headings and pages start in it."""
from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass

_SPACE = re.compile(r"[ \t\r\f\v\u00a0]+")
_NEWLINES = re.compile(r"\n{3,}")


@dataclass(frozen=True, slots=True)
class Extracted:
    """One document as a reader makes it; ``key`` names a row of a table file ("" for a whole file)."""

    title: str
    text: str
    headings: tuple[tuple[int, int, str], ...] = ()
    pages: tuple[int, ...] = ()
    key: str = ""


class Unreadable(Exception):
    """A file its reader cannot make text of; the message says why in a few words ("encrypted")."""


# What a damaged file makes a third-party parser raise, beyond its own errors: a truncated zip or stream, an
# XML syntax error (lxml's is a SyntaxError), a missing part, a number where a name should be, deep nesting
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, SyntaxError, KeyError, ValueError, TypeError, AttributeError,
           IndexError, OSError, RecursionError, NotImplementedError)


def tidy(text: str) -> str:
    """Runs of spaces as one space and at most one blank line in a row, lines stripped of edge spaces."""
    lines = (_SPACE.sub(" ", line).strip() for line in text.split("\n"))
    return _NEWLINES.sub("\n\n", "\n".join(lines)).strip()


class TextBuilder:
    """Blocks of text one blank line apart; ``heading`` and ``page`` note the offset where they start."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.headings: list[tuple[int, int, str]] = []
        self.pages: list[int] = []

    def block(self, text: str) -> None:
        """``text`` as a block of its own (nothing for blank text)."""
        text = tidy(text)
        if not text:
            return
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        self.parts.append(text)
        self.length += len(text)

    def heading(self, level: int, text: str) -> None:
        """A heading block, and its place in the heading path."""
        title = " ".join(text.split())
        if title:
            self.headings.append((self._next_start(), min(max(level, 1), 6), title))
            self.block(title)

    def page(self) -> None:
        """A new page (or slide) starts with the next block."""
        self.pages.append(self._next_start())

    def _next_start(self) -> int:
        return self.length + 2 if self.parts else 0

    def extracted(self, title: str) -> Extracted:
        return Extracted(title, "".join(self.parts), tuple(self.headings), tuple(self.pages))
