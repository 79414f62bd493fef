"""JSON Lines as a corpus writes them: one object a line, streamed, every mistake named by file and line.

Invalid UTF-8 and lone surrogate escapes are repaired and counted in the
caller's warnings; anything else that is not one JSON object a line is a
``RanklensError`` naming ``file:line``.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import orjson

from ranklens.engine.errors import RanklensError
from ranklens.engine.storage.json_object import parse_object
from ranklens.engine.corpus.loaders.reading import reading, valid_unicode
from ranklens.engine.work.progress import Progress

_BLOCK_BYTES = 4 << 20  # lines read, decoded and checked at once
# Only a \u escape can put a surrogate into a line decoded from UTF-8; paired ones are joined by json.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Values orjson reads as json.loads does: an integer beyond 64 bits becomes a float, never an int
_EXACT = frozenset({str, int, bool, type(None)})


def jsonl(path: Path, warnings: list[str], progress: Progress) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line, streamed so big files are read once."""
    for linenos, records in jsonl_blocks(path, warnings, progress):
        yield from zip(linenos, records)


def jsonl_blocks(path: Path, warnings: list[str], progress: Progress
                 ) -> Iterator[tuple[Sequence[int], list[dict[str, Any]]]]:
    """``(line numbers, objects)`` of the non-blank lines, a block of lines (``_BLOCK_BYTES``) at a time."""
    bad_utf8: list[int] = []
    surrogates: list[int] = []
    lineno = 0
    with reading(path), path.open("rb") as handle:
        for block in iter(lambda: handle.readlines(_BLOCK_BYTES), []):
            progress(lineno + len(block), 0, "loading")
            records = _common_block(block) if lineno else None  # the first: a byte-order mark may start it
            if records is not None:
                yield range(lineno + 1, lineno + 1 + len(block)), records
                lineno += len(block)
                continue
            linenos, records = [], []
            for raw in block:
                lineno += 1
                line = _decode_line(raw, lineno, bad_utf8)
                if line.strip():
                    record = parse_object(line, f"{path}:{lineno}")
                    if _SURROGATE_ESCAPE.search(line):
                        record = _without_surrogates(record, lineno, surrogates)
                    linenos.append(lineno)
                    records.append(record)
            yield linenos, records
    if bad_utf8:
        warnings.append(
            f"{path}: {len(bad_utf8)} line(s) not valid UTF-8 (first: line {bad_utf8[0]}), bad bytes replaced"
        )
    if surrogates:
        warnings.append(f"{path}: {len(surrogates)} line(s) with lone surrogate escapes "
                        f"(first: line {surrogates[0]}), replaced by U+FFFD")


def _common_block(block: list[bytes]) -> list[dict[str, Any]] | None:
    """The objects of a block of lines when every line is the common one: valid UTF-8, one object and
    nothing around it but whitespace (a CR LF line end too), no lone surrogate escape, and values that are
    strings, integers, booleans or null. They are read by orjson, three times as fast as json's scanner,
    which makes the objects json.loads makes, but for integers beyond 64 bits (floats to orjson): a block
    with a float, list or object among its values is read line by line, as is one that orjson refuses."""
    try:
        records = list(map(orjson.loads, block))
    except orjson.JSONDecodeError:  # also invalid UTF-8, a lone surrogate, NaN, a blank line
        return None
    if set(map(type, records)) != {dict}:
        return None
    values = chain.from_iterable(map(dict.values, records))
    return records if _EXACT.issuperset(map(type, values)) else None


def _decode_line(raw: bytes, lineno: int, bad_utf8: list[int]) -> str:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        bad_utf8.append(lineno)
        line = raw.decode("utf-8", errors="replace")
    # Editors on Windows often start UTF-8 files with a byte-order mark, which json rejects.
    return line.removeprefix("\ufeff") if lineno == 1 else line


def _without_surrogates(record: dict[str, Any], lineno: int, lines: list[int]) -> dict[str, Any]:
    """The record's keys and string values with lone surrogates replaced; ``lines`` notes the line."""
    fixed = {valid_unicode(k): valid_unicode(v) if isinstance(v, str) else v for k, v in record.items()}
    if fixed != record:
        lines.append(lineno)
    return fixed


def string_field(record: Mapping[str, Any], key: str, path: Path, lineno: int, required: bool = False) -> str:
    """``record[key]``, which must be a string; when not ``required``, absent or null reads as ""."""
    value = record.get(key)
    if value is None and not required:
        return ""
    if key not in record:
        raise RanklensError(f"{path}:{lineno}: record has no {key}")
    if not isinstance(value, str):
        raise RanklensError(f"{path}:{lineno}: {key!r} must be a string, not {json_type(value)}")
    return value


def json_type(value: Any) -> str:
    """What JSON calls ``value``'s type, as a message says it ("a number", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    return "an array" if isinstance(value, list) else "a string"


def record_id(record: Mapping[str, Any], seen: set[str], path: Path, lineno: int) -> str:
    """The record's ``_id``, required and unique in its file (``seen`` holds the ids read so far).

    A string, or a whole number read as its decimal text (ids exported from a database often are).
    """
    value = record.get("_id")
    if value is None:
        raise RanklensError(f"{path}:{lineno}: record has no _id")
    if isinstance(value, int) and not isinstance(value, bool):
        ident = str(value)
    elif isinstance(value, str):
        ident = value
    else:
        raise RanklensError(f"{path}:{lineno}: '_id' must be a string or a whole number, not {json_type(value)}")
    if ident in seen:
        raise RanklensError(f"{path}:{lineno}: duplicate _id {ident!r}")
    seen.add(ident)
    return ident
