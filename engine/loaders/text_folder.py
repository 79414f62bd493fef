"""A folder of .txt and .md files: one document per file, titled by its first markdown heading.

Hidden files and folders are skipped; a binary, unreadable or non-regular file
is skipped with a warning, invalid UTF-8 is repaired with one. Text is UTF-8 unless
a byte order mark says UTF-16 or UTF-32 (what Windows editors save as "Unicode").
"""
from __future__ import annotations

import codecs
import os
import re
from pathlib import Path

from ranklens.engine.corpus import Document
from ranklens.engine.loaders.reading import require_regular, valid_unicode
from ranklens.engine.progress import Progress

TEXT_SUFFIXES = (".txt", ".md")
_PROGRESS_FILES = 100
_BINARY_PROBE = 8192  # a NUL byte in this many leading bytes marks a file as binary
_TITLE = re.compile(r"^# (.*)$", re.MULTILINE)  # a markdown level-1 heading, found without splitting lines
# (byte order mark, the codec that reads past it, its name): UTF-32 LE's mark first, since it begins with UTF-16 LE's
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"), (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"), (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
_UTF8 = ("utf-8-sig", "UTF-8")  # with or without its mark


def load_text_folder(folder: Path, skip: set[Path], warnings: list[str], progress: Progress) -> list[Document]:
    """One document per file (none of ``skip``); no chunks, since the setup's chunker cuts raw documents."""
    # realpath, not Path.resolve: a file link in a loop raises RuntimeError there, and is skipped when read
    paths = [p for p in _text_files(folder, warnings) if Path(os.path.realpath(p)) not in skip]
    documents: list[Document] = []
    for done, path in enumerate(paths):
        if done % _PROGRESS_FILES == 0:
            progress(done, len(paths), "loading")
        document = _read_text_document(path, folder, warnings)
        if document is not None:
            documents.append(document)
    return documents


def _text_files(folder: Path, warnings: list[str]) -> list[Path]:
    """Text files under ``folder``, sorted, skipping hidden files and folders (.git and the like)."""

    def unreadable(error: OSError) -> None:
        if Path(error.filename) == folder:
            raise error
        name = Path(error.filename).relative_to(folder).as_posix()
        warnings.append(f"skipped unreadable folder {name}: {error.strerror or error}")

    found: list[Path] = []
    for root, dirs, files in os.walk(folder, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(
            Path(root) / name
            for name in sorted(files)
            if not name.startswith(".") and name.lower().endswith(TEXT_SUFFIXES)
        )
    return found


def _read_text_document(path: Path, folder: Path, warnings: list[str]) -> Document | None:
    """The file as a document; None, with a warning, for a binary or unreadable file."""
    doc_id = valid_unicode(path.relative_to(folder).as_posix())  # undecodable bytes in a name
    try:
        require_regular(path)
        with path.open("rb") as handle:
            head = handle.read(_BINARY_PROBE)
            marked = _marked_encoding(head)
            if marked is None and b"\0" in head:  # decided before reading the rest of a big binary
                warnings.append(f"skipped binary file {doc_id}")
                return None
            handle.seek(0)
            data = handle.read()
    except OSError as error:
        warnings.append(f"skipped unreadable file {doc_id}: {error.strerror or error}")
        return None
    codec, encoding = marked or _UTF8
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
        warnings.append(f"{doc_id}: not valid {encoding}, bad bytes replaced")
    return Document(doc_id, _title(text) or valid_unicode(path.stem), text)


def _marked_encoding(head: bytes) -> tuple[str, str] | None:
    """(codec, name) of UTF-16 or UTF-32 text starting with ``head``, by its byte order mark; None without one."""
    return next(((codec, name) for mark, codec, name in _MARKS if head.startswith(mark)), None)


def _title(text: str) -> str:
    """The first markdown level-1 heading ("# Title"), if any."""
    match = _TITLE.search(text)
    return match.group(1).strip().rstrip("#").strip() if match else ""
