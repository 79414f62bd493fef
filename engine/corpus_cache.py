"""A JSONL corpus kept in the cache as memory-mapped columns, checked against its source on every open.

The format is described in ``engine/cache.py``'s docstring, beside the term
index's. Only BEIR folders and lone .jsonl files of at least ``MIN_BYTES`` are
kept: smaller ones parse faster than a cache is checked, and a folder of text
files is many sources with no records to map.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from itertools import islice
from operator import attrgetter
from dataclasses import replace
from pathlib import Path

import numpy as np

from ranklens.engine.cache import cache_root, mapped
from ranklens.engine.corpus import Chunk, Corpus, Document, Question
from ranklens.engine.errors import Cancelled
from ranklens.engine.progress import Progress, no_progress
from ranklens.engine.sources import FORMAT, MIN_BYTES, fingerprint, kept_size
from ranklens.engine.tables import ChunkTable, DocumentTable, TextColumn, map_file

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

    def save(self, path: Path, corpus: Corpus, sources: list[dict], progress: Progress = no_progress) -> Corpus:
        """``corpus`` written to the cache and opened from it; ``corpus`` itself (with a warning) when that fails."""
        final = self.folder(path)
        staging: Path | None = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=self.root))
            manifest = _write(staging, corpus, sources, progress)
            shutil.rmtree(final, ignore_errors=True)  # a stale entry of the same source
            os.replace(staging, final)
            return _read(final, manifest, corpus.name, corpus.source)
        except (OSError, TypeError, ValueError) as error:  # a full disk, a read-only cache, unusual settings
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            reason = getattr(error, "strerror", None) or error
            return replace(corpus, warnings=(*corpus.warnings, f"could not cache the corpus in {self.root}: {reason}"))
        except Cancelled:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            raise


def _changed(recorded: list[dict], current: list[dict]) -> str:
    """The first source whose name, size or content differs ("" when none does)."""
    if [s["name"] for s in recorded] != [s["name"] for s in current]:
        return "the set of files"
    for old, new in zip(recorded, current):
        if old["size"] != new["size"] or old.get("sha1") != new.get("sha1"):
            return old["name"]
    return ""


def _write(folder: Path, corpus: Corpus, sources: list[dict], progress: Progress) -> dict:
    documents, chunks = corpus.documents, corpus.chunks
    doc_first = _document_rows(documents, chunks)
    spans = np.fromiter(map(attrgetter("start", "end", "start_word"), chunks), dtype=np.dtype((np.int64, 3)),
                        count=len(chunks)).reshape(len(chunks), 3)
    sizes = {
        "texts": _write_column(folder, "texts", map(attrgetter("text"), chunks), progress, len(chunks)),
        "ids": _write_column(folder, "ids", map(attrgetter("id"), chunks)),
        "doc_ids": _write_column(folder, "doc_ids", map(attrgetter("id"), documents)),
        "titles": _write_column(folder, "titles", map(attrgetter("title"), documents)),
    }
    ids = [d.id for d in documents]
    order = np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    for name, array in (("doc_first", doc_first), ("spans", spans), ("doc_order", order)):
        np.save(folder / f"{name}.npy", array, allow_pickle=False)
    questions = [{"id": q.id, "text": q.text, "relevant": dict(q.relevant), "answer": q.answer,
                  "nonrelevant": sorted(q.nonrelevant), "fields": dict(q.fields)} for q in corpus.questions]
    (folder / "questions.json").write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    manifest = {
        "format": FORMAT, "sources": sources, "fingerprint": fingerprint(sources),
        "settings": dict(corpus.settings), "warnings": list(corpus.warnings),
        "language_detected": corpus.language_detected, "columns": sizes,
        "files": {p.name: p.stat().st_size for p in sorted(folder.iterdir())},
    }
    # the manifest last: an entry without one is never read
    (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    return manifest


def _document_rows(documents: Sequence[Document], chunks: Sequence[Chunk]) -> np.ndarray:
    """Each document's first chunk row, then the number of chunks; a ValueError unless the chunks
    come grouped by document, in document order."""
    owners = np.array(list(map(attrgetter("doc_id"), chunks)), dtype=object)
    ids = np.array(list(map(attrgetter("id"), documents)), dtype=object)
    first = np.flatnonzero(np.concatenate([[owners.size > 0], owners[1:] != owners[:-1]]))
    if first.size != ids.size or np.any(owners[first] != ids):
        raise ValueError("chunks out of document order")
    return np.append(first, len(chunks)).astype(np.int64)


def _write_column(folder: Path, name: str, values: Iterable[str], progress: Progress = no_progress,
                  total: int = 0) -> int:
    """The strings as one UTF-8 blob (``NAME.bin``) and their offsets (``NAME_offsets.npy``); their count.
    ``progress`` hears of every ``_BATCH`` written, out of ``total``."""
    sizes: list[int] = []
    with (folder / f"{name}.bin").open("wb") as out:
        encoded = map(str.encode, values)
        for batch in iter(lambda: list(islice(encoded, _BATCH)), []):
            progress(len(sizes), total, "caching the corpus")
            out.write(b"".join(batch))
            sizes.extend(map(len, batch))
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    np.save(folder / f"{name}_offsets.npy", offsets, allow_pickle=False)
    return len(sizes)


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
