"""PDF (.pdf): the text of each page, where each page starts, and the outline's entries as headings (pypdf).

An outline entry (a bookmark) is a heading of its depth, placed where its title
is first found on its page (at the page's start when the text does not hold it).
An encrypted PDF opens when its user password is empty (most "protected" PDFs
only restrict printing or copying); otherwise, or when no page has a text layer
(a scan), the file is ``Unreadable`` and said so.
"""
from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from ranklens.engine.corpus.loaders.formats.building import DAMAGED, Extracted, TextBuilder, Unreadable

T = TypeVar("T")
_CONTROLS = dict.fromkeys(range(32), " ")  # a title's NUL terminator and the like, written by some producers


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about odd but readable files are noise here
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("encrypted PDF (a password is needed)")
        pages = reader.pages
        count = len(pages)
    except Unreadable:
        raise
    except (PdfReadError, *DAMAGED) as error:  # pypdf's own error does not cover every damaged file
        raise Unreadable(f"not a readable PDF ({type(error).__name__}: {error})") from None
    built = TextBuilder()
    blank: list[int] = []
    damaged: list[int] = []
    for number in range(count):  # a damaged page costs its own text, not the file's
        built.page()
        try:
            text = pages[number].extract_text() or ""
        except (PdfReadError, *DAMAGED):
            damaged.append(number + 1)
            continue
        if not text.strip():
            blank.append(number + 1)
        built.block(text)
    no_headings: tuple[tuple[int, int, str], ...] = ()
    headings, title = _optional(lambda: _outline(reader, built), no_headings), _optional(lambda: _title(reader), "")
    extracted = built.extracted(title)
    if not extracted.text:
        why = "no text layer" if not damaged else f"no text read ({len(damaged)} damaged)"
        raise Unreadable(f"{why} in its {count} pages (scanned or images only?)")
    if blank:
        notes.append(f"{name}: {len(blank)} of {count} pages without text (scanned or images only?)")
    if damaged:
        notes.append(f"{name}: page{'s' * (len(damaged) > 1)} {', '.join(map(str, damaged))} not readable, left out")
    return [Extracted(extracted.title, extracted.text, headings, extracted.pages)]


def _optional(part: Callable[[], T], absent: T) -> T:
    """An extra of the file (its outline, its title), or ``absent`` when that part of it is damaged."""
    from pypdf.errors import PdfReadError

    try:
        return part()
    except (PdfReadError, *DAMAGED):
        return absent


def _title(reader: Any) -> str:
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    return " ".join(str(title).translate(_CONTROLS).split()) if title else ""


def _outline(reader: Any, built: TextBuilder) -> tuple[tuple[int, int, str], ...]:
    """The outline's entries as (offset, level, title), in the text's order."""
    text = "".join(built.parts)
    pages = built.pages
    found: list[tuple[int, int, str]] = []
    after = 0  # entries come in reading order: a title used twice on a page is found after the previous entry

    def walk(entries: list[Any], level: int) -> None:
        nonlocal after
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, level + 1)
                continue
            title = " ".join(str(entry.title or "").split())
            page = reader.get_destination_page_number(entry)
            if not title or page is None or not 0 <= page < len(pages):
                continue
            start = pages[page]
            end = pages[page + 1] if page + 1 < len(pages) else len(text)
            at = text.find(title, max(start, after), end)
            if at >= 0:
                after = at + len(title)
            found.append((at if at >= 0 else start, min(level, 6), title))

    walk(reader.outline, 1)
    return tuple(sorted(found, key=lambda heading: heading[0]))
