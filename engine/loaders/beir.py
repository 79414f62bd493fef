"""A BEIR ``corpus.jsonl`` (or a lone .jsonl file): one chunk per record, one document per record or "doc" group."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens.engine.corpus import Chunk, Document
from ranklens.engine.loaders.jsonl import jsonl, record_id, string_field
from ranklens.engine.progress import Progress


@dataclass(slots=True)
class _Record:
    id: str
    title: str
    text: str
    group: str  # the raw document the record belongs to: its "doc" key, else its own id


def _read_records(path: Path, warnings: list[str], progress: Progress) -> list[_Record]:
    records: list[_Record] = []
    seen: set[str] = set()
    for lineno, record in jsonl(path, warnings, progress):
        ident = record_id(record, seen, path, lineno)
        group = string_field(record, "doc", path, lineno) or ident
        title = string_field(record, "title", path, lineno)
        records.append(_Record(ident, title, string_field(record, "text", path, lineno, required=True), group))
    return records


def load_beir_corpus(
    path: Path, warnings: list[str], progress: Progress
) -> tuple[list[Document], list[Chunk], bool]:
    """One document per record, or per "doc" value when records share one; one chunk per record.

    The flag says whether any record has a title of its own (an untitled group of passages
    is named after its "doc" key, which is not a title worth indexing).
    """
    groups: dict[str, list[_Record]] = {}
    titled = False
    for record in _read_records(path, warnings, progress):
        groups.setdefault(record.group, []).append(record)
        titled = titled or bool(record.title.strip())
    documents: list[Document] = []
    chunks: list[Chunk] = []
    for group, members in groups.items():
        document, parts = _join(group, members)
        documents.append(document)
        chunks.extend(parts)
    return documents, chunks, titled


def beir_settings(settings: Mapping[str, Any], titled: bool) -> dict[str, Any]:
    """A titled BEIR corpus indexes title + text, as BEIR's published baselines do,
    unless its ranklens.toml sets ``index_title``."""
    if not titled or "index_title" in settings:
        return dict(settings)
    return {**settings, "index_title": True}


def _join(group: str, members: list[_Record]) -> tuple[Document, list[Chunk]]:
    """The raw document made of ``members``' texts, one space apart, and a chunk per member."""
    chunks: list[Chunk] = []
    start = start_word = 0
    for index, record in enumerate(members):
        end = start + len(record.text)
        chunks.append(Chunk(record.id, group, index, start, end, record.text, start_word))
        start = end + 1
        if len(members) > 1:  # a lone record starts at word 0; skip counting big texts for nothing
            start_word += len(record.text.split())
    # A raw document assembled from passages is named after its "doc" key when untitled.
    title = members[0].title or (group if len(members) > 1 else "")
    text = members[0].text if len(members) == 1 else " ".join(r.text for r in members)
    return Document(group, title, text), chunks
