"""A corpus' chunks and documents read from columns on disk, one object made per row asked for.

The corpus cache (``engine/corpus/cache.py``) keeps texts and ids as UTF-8 blobs
with offsets and the chunk layout as integer arrays, all memory-mapped: opening a
million-chunk corpus maps files, and only the rows a caller reads become
``Chunk`` and ``Document`` objects (and resident pages); ``ChunkTable.take`` makes
``StoredChunk``s, which read each field only when it is asked for. ``ChunkTable`` and
``DocumentTable`` behave as the tuples the loaders make: length, indexing
(negative too), slices, iteration, equality of rows.
"""
from __future__ import annotations

import mmap
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar, overload

import numpy as np

from ranklens.engine.corpus import Chunk, Document
from ranklens.engine.corpus.stored_chunk import StoredChunk


def map_file(path: Path) -> mmap.mmap | bytes:
    """The file's bytes, memory-mapped read-only (an empty file, which mmap refuses, as b"")."""
    with path.open("rb") as handle:
        if handle.seek(0, 2) == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


_ITER_RUN = 1 << 10  # strings decoded at once by ``TextColumn.__iter__``
_SCAN_BYTES = 1 << 23  # bytes compared at once by ``TextColumn.rows_of``: bounds its temporaries (about 100 MB)


class TextColumn(Sequence[str]):
    """Strings stored end to end as UTF-8 in ``blob``; string i is ``blob[offsets[i]:offsets[i + 1]]``."""

    def __init__(self, blob: mmap.mmap | bytes, offsets: np.ndarray) -> None:
        if offsets.ndim != 1 or offsets.size < 1 or int(offsets[0]) != 0 or int(offsets[-1]) != len(blob):
            raise ValueError("text offsets do not fit their blob")
        self.blob = blob
        self.offsets = offsets
        # read one at a time, a memoryview's items are Python ints: 3x faster than numpy scalars
        self._bounds = np.ascontiguousarray(offsets).data

    def __len__(self) -> int:
        return self.offsets.size - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1 and stop > start:
                return self._run(start, stop)
            return list(map(self.at, range(start, stop, step)))
        lo, hi = self.offsets[_row(i, len(self)):][:2].tolist()
        return self.blob[lo:hi].decode("utf-8")

    def _run(self, start: int, stop: int) -> list[str]:
        """Strings ``start`` to ``stop``: their bytes decoded at once and cut by offsets when all ASCII
        (where offsets count characters too), twice as fast as decoding each; else one at a time."""
        bounds = self.offsets[start:stop + 1].tolist()
        lo, hi = bounds[0], bounds[-1]
        text = self.blob[lo:hi].decode("utf-8")
        if len(text) != hi - lo:
            return list(map(self.at, range(start, stop)))
        return [text[a - lo:b - lo] for a, b in zip(bounds[:-1], bounds[1:])]

    def at(self, i: int) -> str:
        """String ``i``, for 0 <= i < len(self), which is not checked: a row a table already holds."""
        bounds = self._bounds
        return self.blob[bounds[i]:bounds[i + 1]].decode("utf-8")

    def rows_of(self, wanted: Iterable[str]) -> dict[str, int]:
        """The first row holding each of ``wanted`` that the column holds, found by comparing bytes with
        numpy, ``_SCAN_BYTES`` of rows of one length at a time: no string is made for the rows that do not match
        (an evaluation's judged ids among a million chunk ids)."""
        by_length: dict[int, set[bytes]] = {}
        for text in wanted:
            encoded = text.encode("utf-8", "surrogatepass")
            by_length.setdefault(len(encoded), set()).add(encoded)
        offsets = np.asarray(self.offsets)
        lengths = np.diff(offsets)
        data = np.frombuffer(self.blob, dtype=np.uint8) if len(self.blob) else np.zeros(0, np.uint8)
        found: dict[str, int] = {}
        for length, keys in by_length.items():
            rows = np.flatnonzero(lengths == length)
            if length == 0:
                found.update({"": int(rows[0])} if rows.size else {})
                continue
            # equal-length byte strings are equal when their fixed-width "S" forms are (only trailing NULs drop)
            targets = np.array(sorted(keys), dtype=f"S{length}")
            step = max(1, _SCAN_BYTES // length)
            for start in range(0, rows.size, step):
                part = rows[start:start + step]
                cells = data[offsets[part][:, None] + np.arange(length)].view(f"S{length}").ravel()
                for row in part[np.isin(cells, targets)].tolist():
                    found.setdefault(self.at(row), row)
        return found

    def __iter__(self) -> Iterator[str]:
        # a run at a time: the first strings of a million come without reading every offset
        n = len(self)
        for start in range(0, n, _ITER_RUN):
            yield from self._run(start, min(start + _ITER_RUN, n))


def _row(i: int, n: int) -> int:
    i = int(i)
    if i < 0:
        i += n
    if not 0 <= i < n:
        raise IndexError("row out of range")
    return i


class SortedIds(Mapping[str, int]):
    """id -> row over a ``TextColumn``, by binary search in ``order`` (rows sorted by id): no dict of every id."""

    def __init__(self, ids: TextColumn, order: np.ndarray) -> None:
        if order.shape != (len(ids),):
            raise ValueError("id order does not fit the ids")
        self.ids, self.order = ids, order
        self._rows = np.ascontiguousarray(order).data  # read one at a time: Python ints, 3x faster than numpy's

    def __getitem__(self, key: str) -> int:
        lo, hi = 0, len(self.order)
        rows, ids = self._rows, self.ids
        while lo < hi:
            mid = (lo + hi) // 2
            row = rows[mid]
            value = ids.at(row)  # a row of the column: in range
            if value == key:
                return row
            if value < key:
                lo = mid + 1
            else:
                hi = mid
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


T = TypeVar("T")


class _Rows(Sequence[T]):
    """A sequence of rows made by ``_make(row)``: slices are tuples, equality is row by row, as a tuple's."""

    def __len__(self) -> int:
        raise NotImplementedError

    def _make(self, row: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: int | slice) -> T | tuple[T, ...]:
        if isinstance(i, slice):
            return tuple(self._make(j) for j in range(*i.indices(len(self))))
        return self._make(_row(i, len(self)))

    def __iter__(self) -> Iterator[T]:
        for i in range(len(self)):
            yield self._make(i)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]


