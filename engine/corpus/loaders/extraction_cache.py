"""Text extracted from a folder's slow formats (PDF, Word, PowerPoint, HTML) kept per file digest.

An entry is a JSON file named by the reader's module and version and the BLAKE2b
digest of the file's bytes: a file is extracted again only when its bytes (or its
reader) changed, wherever it lies and whatever its time stamp. Entries are written
whole (a temporary file renamed into place); one that cannot be read or written is
read again from the file, silently, since the cache only saves time.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ranklens.engine.corpus.loaders.formats import Extracted, Format

_FOLDER = "extracted"


class ExtractionCache:
    """Extractions under ``root``'s ``extracted`` folder (``root``: the user's cache folder)."""

    def __init__(self, root: Path) -> None:
        self.folder = root / _FOLDER

    def key(self, spec: Format, data: bytes) -> str:
        return f"{spec.module}-{spec.version}-{hashlib.blake2b(data, digest_size=20).hexdigest()}"

    def get(self, key: str, name: str) -> tuple[list[Extracted], list[str]] | None:
        """(the documents, the notes about file ``name``) kept under ``key``; None without a readable entry."""
        try:
            entry = json.loads((self.folder / key[-2:] / f"{key}.json").read_bytes())
            documents = [Extracted(title, text, tuple(map(tuple, headings)), tuple(pages), doc_key)
                         for title, text, headings, pages, doc_key in entry["documents"]]
            return documents, [f"{name}: {note}" for note in entry["notes"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, name: str, documents: list[Extracted], notes: list[str]) -> None:
        """Keeps ``documents`` and the ``notes`` about file ``name`` (stored without its name: a copy of the
        file under another name finds them too)."""
        entry = {"documents": [[d.title, d.text, d.headings, d.pages, d.key] for d in documents],
                 "notes": [note.removeprefix(f"{name}: ") for note in notes]}
        path = self.folder / key[-2:] / f"{key}.json"
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, path)
        except (OSError, ValueError):
            temporary.unlink(missing_ok=True)
