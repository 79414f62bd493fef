"""Corpora written to disk for a test, and what a folder holds (to prove nothing was written into it)."""
from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

# The smallest BEIR corpus with a distinct word per document.
DOCS = [{"_id": "a", "title": "A", "text": "the red apple"}, {"_id": "b", "title": "B", "text": "a green pear"}]


def listing(folder: Path) -> list[tuple[str, int, int]]:
    """Every path under ``folder`` with its size and modification time."""
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")
    )


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def text_folder(folder: Path, files: dict[str, bytes | str]) -> Path:
    """A folder of text files; str contents are written as UTF-8, bytes as they are."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return folder


def beir_folder(folder: Path, records: list[dict], queries: list[dict] = (), qrels: str = "",
                toml: str = "") -> Path:
    """A BEIR folder; the optional files only when given."""
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "corpus.jsonl", records)
    if queries:
        write_jsonl(folder / "queries.jsonl", list(queries))
    if qrels:
        (folder / "qrels").mkdir(exist_ok=True)
        (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + qrels, encoding="utf-8")
    if toml:
        (folder / "ranklens.toml").write_text(toml, encoding="utf-8")
    return folder


def deny_open(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """Opening ``target`` fails as a file without read permission does (read_bytes opens too)."""
    real_open = Path.open

    def guarded(self: Path, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if self == target:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)