class ChunkTable(_Rows[Chunk]):
    """The corpus' own chunks, grouped by document in document order, made on demand."""

    def __init__(self, texts: TextColumn, ids: TextColumn, doc_ids: TextColumn, doc_first: np.ndarray,
                 spans: np.ndarray) -> None:
        # doc_first[d]: the first chunk of document d (and the chunk count at the end);
        # spans: one row per chunk, (start, end, start_word) in its document's text
        n = len(texts)
        if len(ids) != n or spans.shape != (n, 3) or doc_first.shape != (len(doc_ids) + 1,) \
                or int(doc_first[0]) != 0 or int(doc_first[-1]) != n:
            raise ValueError("chunk columns do not fit together")
        self.texts, self.ids, self.doc_ids, self.doc_first, self.spans = texts, ids, doc_ids, doc_first, spans

    def __len__(self) -> int:
        return len(self.texts)

    def _make(self, row: int) -> Chunk:
        doc = int(np.searchsorted(self.doc_first, row, side="right")) - 1
        start, end, start_word = self.spans[row].tolist()
        return Chunk(self.ids[row], self.doc_ids[doc], row - int(self.doc_first[doc]), start, end,
                     self.texts[row], start_word)

    def fields(self, start: int, stop: int) -> tuple[list[str], list[str], list[str]]:
        """(ids, document ids, texts) of rows ``start`` to ``stop``, read from the columns with no chunk made
        (a push reads every chunk's three)."""
        rows = range(start, stop)
        docs = (np.searchsorted(self.doc_first, np.arange(start, stop), side="right") - 1).tolist()
        ids, doc_ids, texts = self.ids, self.doc_ids, self.texts
        return [ids.at(r) for r in rows], [doc_ids.at(d) for d in docs], [texts.at(r) for r in rows]

    def take(self, rows: Sequence[int]) -> list[Chunk]:
        """The chunks at the given positions, each read from the columns field by field as it is asked for
        (``StoredChunk``): a search's hits, of which a caller may read only the ids."""
        n = len(self)
        if rows and type(rows) is list and min(rows) >= 0 and max(rows) < n and all(type(i) is int for i in rows):
            return StoredChunk.of_rows(self, rows)  # a search's rows, checked at once
        return StoredChunk.of_rows(self, [_row(i, n) for i in rows])


