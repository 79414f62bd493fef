"""Markdown chunks: sections by headings ``#`` to ``###``, then the recursive splitter inside each.

The sections are LangChain's ``MarkdownHeaderTextSplitter`` with
``headers_to_split_on`` ``#``, ``##``, ``###`` (headers stripped), and each
section's content is cut by ``RecursiveCharacterTextSplitter(size, overlap)``
(``recursive_split.py``), so the chunks fall where LangChain's pipeline puts them.
LangChain rebuilds each section's content: every line stripped of white space
and of characters that are not printable (``str.isprintable``: tabs and
no-break spaces inside a line too), blank lines dropped (except inside code
fences), a paragraph's lines joined by ``"\\n"`` and paragraphs by ``"  \\n"``.
Lengths are counted in that content, as LangChain counts them, but a chunk
here is a span of the document's own text: the one from its first character
to its last, with the document's white space and blank lines between.

Two more rules of LangChain's are kept: a heading line inside a ``````` or
``~~~`` fence is code, not a heading; and consecutive sections under the same
heading path (two ``# A`` in a row) are one section.

A document read from Markdown by a reader that strips the markup carries its
headings (``Document.headings``: offset, level, title); then a line starting
at the offset of a heading of level 1-3 opens a section, and is left out of
its content when it is the heading's title. Without headings, ``#`` lines of
the raw text are parsed as LangChain parses them.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ranklens.engine.corpus import Heading
from ranklens.engine.chunking.recursive_split import Span, recursive_spans

LEVELS = 3  # headings #, ## and ### cut sections; deeper ones are content
_MARKS = tuple("#" * level for level in range(LEVELS, 0, -1))  # longest first, as LangChain tries them
_PARAGRAPH_JOIN = "  \n"  # LangChain joins the paragraphs of a section with a Markdown line break


def markdown_spans(text: str, size: int, overlap: int, headings: Sequence[Heading] = ()) -> list[Span]:
    """The chunks of ``text`` as character offsets: sections by heading, each cut by the recursive splitter."""
    spans: list[Span] = []
    for section in _sections(text, headings):
        content, offsets = section.content()
        for start, end in recursive_spans(content, size, overlap):
            spans.append((int(offsets[start]), int(offsets[end - 1]) + 1))
    return spans


@dataclass
class _Line:
    start: int  # offset of the line's first character
    end: int  # offset of the line's end (its "\n", or the end of the text)
    kept: str  # stripped, printable characters only
    at: np.ndarray  # the offset of each kept character


@dataclass
class _Section:
    """A section's paragraphs (lists of lines) under one heading path."""

    path: tuple[tuple[int, str], ...]  # the headings above it: (level, title)
    paragraphs: list[list[_Line]] = field(default_factory=list)

    def content(self) -> tuple[str, np.ndarray]:
        """LangChain's page content of the section, and each of its characters' offset in the document.

        A joining line break stands for the line break of the text after the line before it."""
        texts: list[str] = []
        offsets: list[np.ndarray] = []
        for i, paragraph in enumerate(self.paragraphs):
            if i:
                texts.append(_PARAGRAPH_JOIN)
                offsets.append(np.full(len(_PARAGRAPH_JOIN), self.paragraphs[i - 1][-1].end, dtype=np.int64))
            for j, line in enumerate(paragraph):
                if j:
                    texts.append("\n")
                    offsets.append(np.array([paragraph[j - 1].end], dtype=np.int64))
                texts.append(line.kept)
                offsets.append(line.at)
        return "".join(texts), np.concatenate(offsets) if offsets else np.zeros(0, dtype=np.int64)


def _lines(text: str) -> Iterator[_Line]:
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        raw = text[start:end]
        left = len(raw) - len(raw.lstrip())
        stripped = raw.strip()
        if stripped.isprintable():
            at = np.arange(start + left, start + left + len(stripped), dtype=np.int64)
            yield _Line(start, end, stripped, at)
        else:
            kept = [(c, start + left + i) for i, c in enumerate(stripped) if c.isprintable()]
            yield _Line(start, end, "".join(c for c, _ in kept), np.array([i for _, i in kept], dtype=np.int64))
        start = end + 1


def _sections(text: str, headings: Sequence[Heading]) -> list[_Section]:
    """The document's sections in order, as LangChain's header splitter makes and aggregates them."""
    given = {offset: (level, title) for offset, level, title in headings if level <= LEVELS}
    heading_of = _given_heading(given) if headings else _parsed_heading
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []  # the heading path in force
    paragraph: list[_Line] = []
    fence = ""  # the fence of the code block the line is in; "" outside code

    def close(path: tuple[tuple[int, str], ...]) -> None:
        nonlocal paragraph
        if not paragraph:
            return
        if not sections or sections[-1].path != path:
            sections.append(_Section(path))
        sections[-1].paragraphs.append(paragraph)
        paragraph = []

    for line in _lines(text):
        path = tuple(stack)
        if not headings:
            fence = _fence(line.kept, fence)
        if fence:
            paragraph.append(line)
            continue
        heading = heading_of(line)
        if heading is not None:
            level, title, content = heading
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            close(path)
            if content:
                paragraph.append(line)
        elif line.kept:
            paragraph.append(line)
        else:
            close(path)
    close(tuple(stack))
    return sections


def _fence(line: str, fence: str) -> str:
    """The code fence in force after ``line`` ("" outside code), as LangChain tracks it."""
    if not fence:
        if line.startswith("```") and line.count("```") == 1:
            return "```"
        if line.startswith("~~~"):
            return "~~~"
        return ""
    return "" if line.startswith(fence) else fence


def _parsed_heading(line: _Line) -> tuple[int, str, bool] | None:
    """(level, title, line kept as content) of a ``#``-``###`` heading line, as LangChain recognises one."""
    for mark in _MARKS:
        if line.kept.startswith(mark) and (len(line.kept) == len(mark) or line.kept[len(mark)] == " "):
            return len(mark), line.kept[len(mark):].strip(), False
    return None


def _given_heading(given: dict[int, tuple[int, str]]):  # noqa: ANN202 - a closure over the document's headings
    def heading_of(line: _Line) -> tuple[int, str, bool] | None:
        first = int(line.at[0]) if len(line.at) else line.start
        found = given.get(line.start, given.get(first))
        if found is None:
            return None
        level, title = found
        return level, title, line.kept != title.strip()

    return heading_of
