"""A BEIR ``corpus.jsonl`` (or a lone .jsonl file): one chunk per record, one document per record or "doc" group."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

from ranklens.engine.corpus import Chunk, Document
from ranklens.engine.work.gc_pause import gc_paused
from ranklens.engine.corpus.loaders.jsonl import jsonl_blocks, record_id, string_field
from ranklens.engine.work.progress import Progress


@dataclass
class Records:
    """A file's records as columns, in file order: a million records are four lists, not a million objects."""

    ids: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # the raw document of each: its "doc" key, else its own id
    grouped: bool = False  # whether any record names a "doc": else every record is a document of its own


def load_beir_blocks(path: Path, warnings: list[str], progress: Progress, seen: set[str]) -> Iterator[Records]:
    """The file's records a block at a time, each block's columns in file order; ``seen`` gathers
    every id (checked unique across the file)."""
    for linenos, block in jsonl_blocks(path, warnings, progress):
        records = _common_records(block, seen)
        yield records if records is not None else _checked_records(path, linenos, block, seen)


def _common_records(block: list[dict[str, Any]], seen: set[str]) -> Records | None:
    """The block's columns when every record is the common one, checked column by column: string fields,
    new ids, no "doc"; None when any is not (the block is then checked record by record)."""
    ids: list[Any] = [record.get("_id") for record in block]  # strings once checked below
    titles = [record.get("title", "") for record in block]
    texts: list[Any] = [record.get("text") for record in block]
    if not block or {*map(type, ids), *map(type, titles), *map(type, texts)} != {str} \
            or any(map(dict.__contains__, block, repeat("doc"))):
        return None
    fresh = set(ids)
    if len(fresh) != len(ids) or not seen.isdisjoint(fresh):  # a repeated id: named below, with its line
        return None
    seen |= fresh
    return Records(ids, titles, texts, ids)


def _checked_records(path: Path, linenos: Sequence[int], block: list[dict[str, Any]], seen: set[str]) -> Records:
    records = Records()
    ids, titles, texts, groups = records.ids, records.titles, records.texts, records.groups
    for lineno, record in zip(linenos, block):
        ident = record_id(record, seen, path, lineno)
        group = string_field(record, "doc", path, lineno) or ident
        title = string_field(record, "title", path, lineno)
        text = string_field(record, "text", path, lineno, required=True)
        records.grouped = records.grouped or group != ident
        ids.append(ident)
        titles.append(title)
        texts.append(text)
        groups.append(group)
    return records


def _read_records(path: Path, warnings: list[str], progress: Progress) -> Records:
    whole = Records()
    for block in load_beir_blocks(path, warnings, progress, set()):
        for column in ("ids", "titles", "texts", "groups"):
            getattr(whole, column).extend(getattr(block, column))
        whole.grouped = whole.grouped or block.grouped
    return whole


def load_beir_corpus(
    path: Path, warnings: list[str], progress: Progress
) -> tuple[list[Document], list[Chunk], bool]:
    """One document per record, or per "doc" value when records share one; one chunk per record.

    The flag says whether any record has a title of its own (an untitled group of passages
    is named after its "doc" key, which is not a title worth indexing).
    """
    with gc_paused():  # millions of records, documents and chunks, none in a cycle
        records = _read_records(path, warnings, progress)
        titled = any(map(str.strip, records.titles))
        if not records.grouped:
            # a record alone is its document, its chunk the whole text (what ``_join`` makes of one member)
            documents = list(map(Document, records.ids, records.titles, records.texts))
            chunks = list(map(Chunk, records.ids, records.ids, repeat(0), repeat(0), map(len, records.texts),
                              records.texts))
            return documents, chunks, titled
        members: dict[str, list[int]] = {}
        for row, group in enumerate(records.groups):
            members.setdefault(group, []).append(row)
        documents, chunks = [], []
        for group, rows in members.items():
            document, parts = _join(group, records, rows)
            documents.append(document)
            chunks.extend(parts)
        return documents, chunks, titled


def beir_settings(settings: Mapping[str, Any], titled: bool) -> dict[str, Any]:
    """A titled BEIR corpus indexes title + text, as BEIR's published baselines do,
    unless its ranklens.toml sets ``index_title``."""
    if not titled or "index_title" in settings:
        return dict(settings)
    return {**settings, "index_title": True}


def _join(group: str, records: Records, rows: list[int]) -> tuple[Document, list[Chunk]]:
    """The raw document made of the texts of ``records``' ``rows``, one space apart, and a chunk per row."""
    texts = [records.texts[row] for row in rows]
    chunks: list[Chunk] = []
    start = start_word = 0
    for index, (row, text) in enumerate(zip(rows, texts)):
        end = start + len(text)
        chunks.append(Chunk(records.ids[row], group, index, start, end, text, start_word))
        start = end + 1
        if len(rows) > 1:  # a lone record starts at word 0; skip counting big texts for nothing
            start_word += len(text.split())
    # A raw document assembled from passages is named after its "doc" key when untitled.
    title = records.titles[rows[0]] or (group if len(rows) > 1 else "")
    return Document(group, title, texts[0] if len(rows) == 1 else " ".join(texts)), chunks