def take(chunks: Sequence[Chunk], positions: Sequence[int]) -> list[Chunk]:
    """``[chunks[i] for i in positions]``; from a ``ChunkTable``, chunks that read their fields when asked."""
    return chunks.take(positions) if isinstance(chunks, ChunkTable) else [chunks[i] for i in positions]


class ChunksByDocument(Mapping[str, range]):
    """Document id -> the positions of its chunks, in document order, read from a ``ChunkTable``'s columns."""

    def __init__(self, chunks: ChunkTable, id_order: np.ndarray) -> None:
        self.chunks = chunks
        self.rows = SortedIds(chunks.doc_ids, id_order)

    def __getitem__(self, key: str) -> range:
        row = self.rows[key]
        first, last = self.chunks.doc_first[row:row + 2].tolist()
        return range(first, last)

    def __contains__(self, key: object) -> bool:
        return key in self.rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.chunks.doc_ids)

    def __len__(self) -> int:
        return len(self.chunks.doc_ids)

    def items(self) -> ItemsView[str, range]:
        """(id, positions) in document order, read row by row: no id looked up."""
        return _RowItems(self)


class _RowItems(ItemsView[str, range]):
    _mapping: ChunksByDocument

    def __iter__(self) -> Iterator[tuple[str, range]]:
        first = self._mapping.chunks.doc_first
        for row, doc_id in enumerate(self._mapping.chunks.doc_ids):
            start, stop = first[row:row + 2].tolist()
            yield doc_id, range(start, stop)


class DocumentTable(_Rows[Document]):
    """The corpus' documents; a document's text is its chunks' texts one space apart."""

    def __init__(self, chunks: ChunkTable, titles: TextColumn, id_order: np.ndarray) -> None:
        if len(titles) != len(chunks.doc_ids):
            raise ValueError("document columns do not fit together")
        self.chunks, self.titles = chunks, titles
        self.by_id = SortedIds(chunks.doc_ids, id_order)

    def __len__(self) -> int:
        return len(self.titles)

    def _make(self, row: int) -> Document:
        first, last = self.chunks.doc_first[row:row + 2].tolist()
        texts = self.chunks.texts
        text = texts[first] if last - first == 1 else " ".join(texts[c] for c in range(first, last))
        return Document(self.chunks.doc_ids[row], self.titles[row], text)

    def mapping(self) -> Mapping[str, Document]:
        """id -> document, looked up by binary search."""
        return _DocumentsById(self)

    def chunks_by_document(self) -> ChunksByDocument:
        """id -> the positions of the document's chunks, with no list made per document."""
        return ChunksByDocument(self.chunks, self.by_id.order)


class _DocumentsById(Mapping[str, Document]):
    def __init__(self, table: DocumentTable) -> None:
        self.table = table

    def __getitem__(self, key: str) -> Document:
        return self.table[self.table.by_id[key]]

    def __contains__(self, key: object) -> bool:
        return key in self.table.by_id

    def __iter__(self) -> Iterator[str]:
        return iter(self.table.by_id)

    def __len__(self) -> int:
        return len(self.table)


def index_texts(documents: DocumentTable, with_title: bool) -> Sequence[str]:
    """Each chunk's text as indexed, read from the columns as it is asked for: its document's title first
    when ``with_title`` and it has one (``Workbench.index_texts``' rule), no ``Chunk`` and no list of every
    text made."""
    if not with_title or not len(documents.titles.blob):
        return documents.chunks.texts
    return _TitledTexts(documents)


class _TitledTexts(Sequence[str]):
    def __init__(self, documents: DocumentTable) -> None:
        self.texts, self.titles, self.doc_first = documents.chunks.texts, documents.titles, documents.chunks.doc_first

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        rows = range(*i.indices(len(self))) if isinstance(i, slice) else [_row(i, len(self))]
        docs = (np.searchsorted(self.doc_first, np.asarray(rows), side="right") - 1).tolist()
        texts, titles = self.texts, self.titles
        out = [f"{title} {texts.at(r)}" if (title := titles.at(d)) else texts.at(r) for r, d in zip(rows, docs)]
        return out if isinstance(i, slice) else out[0]
