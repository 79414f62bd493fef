"""A corpus folder's questions: ``queries.jsonl`` with their judgments from ``qrels/`` (BEIR's layout).

A BEIR qrels row is ``query-id<TAB>corpus-id<TAB>score`` after an optional
header line; it is read by ``engine/measuring/trec.py``'s ``read_qrels``, the engine's one
qrels reader, in this strict layout. Rows naming unknown ids are counted, not
fatal; a score of 0 or below judges non-relevance: the id goes to the question's
``nonrelevant`` (unless another row judges it relevant). A query's fields other
than ``_id``, ``text`` and ``answer`` are kept as its ``fields``.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders.jsonl import jsonl, record_id, string_field
from ranklens.engine.corpus.loaders.reading import reading
from ranklens.engine.work.progress import Progress
from ranklens.engine.measuring.trec import QrelsLayout, read_qrels


def load_questions(folder: Path, known: set[str], warnings: list[str], progress: Progress) -> list[Question]:
    """The folder's questions, each with its judgments of ``known`` ids (chunks and documents)."""
    queries = _read_queries(folder / "queries.jsonl", warnings, progress)
    qrels_path = _qrels_path(folder)
    judgments = _read_beir_qrels(qrels_path, {q.id for q in queries}, known, warnings) if qrels_path else {}
    return [
        dataclasses.replace(q, relevant={d: g for d, g in judgments.get(q.id, {}).items() if g > 0},
                            nonrelevant=frozenset(d for d, g in judgments.get(q.id, {}).items() if g <= 0))
        for q in queries
    ]


_QUERY_KEYS = ("_id", "text", "answer")


def _read_queries(path: Path, warnings: list[str], progress: Progress) -> list[Question]:
    if not path.exists():
        return []
    queries: list[Question] = []
    seen: set[str] = set()
    for lineno, record in jsonl(path, warnings, progress):
        query_id = record_id(record, seen, path, lineno)
        answer = string_field(record, "answer", path, lineno) or None
        fields = {key: value for key, value in record.items() if key not in _QUERY_KEYS}
        queries.append(Question(query_id, string_field(record, "text", path, lineno, required=True), answer=answer,
                                fields=fields))
    return queries


def _qrels_path(folder: Path) -> Path | None:
    preferred = folder / "qrels" / "test.tsv"
    if preferred.is_file():
        return preferred
    others = sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
    return others[0] if others else None


def _read_beir_qrels(path: Path, query_ids: set[str], known: set[str],
                     warnings: list[str]) -> dict[str, dict[str, int]]:
    """Graded judgments of known questions and ids (a score <= 0: not relevant); rows judging unknown ones
    relevant counted in ``warnings`` (a non-relevant row naming one is no loss, and not counted).

    A (question, id) pair judged on several rows keeps its highest grade, whatever the row
    order (a later "0" never erases an earlier "2"); the repeated rows are counted.
    """
    unknown = {"queries": 0, "ids": 0}

    def kept(query_id: str, doc_id: str, score: int) -> bool:
        if query_id not in query_ids:
            unknown["queries"] += score > 0
            return False
        if doc_id not in known:
            unknown["ids"] += score > 0
            return False
        return True

    with reading(path):
        qrels = read_qrels(path, BEIR_QRELS, kept)
    if unknown["queries"]:
        warnings.append(f"{path}: skipped {unknown['queries']} row(s) naming queries not in queries.jsonl")
    if unknown["ids"]:
        warnings.append(f"{path}: skipped {unknown['ids']} row(s) naming ids not in the corpus")
    warnings.extend(qrels.warnings)
    return qrels.judgments


def _beir_row(line: str, lineno: int, path: Path) -> tuple[str, str, int] | None:
    if not line.strip() or (lineno == 1 and _is_header(line)):
        return None
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) != 3:
        raise RanklensError(f"{path}:{lineno}: expected 3 tab-separated fields (query-id, corpus-id, score), "
                            f"got {len(fields)}")
    query_id, doc_id, score = (f.strip() for f in fields)
    try:
        return query_id, doc_id, int(score)
    except ValueError:
        raise RanklensError(f"{path}:{lineno}: score {score!r} is not an integer") from None


def _is_header(line: str) -> bool:
    fields = line.split("\t")
    return len(fields) == 3 and not fields[2].strip().lstrip("-").isdigit()


# tab-separated (ids may hold spaces), ids as written (no %-escapes), no comment lines
BEIR_QRELS = QrelsLayout(_beir_row, "{path}: {count} duplicate row(s) for a question and id already judged; "
                                    "the highest grade kept")
