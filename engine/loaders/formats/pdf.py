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
from typing import Any

from ranklens.engine.loaders.formats.building import DAMAGED, Extracted, TextBuilder, Unreadable

_CONTROLS = dict.fromkeys(range(32), " ")  # a title's NUL terminator and the like, written by some producers


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about odd but readable files are noise here
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("encrypted PDF (a password is needed)")
        built = TextBuilder()
        blank = 0
        for page in reader.pages:
            built.page()
            text = page.extract_text() or ""
            blank += not text.strip()
            built.block(text)
        headings = _outline(reader, built)
        title = _title(reader)
    except Unreadable:
        raise
    except (PdfReadError, *DAMAGED) as error:  # pypdf's own error does not cover every damaged file
        raise Unreadable(f"not a readable PDF ({type(error).__name__}: {error})") from None
    extracted = built.extracted(title)
    if not extracted.text:
        raise Unreadable(f"no text layer in its {len(built.pages)} pages (scanned or images only?)")
    if blank:
        notes.append(f"{name}: {blank} of {len(built.pages)} pages without text (scanned or images only?)")
    return [Extracted(extracted.title, extracted.text, headings, extracted.pages)]


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
