"""A JSONL corpus kept in the cache as memory-mapped columns, checked against its source on every open.

The format is described in ``engine/storage/cache.py``'s docstring, beside the term
index's. Only BEIR folders and lone .jsonl files of at least ``MIN_BYTES`` are
kept: smaller ones parse faster than a cache is checked, and a folder of text
files is many sources with no records to map.

Records that are each a document of their own (the common BEIR file) are written into
the entry as they are read, a block at a time (``CorpusWriter.add``): no ``Chunk`` or
``Document`` is made for them and no block is held once written. Records grouped into
documents by a "doc" key are read whole and written from the corpus (``finish_with``).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from operator import attrgetter
from dataclasses import replace
from pathlib import Path

import numpy as np

from ranklens.engine.storage.cache import cache_root, mapped, save_array
from ranklens.engine.corpus import Chunk, Corpus, Document, Question
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.corpus.sources import FORMAT, MIN_BYTES, fingerprint, kept_size
from ranklens.engine.storage.staging import reason, staging_folder
from ranklens.engine.corpus.tables import ChunkTable, DocumentTable, TextColumn, map_file

_COLUMNS = ("texts", "ids", "doc_ids", "titles")  # UTF-8 blobs, each with its offsets
_ARRAYS = ("doc_first", "spans", "doc_order")
_BATCH = 10_000  # texts encoded and written at once


class CorpusCache:
    """Corpora kept under ``root`` (the user's cache folder), one entry per source path."""

    def __init__(self, root: Path | None = None, min_bytes: int = MIN_BYTES) -> None:
        self.root = root or cache_root()
        self.min_bytes = min_bytes

    def applies(self, path: Path) -> bool:
        """Whether the corpus at ``path`` is one this cache keeps (records in a big enough JSONL file)."""
        return kept_size(path, self.min_bytes)

    def folder(self, path: Path) -> Path:
        key = hashlib.blake2b(f"{FORMAT}\0{path.resolve()}".encode("utf-8", "surrogateescape"), digest_size=16)
        return self.root / f"corpus-{key.hexdigest()}"

    def open(self, path: Path, name: str, sources: list[dict]) -> tuple[Corpus | None, str]:
        """(the cached corpus, "") when its entry was built from exactly ``sources``; else (None, why not)."""
        folder = self.folder(path)
        if not (folder / "manifest.json").is_file():
            return None, ""
        try:
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            if manifest.get("format") != FORMAT:
                return None, f"{path.name}: cached by another version of ranklens; read again"
            changed = _changed(manifest["sources"], sources)
            if changed:
                return None, f"{path.name}: {changed} changed since it was cached; read again and re-indexed"
            return _read(folder, manifest, name, str(path)), ""
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as error:
            return None, f"{path.name}: corpus cache unreadable ({error}); read again"

    def holds(self, path: Path) -> bool:
        """Whether an entry for ``path`` is there (built from its sources or not: ``open`` checks)."""
        return (self.folder(path) / "manifest.json").is_file()

    def save(self, path: Path, corpus: Corpus, sources: list[dict], progress: Progress = no_progress) -> Corpus:
        """``corpus`` written to the cache and opened from it; ``corpus`` itself (with a warning) when that fails."""
        try:
            with self.writer(path, lambda: sources) as writer:
                return writer.finish_with(corpus, progress)
        except (OSError, TypeError, ValueError) as error:  # a full disk, a read-only cache, unusual settings
            why = reason(error) if isinstance(error, OSError) else error
            return replace(corpus, warnings=(*corpus.warnings, f"could not cache the corpus in {self.root}: {why}"))

    def writer(self, path: Path, sources: Callable[[], list[dict]]) -> CorpusWriter:
        """A writer of the entry for ``path``, read from the files ``sources()`` describes (asked for when the
        entry is committed: the digests may be computing while the records stream in)."""
        return CorpusWriter(self.root, self.folder(path), sources)


class CorpusWriter:
    """One cache entry being written, in a staging folder renamed into place by ``finish``.

    Records stream in through ``add`` (one chunk per record, each its own document): no object is made
    per record and no block is held once written. ``finish_with`` writes a whole ``Corpus`` instead.
    Use as a context manager: leaving it unfinished (an error, a cancel) removes the staging folder.
    """

    def __init__(self, root: Path, final: Path, sources: Callable[[], list[dict]]) -> None:
        self.root, self.final, self.sources = root, final, sources
        self.staging: Path | None = None
        self.columns: dict[str, _Column] = {}
        self.lengths: list[np.ndarray] = []  # characters of each text added
        self.rows = 0

    def __enter__(self) -> CorpusWriter:
        self.staging = staging_folder(self.root, self.final.name)
        try:
            for name in _COLUMNS:
                self.columns[name] = _Column(self.staging, name)
        except OSError:  # no file can be made there (a disk out of inodes): no staging folder left
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for column in self.columns.values():
            column.out.close()
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)

    def add(self, ids: Sequence[str], titles: Sequence[str], texts: Sequence[str]) -> None:
        """Records, each a document of one chunk: its id, title and text."""
        for name, values in (("texts", texts), ("ids", ids), ("doc_ids", ids), ("titles", titles)):
            self.columns[name].add(values)
        self.lengths.append(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
        self.rows += len(ids)

    def finish(self, name: str, source: str, questions: Sequence[Question], settings: dict, warnings: Sequence[str],
               language_detected: bool) -> Corpus:
        """The records added, with these questions and settings, put in place and opened from the cache."""
        lengths = np.concatenate(self.lengths) if self.lengths else np.zeros(0, dtype=np.int64)
        spans = np.zeros((self.rows, 3), dtype=np.int64)
        spans[:, 1] = lengths
        sizes = {column: self.columns[column].close() for column in _COLUMNS}
        arrays = {"doc_first": np.arange(self.rows + 1, dtype=np.int64), "spans": spans}
        return self._commit(name, source, sizes, arrays, questions,
                            {"settings": dict(settings), "warnings": list(warnings),
                             "language_detected": language_detected})

    def finish_with(self, corpus: Corpus, progress: Progress = no_progress) -> Corpus:
        """``corpus`` written whole (grouped documents too), put in place and opened from the cache."""
        documents, chunks = corpus.documents, corpus.chunks
        doc_first = _document_rows(documents, chunks)
        spans = np.fromiter(map(attrgetter("start", "end", "start_word"), chunks), dtype=np.dtype((np.int64, 3)),
                            count=len(chunks)).reshape(len(chunks), 3)
        sizes = {
            "texts": self.columns["texts"].write_all(map(attrgetter("text"), chunks), progress, len(chunks)),
            "ids": self.columns["ids"].write_all(map(attrgetter("id"), chunks)),
            "doc_ids": self.columns["doc_ids"].write_all(map(attrgetter("id"), documents)),
            "titles": self.columns["titles"].write_all(map(attrgetter("title"), documents)),
        }
        return self._commit(corpus.name, corpus.source, sizes, {"doc_first": doc_first, "spans": spans},
                            corpus.questions,
                            {"settings": dict(corpus.settings), "warnings": list(corpus.warnings),
                             "language_detected": corpus.language_detected})

    def _commit(self, name: str, source: str, sizes: dict[str, int], arrays: dict[str, np.ndarray],
                questions: Sequence[Question], about: dict) -> Corpus:
        folder = self.staging
        assert folder is not None
        ids = TextColumn(map_file(folder / "doc_ids.bin"), mapped(folder / "doc_ids_offsets.npy"))
        for array_name, array in ({**arrays, "doc_order": id_order(ids)}).items():
            save_array(folder / f"{array_name}.npy", array)
        del ids  # its map of a file about to move
        listed = [{"id": q.id, "text": q.text, "relevant": dict(q.relevant), "answer": q.answer,
                   "nonrelevant": sorted(q.nonrelevant), "fields": dict(q.fields)} for q in questions]
        (folder / "questions.json").write_text(json.dumps(listed, ensure_ascii=False), encoding="utf-8")
        sources = self.sources()
        manifest = {"format": FORMAT, "sources": sources, "fingerprint": fingerprint(sources), **about,
                    "columns": sizes, "files": {p.name: p.stat().st_size for p in sorted(folder.iterdir())}}
        # the manifest last: an entry without one is never read
        (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
        shutil.rmtree(self.final, ignore_errors=True)  # a stale entry of the same source
        os.replace(folder, self.final)
        self.staging = None
        return _read(self.final, manifest, name, source)


def _changed(recorded: list[dict], current: list[dict]) -> str:
    """The first source whose name, size or content differs ("" when none does)."""
    if [s["name"] for s in recorded] != [s["name"] for s in current]:
        return "the set of files"
    for old, new in zip(recorded, current):
        if old["size"] != new["size"] or old.get("digest") != new.get("digest"):
            return old["name"]
    return ""


def _document_rows(documents: Sequence[Document], chunks: Sequence[Chunk]) -> np.ndarray:
    """Each document's first chunk row, then the number of chunks; a ValueError unless the chunks
    come grouped by document, in document order."""
    owners = np.array(list(map(attrgetter("doc_id"), chunks)), dtype=object)
    ids = np.array(list(map(attrgetter("id"), documents)), dtype=object)
    first = np.flatnonzero(np.concatenate([[owners.size > 0], owners[1:] != owners[:-1]]))
    if first.size != ids.size or np.any(owners[first] != ids):
        raise ValueError("chunks out of document order")
    return np.append(first, len(chunks)).astype(np.int64)


class _Column:
    """A text column being written: its strings as one UTF-8 blob (``NAME.bin``), a block at a time;
    their offsets (``NAME_offsets.npy``) on ``close``."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self.out = (folder / f"{name}.bin").open("wb")
        self.sizes: list[np.ndarray] = []

    def add(self, strings: Sequence[str]) -> None:
        joined = "".join(strings)
        if joined.isascii():  # a byte a character: no string encoded on its own
            self.out.write(joined.encode("ascii"))
            lengths = map(len, strings)
        else:
            encoded = list(map(str.encode, strings))
            self.out.write(b"".join(encoded))
            lengths = map(len, encoded)
        self.sizes.append(np.fromiter(lengths, dtype=np.int64, count=len(strings)))

    def write_all(self, values: Iterable[str], progress: Progress = no_progress, total: int = 0) -> int:
        """Every one of ``values``, ``_BATCH`` at a time (``progress`` hears of each, out of ``total``); the count."""
        values = iter(values)
        for batch in iter(lambda: list(islice(values, _BATCH)), []):
            progress(sum(map(len, self.sizes)), total, "caching the corpus")
            self.add(batch)
        return self.close()

    def close(self) -> int:
        """The column finished; how many strings it holds."""
        self.out.close()
        sizes = np.concatenate(self.sizes) if self.sizes else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        save_array(self.folder / f"{self.name}_offsets.npy", offsets)
        return sizes.size


_SORT_WIDTH = 64  # ids up to this many bytes are sorted by numpy as fixed-width bytes


def id_order(ids: TextColumn) -> np.ndarray:
    """The rows of ``ids`` in the order of their strings (Python's, by code point).

    UTF-8 keeps code point order byte by byte, so short ids are sorted as fixed-width byte strings; numpy
    would ignore a trailing NUL in them, so ids holding one, or longer ids, are sorted as strings."""
    lengths = np.diff(np.asarray(ids.offsets))
    width = int(lengths.max()) if lengths.size else 0
    if not 0 < width <= _SORT_WIDTH or ids.blob.find(b"\x00") >= 0:
        return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    data = np.frombuffer(ids.blob, dtype=np.uint8)
    starts = np.asarray(ids.offsets[:-1])
    cells = np.zeros((len(ids), width), dtype=np.uint8)
    for j in range(width):  # a column of bytes at a time: no (rows x width) index array
        inside = lengths > j
        cells[inside, j] = data[starts[inside] + j]
    return np.argsort(cells.view(f"S{width}").ravel(), kind="stable").astype(np.int64)


def _read(folder: Path, manifest: dict, name: str, source: str) -> Corpus:
    for file, size in manifest["files"].items():  # a truncated or missing file is found before it is mapped
        if (folder / file).stat().st_size != size:
            raise ValueError(f"{file} has another size than written")
    columns = {c: TextColumn(map_file(folder / f"{c}.bin"),
                             mapped(folder / f"{c}_offsets.npy"))
               for c in _COLUMNS}
    if any(len(columns[c]) != n for c, n in manifest["columns"].items()):
        raise ValueError("columns hold another number of rows than written")
    arrays = {a: mapped(folder / f"{a}.npy") for a in _ARRAYS}
    doc_first = np.asarray(arrays["doc_first"])
    if doc_first.size > 1 and np.any(doc_first[1:] <= doc_first[:-1]):
        raise ValueError("document rows out of order")
    chunks = ChunkTable(columns["texts"], columns["ids"], columns["doc_ids"], doc_first, arrays["spans"])
    documents = DocumentTable(chunks, columns["titles"], arrays["doc_order"])
    questions = tuple(Question(q["id"], q["text"], relevant=q["relevant"], answer=q["answer"],
                               nonrelevant=frozenset(q["nonrelevant"]), fields=q["fields"])
                      for q in json.loads((folder / "questions.json").read_text(encoding="utf-8")))
    return Corpus(name, documents, chunks, questions, settings=manifest["settings"], source=source,
                  warnings=tuple(manifest["warnings"]), language_detected=manifest["language_detected"],
                  fingerprint=manifest["fingerprint"])
