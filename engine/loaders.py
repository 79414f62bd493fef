"""Loading a corpus: a bundled name, a BEIR folder, a folder of .txt/.md files, or a .jsonl file.

Everything here reads and nothing writes: the user's corpus folder is left as
it was found. Bad input becomes a one-line ``RanklensError`` naming the file
(and the line, for JSONL and qrels); recoverable oddities (a binary or
unreadable file in a text folder, invalid UTF-8, qrels naming unknown ids)
become warnings. Only regular files are read: a FIFO or a device named like a
document would block or never end.
"""
from __future__ import annotations

import errno
import json
import os
import re
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Mapping

from ranklens.corpora import bundled_corpora, bundled_path
from ranklens.engine.corpus import Chunk, Corpus, Document, Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.language import detect_language
from ranklens.engine.progress import Progress, no_progress
from ranklens.engine.setup import LANGUAGES, Setup

TEXT_SUFFIXES = (".txt", ".md")
_PROGRESS_LINES = 10_000
_PROGRESS_FILES = 100
_BINARY_PROBE = 8192  # a NUL byte in this many leading bytes marks a file as binary
_SURROGATE = re.compile("[\ud800-\udfff]")
# Only a \u escape can put a surrogate into a line decoded from UTF-8; paired ones are joined by json.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_TITLE = re.compile(r"^# (.*)$", re.MULTILINE)  # a markdown level-1 heading, found without splitting lines


