"""A folder of documents: text, Markdown, HTML, PDF, Word, PowerPoint and CSV files (``formats``: one reader each).

A file is a document (a table file a document per row), with the file it came
from and, where its reader knows them, its pages and headings. Hidden files and
folders and the corpus' own files (ranklens.toml, queries.jsonl, qrels/, a stop
list) are not documents. Every other file is either read or said: files of
kinds no reader reads are counted by suffix in one line ("skipped 3 files: 2
.xlsx, 1 .zip"); a binary, unreadable, broken, encrypted or scanned file is one
line naming it; a format whose package is missing is one line naming the extra.
Slow formats' extractions are kept in the cache per file digest
(``extraction_cache``): an unchanged folder re-opens without parsing them again.
"""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path, PurePosixPath

from ranklens.engine.corpus import Document
from ranklens.engine.corpus.loaders.extraction_cache import ExtractionCache
from ranklens.engine.corpus.loaders.formats import Extracted, Format, Unreadable, format_of
from ranklens.engine.corpus.loaders.formats.encoding import marked_encoding
from ranklens.engine.corpus.loaders.reading import require_regular, valid_unicode
from ranklens.engine.work.progress import Progress

_PROGRESS_FILES = 100
_BINARY_PROBE = 8192  # a NUL byte in this many leading bytes marks a text file as binary
_CORPUS_FILES = frozenset({"ranklens.toml", "queries.jsonl"})  # at the folder's top, with the qrels/ folder
_SKIPPED_KINDS = 4  # suffixes named in the line of skipped files, the others counted together


def load_text_folder(folder: Path, skip: set[Path], warnings: list[str], progress: Progress,
                     cache: ExtractionCache | None = None) -> list[Document]:
    """The documents of the folder's files (none of ``skip``); no chunks, since the setup's chunker cuts raw
    documents. ``cache`` keeps slow formats' extractions (None: every file is read afresh, nothing written)."""
    found, others = _document_files(folder, warnings)
    # realpath, not Path.resolve: a file link in a loop raises RuntimeError there, and is skipped when read
    paths = [(p, spec) for p, spec in found if Path(os.path.realpath(p)) not in skip]
    documents: list[Document] = []
    ids: set[str] = set()
    missing: Counter[Format] = Counter()
    for done, (path, spec) in enumerate(paths):
        if done % _PROGRESS_FILES == 0 or spec.kept:  # a slow format's file: told (and cancellable) one by one
            progress(done, len(paths), "loading")
        name = valid_unicode(path.relative_to(folder).as_posix())  # undecodable bytes in a name
        try:
            extracted = _extracted(path, name, spec, warnings, cache)
        except ImportError:
            missing[spec] += 1
            continue
        for part in extracted:
            document = _document(part, name)
            if document.id in ids:
                warnings.append(f"{name}: document id {document.id} already used, left out")
                continue
            ids.add(document.id)
            documents.append(document)
    if others:
        warnings.append(_skipped_line(others))
    warnings.extend(f"skipped {count} {spec.name} file{'s' * (count > 1)}: reading them needs {spec.requires}; "
                    f"pip install 'ranklens[{spec.extra}]'" for spec, count in missing.items())
    return documents


def _document_files(folder: Path, warnings: list[str]) -> tuple[list[tuple[Path, Format]], Counter[str]]:
    """The files a reader reads under ``folder`` (sorted, with their format) and the suffixes of the others,
    skipping hidden files and folders (.git and the like) and the corpus' own files."""

    def unreadable(error: OSError) -> None:
        if Path(error.filename) == folder:
            raise error
        name = Path(error.filename).relative_to(folder).as_posix()
        warnings.append(f"skipped unreadable folder {name}: {error.strerror or error}")

    found: list[tuple[Path, Format]] = []
    others: Counter[str] = Counter()
    for root, dirs, files in os.walk(folder, onerror=unreadable):
        top = Path(root) == folder
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (top and d == "qrels"))
        for name in sorted(files):
            if name.startswith(".") or (top and name in _CORPUS_FILES):
                continue
            spec = format_of(name)
            if spec is None:
                others[PurePosixPath(name.lower()).suffix or "(no suffix)"] += 1
            else:
                found.append((Path(root) / name, spec))
    return found, others


def _skipped_line(others: Counter[str]) -> str:
    kinds = others.most_common()
    named = [f"{count} {suffix}" for suffix, count in kinds[:_SKIPPED_KINDS]]
    rest = sum(count for _, count in kinds[_SKIPPED_KINDS:])
    if rest:
        named.append(f"{rest} other")
    total = sum(others.values())
    return f"skipped {total} file{'s' * (total > 1)} of kinds no reader reads: {', '.join(named)}"


def _extracted(path: Path, name: str, spec: Format, warnings: list[str],
               cache: ExtractionCache | None) -> list[Extracted]:
    """The file's documents as its reader makes them; none, with a line in ``warnings``, for a file that cannot
    be read. ImportError when the reader's package is missing."""
    try:
        require_regular(path)
        with path.open("rb") as handle:
            head = handle.read(_BINARY_PROBE)
            if not spec.binary and marked_encoding(head) is None and b"\0" in head:
                warnings.append(f"skipped binary file {name}")  # decided before reading the rest of a big binary
                return []
            data = head + handle.read()
    except OSError as error:
        warnings.append(f"skipped unreadable file {name}: {error.strerror or error}")
        return []
    key = cache.key(spec, data) if cache is not None and spec.kept else ""
    kept = cache.get(key, name) if cache is not None and key else None
    if kept is not None:
        documents, notes = kept
    else:
        read = spec.reader()
        notes = []
        try:
            documents = read(data, name, notes)
        except Unreadable as why:
            warnings.append(f"skipped {name}: {why}")
            return []
        if cache is not None and key:
            cache.put(key, name, documents, notes)
    warnings.extend(notes)
    return documents


def _document(part: Extracted, name: str) -> Document:
    doc_id = valid_unicode(part.key) if part.key else name
    title = valid_unicode(part.title) if part.title else PurePosixPath(name).stem if not part.key else ""
    return Document(doc_id, title, valid_unicode(part.text), part.headings, part.pages, name)
