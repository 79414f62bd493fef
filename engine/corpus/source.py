"""Where a chunk came from: its document's file, the page and the heading path at its start.

A document keeps its page starts and its headings as character offsets into its
extracted text (``Document.pages``, ``Document.headings``); a chunk is a span of
that text, so its page and headings are found by the offset where it starts.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Any

from ranklens.engine.corpus import Chunk, Document

SEPARATOR = " › "


def page_at(document: Document, offset: int) -> int | None:
    """The page (1 for the first) holding character ``offset`` of the document's text; None without pages."""
    if not document.pages:
        return None
    return max(bisect_right(document.pages, offset), 1)


def headings_at(document: Document, offset: int) -> list[str]:
    """The heading path in force at ``offset``: the last heading of each level above the deepest one."""
    path: list[tuple[int, str]] = []
    for start, level, title in document.headings:
        if start > offset:
            break
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
    return [title for _, title in path]


def chunk_source(document: Document, chunk: Chunk) -> dict[str, Any]:
    """``{"file", "page", "headings", "start", "end"}`` of ``chunk``, without the keys not known."""
    source: dict[str, Any] = {}
    if document.file:
        source["file"] = document.file
    page = page_at(document, chunk.start)
    if page is not None:
        source["page"] = page
    headings = headings_at(document, chunk.start)
    if headings:
        source["headings"] = headings
    source["start"], source["end"] = chunk.start, chunk.end
    return source


def citation(document: Document, chunk: Chunk) -> str:
    """How a prompt cites the chunk: ``handbook.pdf p. 3 › Leave › Requests`` (the document's title or id when it
    has no file, no page or headings when they are not known)."""
    name = document.file.rsplit("/", 1)[-1] if document.file else (document.title or document.id)
    page = page_at(document, chunk.start)
    where = f"{name} p. {page}" if page is not None else name
    return SEPARATOR.join([where, *headings_at(document, chunk.start)])
