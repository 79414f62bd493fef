"""Word documents (.docx): paragraphs and tables in the body's order, headings by their style (python-docx).

A paragraph styled "Heading N" is a heading of level N, one styled "Title" is the
document's title (and a level-1 heading); a table is a block with a line per row,
its cells " | " apart (a merged cell once).
"""
from __future__ import annotations

import io
import re
from typing import Any

from ranklens.engine.corpus.loaders.formats.building import DAMAGED, Extracted, TextBuilder, Unreadable

_HEADING_STYLE = re.compile(r"heading (\d)", re.IGNORECASE)


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
        built = TextBuilder()
        title = ""
        for item in document.iter_inner_content():
            if hasattr(item, "rows"):
                built.block(_table_text(item))
                continue
            style = item.style.name if item.style is not None else ""
            heading = _HEADING_STYLE.fullmatch(style or "")
            if style == "Title":
                title = title or " ".join(item.text.split())
                built.heading(1, item.text)
            elif heading:
                built.heading(int(heading.group(1)), item.text)
            else:
                built.block(item.text)
        core_title = document.core_properties.title
    except (PackageNotFoundError, *DAMAGED) as error:
        raise Unreadable(f"not a readable Word document ({type(error).__name__}: {error})") from None
    return [built.extracted(" ".join(core_title.split()) if core_title else title)]


def _table_text(table: Any) -> str:
    lines = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) not in seen:  # a merged cell is listed once per grid column it spans
                seen.add(id(cell._tc))
                cells.append(" ".join(cell.text.split()))
        lines.append(" | ".join(cells))
    return "\n".join(lines)
