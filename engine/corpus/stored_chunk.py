"""A chunk of a corpus read from the cache's columns field by field, when each is asked for.

A search's hits are a few rows of a million-chunk table at random places: making
each one a whole ``Chunk`` reads its id, text, span and document (a binary search
of the document starts) from as many mapped pages, when a caller such as a batch
of queries reads only ``id``. A ``StoredChunk`` holds the table and the row and
reads a field from the columns when it is asked for (every time: a field read
twice is decoded twice, as cheap as it is rare). It is a ``Chunk`` to every
caller: an instance of it, equal to and hashing as the eager chunk of the same
row, shown (``repr``), pickled and copied as that eager chunk, and
``dataclasses.replace`` gives an eager ``Chunk``.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.engine.corpus import Chunk

if TYPE_CHECKING:
    from ranklens.engine.corpus.tables import ChunkTable


class StoredChunk(Chunk):
    """Row ``row`` of ``table`` as a ``Chunk`` whose fields are read from the table's columns on access."""

    __slots__ = ("_table", "_row")
    _table: ChunkTable
    _row: int

    def __new__(cls, *fields: Any, **named: Any) -> Chunk:  # type: ignore[misc]
        # called as Chunk(...) is, by dataclasses.replace: the chunk with those fields is an eager one
        return Chunk(*fields, **named)

    @classmethod
    def of_rows(cls, table: ChunkTable, rows: Iterable[int]) -> list[Chunk]:
        """Rows ``rows`` (each 0 <= row < len(table), not checked) of ``table``, nothing read yet."""
        # the slots are set through their descriptors: Chunk is frozen, and object.__setattr__ costs twice as much
        new, set_table, set_row = object.__new__, _TABLE.__set__, _ROW.__set__
        chunks: list[Chunk] = []
        for row in rows:
            chunk = new(cls)
            set_table(chunk, table)
            set_row(chunk, row)
            chunks.append(chunk)
        return chunks

    @property
    def id(self) -> str:
        return self._table.ids.at(self._row)

    @property
    def text(self) -> str:
        return self._table.texts.at(self._row)

    @property
    def doc_id(self) -> str:
        return self._table.doc_ids.at(self._document)

    @property
    def index(self) -> int:
        return self._row - int(self._table.doc_first[self._document])

    @property
    def start(self) -> int:
        return int(self._table.spans[self._row, 0])

    @property
    def end(self) -> int:
        return int(self._table.spans[self._row, 1])

    @property
    def start_word(self) -> int:
        return int(self._table.spans[self._row, 2])

    @property
    def _document(self) -> int:
        return int(np.searchsorted(self._table.doc_first, self._row, side="right")) - 1

    def eager(self) -> Chunk:
        """The same chunk with every field read: a plain ``Chunk``."""
        return self._table[self._row]

    def __eq__(self, other: object) -> bool:
        # tried before Chunk's own __eq__ (which wants the same class) on either side of ==
        if isinstance(other, StoredChunk) and other._table is self._table:
            return other._row == self._row
        return self.eager() == other if isinstance(other, Chunk) else NotImplemented

    __hash__ = Chunk.__hash__

    def __repr__(self) -> str:
        return repr(self.eager())

    def __reduce__(self) -> tuple[type[Chunk], tuple]:
        eager = self.eager()
        return Chunk, (eager.id, eager.doc_id, eager.index, eager.start, eager.end, eager.text, eager.start_word)


_TABLE, _ROW = StoredChunk.__dict__["_table"], StoredChunk.__dict__["_row"]