def valid_unicode(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD.

    They come from JSON escapes such as ``"\\ud800"`` and from undecodable
    bytes in file names and arguments; UTF-8 cannot encode them, so printing
    or saving such text would fail.
    """
    return _SURROGATE.sub("\ufffd", text)


def load_corpus(spec: str | os.PathLike[str], progress: Progress = no_progress) -> Corpus:
    """Load the corpus that ``spec`` names; an existing path wins over a bundled name."""
    try:
        return _load(spec, progress)
    except OSError as error:  # permissions on the folder, a disk error
        raise RanklensError(f"cannot read {error.filename or spec}: {error.strerror or error}") from None


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """Errors while reading ``path`` become one line that names it."""
    try:
        _require_regular(path)
        yield
    except OSError as error:
        raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None


def _require_regular(path: Path) -> None:
    if not path.is_file():
        raise OSError(errno.EINVAL, "not a regular file", str(path))


def _load(spec: str | os.PathLike[str], progress: Progress) -> Corpus:
    path, name = _locate(spec)
    if path.is_file():
        return _load_jsonl_file(path, progress)
    settings = _read_settings(path)
    warnings: list[str] = []
    if (path / "corpus.jsonl").exists():
        documents, chunks, titled = _load_beir_corpus(path / "corpus.jsonl", warnings, progress)
        settings = _beir_settings(settings, titled)
    else:
        documents, chunks = _load_text_folder(path, _settings_files(path, settings), warnings, progress)
    if not documents:
        raise RanklensError(f"no documents in {path}" + (f" ({warnings[0]})" if warnings else ""))
    known = {d.id for d in documents} | {c.id for c in chunks}
    questions = _load_questions(path, known, warnings, progress)
    settings, detected = _with_language(settings, documents)
    return Corpus(
        name=name,
        documents=tuple(documents),
        chunks=tuple(chunks),
        questions=tuple(questions),
        settings=settings,
        source=str(path),
        warnings=tuple(warnings),
        language_detected=detected,
    )


def _with_language(settings: dict[str, Any], documents: list[Document]) -> tuple[dict[str, Any], bool]:
    """The settings with a ``language``: the toml's, else guessed from the text (and True: guessed), so
    the stop-word and stemming keys offer the corpus' language, not the first one ranklens knows."""
    if settings.get("language"):
        return settings, False
    language = detect_language(d.text for d in documents)
    if language is None:
        return settings, False
    return {**settings, "language": language}, True


# -- where the corpus is ---------------------------------------------------------------------------


def _locate(spec: str | os.PathLike[str]) -> tuple[Path, str]:
    path = Path(spec)
    if path.exists():
        # Root reads anything; for everyone else an unsearchable folder looks empty to exists().
        if path.is_dir() and not os.access(path, os.R_OK | os.X_OK):
            raise RanklensError(f"cannot read {path}: Permission denied")
        if not (path.is_dir() or path.suffix == ".jsonl"):
            raise RanklensError(f"{path}: not a corpus (expected a folder or a .jsonl file)")
        return path, valid_unicode(path.stem if path.is_file() else path.resolve().name)
    bundled = bundled_path(str(spec))
    if bundled is not None:
        return bundled, str(spec)
    names = ", ".join(name for name, _ in bundled_corpora())
    raise RanklensError(f"corpus not found: {spec} (not a bundled corpus: {names})")


def _read_settings(folder: Path) -> dict[str, Any]:
    """The folder's ranklens.toml, validated, with a stopwords file made absolute."""
    toml_path = folder / "ranklens.toml"
    if not toml_path.exists():
        return {}
    with _reading(toml_path):
        raw = toml_path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RanklensError(f"{toml_path}: not valid TOML ({error})") from None
    except RecursionError:
        raise RanklensError(f"{toml_path}: not valid TOML (nested too deeply)") from None
    stopwords = data.get("stopwords")
    if isinstance(stopwords, str) and stopwords not in ("none", *LANGUAGES):
        # A stop list is named relative to the corpus; checked now so the message names the toml.
        if not (folder / stopwords).is_file():
            raise RanklensError(f"{toml_path}: stopwords {stopwords!r} is neither none, a language "
                                f"({', '.join(LANGUAGES)}) nor a file next to it")
        data["stopwords"] = str((folder / stopwords).resolve())
    Setup.from_mapping(data, source=str(toml_path))
    return data


def _settings_files(folder: Path, settings: Mapping[str, Any]) -> set[Path]:
    """Files the settings point at (a stop list), which are not documents."""
    stopwords = settings.get("stopwords")
    return {Path(stopwords)} if isinstance(stopwords, str) and Path(stopwords).is_absolute() else set()


# -- JSONL -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Record:
    id: str
    title: str
    text: str
    group: str  # the raw document the record belongs to: its "doc" key, else its own id


def _jsonl(path: Path, warnings: list[str], progress: Progress) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line, streamed so big files are read once."""
    bad_utf8: list[int] = []
    surrogates: list[int] = []
    with _reading(path), path.open("rb") as handle:
        for lineno, raw in enumerate(handle, 1):
            if lineno % _PROGRESS_LINES == 0:
                progress(lineno, 0, "loading")
            line = _decode_line(raw, lineno, bad_utf8)
            if line.strip():
                record = _parse_object(line, path, lineno)
                if _SURROGATE_ESCAPE.search(line):
                    record = _without_surrogates(record, lineno, surrogates)
                yield lineno, record
    if bad_utf8:
        warnings.append(
            f"{path}: {len(bad_utf8)} line(s) not valid UTF-8 (first: line {bad_utf8[0]}), bad bytes replaced"
        )
    if surrogates:
        warnings.append(f"{path}: {len(surrogates)} line(s) with lone surrogate escapes "
                        f"(first: line {surrogates[0]}), replaced by U+FFFD")


def _decode_line(raw: bytes, lineno: int, bad_utf8: list[int]) -> str:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        bad_utf8.append(lineno)
        line = raw.decode("utf-8", errors="replace")
    # Editors on Windows often start UTF-8 files with a byte-order mark, which json rejects.
    return line.removeprefix("\ufeff") if lineno == 1 else line


def _parse_object(line: str, path: Path, lineno: int) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        raise RanklensError(f"{path}:{lineno}: not valid JSON ({error.msg} at column {error.colno})") from None
    except ValueError as error:  # an integer of more than 4300 digits
        raise RanklensError(f"{path}:{lineno}: not usable JSON ({error})") from None
    except RecursionError:
        raise RanklensError(f"{path}:{lineno}: not usable JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise RanklensError(f"{path}:{lineno}: not a JSON object")
    return value


def _without_surrogates(record: dict[str, Any], lineno: int, lines: list[int]) -> dict[str, Any]:
    """The record's keys and string values with lone surrogates replaced; ``lines`` notes the line."""
    fixed = {valid_unicode(k): valid_unicode(v) if isinstance(v, str) else v for k, v in record.items()}
    if fixed != record:
        lines.append(lineno)
    return fixed


def _string_field(record: Mapping[str, Any], key: str, path: Path, lineno: int) -> str:
    value = record.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise RanklensError(f"{path}:{lineno}: {key!r} must be a string")
    return str(value)


def _record_id(record: Mapping[str, Any], seen: set[str], path: Path, lineno: int) -> str:
    if record.get("_id") is None:
        raise RanklensError(f"{path}:{lineno}: record has no _id")
    record_id = _string_field(record, "_id", path, lineno)
    if record_id in seen:
        raise RanklensError(f"{path}:{lineno}: duplicate _id {record_id!r}")
    seen.add(record_id)
    return record_id


def _read_records(path: Path, warnings: list[str], progress: Progress) -> list[_Record]:
    records: list[_Record] = []
    seen: set[str] = set()
    for lineno, record in _jsonl(path, warnings, progress):
        record_id = _record_id(record, seen, path, lineno)
        group = _string_field(record, "doc", path, lineno) or record_id
        title = _string_field(record, "title", path, lineno)
        records.append(_Record(record_id, title, _string_field(record, "text", path, lineno), group))
    return records


def _load_beir_corpus(
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


def _beir_settings(settings: Mapping[str, Any], titled: bool) -> dict[str, Any]:
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


def _load_jsonl_file(path: Path, progress: Progress) -> Corpus:
    warnings: list[str] = []
    documents, chunks, titled = _load_beir_corpus(path, warnings, progress)
    if not documents:
        raise RanklensError(f"no documents in {path}")
    # The same records as a BEIR folder's corpus.jsonl, so the same default; no toml can say otherwise.
    settings, detected = _with_language(_beir_settings({}, titled), documents)
    return Corpus(path.stem, tuple(documents), tuple(chunks), settings=settings,
                  source=str(path), warnings=tuple(warnings), language_detected=detected)


# -- questions and judgments -----------------------------------------------------------------------


@dataclass
class _Qrels:
    judgments: dict[str, dict[str, int]] = field(default_factory=dict)
    unknown_queries: int = 0
    unknown_docs: int = 0
    duplicates: int = 0  # rows judging a (question, corpus id) pair judged before


def _load_questions(folder: Path, known: set[str], warnings: list[str], progress: Progress) -> list[Question]:
    queries = _read_queries(folder / "queries.jsonl", warnings, progress)
    qrels_path = _qrels_path(folder)
    qrels = _read_qrels(qrels_path, {q.id for q in queries}, known) if qrels_path else _Qrels()
    if qrels.unknown_queries:
        warnings.append(f"{qrels_path}: skipped {qrels.unknown_queries} row(s) naming queries not in queries.jsonl")
    if qrels.unknown_docs:
        warnings.append(f"{qrels_path}: skipped {qrels.unknown_docs} row(s) naming ids not in the corpus")
    if qrels.duplicates:
        warnings.append(f"{qrels_path}: {qrels.duplicates} duplicate row(s) for a question and id already judged; "
                        "the highest grade kept")
    return [
        Question(q.id, q.text, relevant=qrels.judgments.get(q.id, {}), answer=q.answer) for q in queries
    ]


def _read_queries(path: Path, warnings: list[str], progress: Progress) -> list[Question]:
    if not path.exists():
        return []
    queries: list[Question] = []
    seen: set[str] = set()
    for lineno, record in _jsonl(path, warnings, progress):
        query_id = _record_id(record, seen, path, lineno)
        answer = _string_field(record, "answer", path, lineno) or None
        queries.append(Question(query_id, _string_field(record, "text", path, lineno), answer=answer))
    return queries


def _qrels_path(folder: Path) -> Path | None:
    preferred = folder / "qrels" / "test.tsv"
    if preferred.is_file():
        return preferred
    others = sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
    return others[0] if others else None


def _read_qrels(path: Path, query_ids: set[str], known: set[str]) -> _Qrels:
    """Graded judgments with score > 0; rows naming unknown ids are counted, not fatal.

    A (question, id) pair judged on several rows keeps its highest grade, whatever the row
    order (a later "0" never erases an earlier "2"); the repeated rows are counted.
    """
    qrels = _Qrels()
    judged: set[tuple[str, str]] = set()
    with _reading(path):
        lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or (lineno == 1 and _is_header(line)):
            continue
        query_id, doc_id, score = _parse_qrel(line, path, lineno)
        if (query_id, doc_id) in judged:
            qrels.duplicates += 1
        judged.add((query_id, doc_id))
        if score <= 0:  # a judgment of non-relevance: nothing to record, whatever it names
            continue
        if query_id not in query_ids:
            qrels.unknown_queries += 1
        elif doc_id not in known:
            qrels.unknown_docs += 1
        else:
            grades = qrels.judgments.setdefault(query_id, {})
            grades[doc_id] = max(score, grades.get(doc_id, 0))
    return qrels


def _is_header(line: str) -> bool:
    fields = line.split("\t")
    return len(fields) == 3 and not fields[2].strip().lstrip("-").isdigit()


def _parse_qrel(line: str, path: Path, lineno: int) -> tuple[str, str, int]:
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) != 3:
        raise RanklensError(f"{path}:{lineno}: expected 3 tab-separated fields (query-id, corpus-id, score), "
                            f"got {len(fields)}")
    query_id, doc_id, score = (f.strip() for f in fields)
    try:
        return query_id, doc_id, int(score)
    except ValueError:
        raise RanklensError(f"{path}:{lineno}: score {score!r} is not an integer") from None


# -- a folder of .txt / .md files ------------------------------------------------------------------


def _load_text_folder(
    folder: Path, skip: set[Path], warnings: list[str], progress: Progress
) -> tuple[list[Document], list[Chunk]]:
    """One document per file; no chunks, since the setup's chunker cuts raw documents."""
    paths = [p for p in _text_files(folder, warnings) if p.resolve() not in skip]
    documents: list[Document] = []
    for done, path in enumerate(paths):
        if done % _PROGRESS_FILES == 0:
            progress(done, len(paths), "loading")
        document = _read_text_document(path, folder, warnings)
        if document is not None:
            documents.append(document)
    return documents, []


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
        _require_regular(path)
        with path.open("rb") as handle:
            if b"\0" in handle.read(_BINARY_PROBE):  # decided before reading the rest of a big binary
                warnings.append(f"skipped binary file {doc_id}")
                return None
            handle.seek(0)
            data = handle.read()
    except OSError as error:
        warnings.append(f"skipped unreadable file {doc_id}: {error.strerror or error}")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8-sig", errors="replace")
        warnings.append(f"{doc_id}: not valid UTF-8, bad bytes replaced")
    return Document(doc_id, _title(text) or valid_unicode(path.stem), text)


def _title(text: str) -> str:
    """The first markdown level-1 heading ("# Title"), if any."""
    match = _TITLE.search(text)
    return match.group(1).strip().rstrip("#").strip() if match else ""
