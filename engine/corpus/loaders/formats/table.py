"""CSV and TSV files (.csv, .tsv): a document per row, from an id column and a text column (and a title, if any).

The header names the columns: the id is ``id``, ``_id`` or ``doc_id``, the text
``text``, ``content`` or ``body``, the title ``title`` (any case). A file without
an id and a text column is ``Unreadable``, its columns named; a row without an
id or text is left out, counted in one note.
"""
from __future__ import annotations

import csv
import io

from ranklens.engine.corpus.loaders.formats.building import Extracted, Unreadable
from ranklens.engine.corpus.loaders.formats.encoding import decode

ID_COLUMNS = ("id", "_id", "doc_id")
TEXT_COLUMNS = ("text", "content", "body")
TITLE_COLUMN = "title"


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    delimiter = "\t" if name.lower().endswith(".tsv") else ","
    # a field may be a whole document: the csv module's default limit (128 KiB) is too small
    csv.field_size_limit(1 << 30)
    rows = csv.reader(io.StringIO(decode(data, name, notes), newline=""), delimiter=delimiter)
    try:
        header = [column.strip().lower() for column in next(rows, [])]
        id_at = _column(header, ID_COLUMNS)
        text_at = _column(header, TEXT_COLUMNS)
        if id_at is None or text_at is None:
            found = ", ".join(header) if any(header) else "none"
            raise Unreadable(f"no id and text columns ({'/'.join(ID_COLUMNS)} and {'/'.join(TEXT_COLUMNS)}; "
                             f"found: {found})")
        title_at = _column(header, (TITLE_COLUMN,))
        documents, left_out = [], 0
        for row in rows:
            doc_id = row[id_at].strip() if id_at < len(row) else ""
            text = row[text_at] if text_at < len(row) else ""
            if not doc_id or not text.strip():
                left_out += bool(any(field.strip() for field in row))
                continue
            title = row[title_at].strip() if title_at is not None and title_at < len(row) else ""
            documents.append(Extracted(title, text, key=doc_id))
    except csv.Error as error:
        raise Unreadable(f"not a readable {'TSV' if delimiter == chr(9) else 'CSV'} file ({error})") from None
    if left_out:
        notes.append(f"{name}: {left_out} rows without an id or a text left out")
    return documents


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    return next((header.index(name) for name in names if name in header), None)
