"""The lines of a workspace's judgment log (engine/workspace/store.py keeps the file): one judgment or undo
each, read, written and replayed rater by rater.

A line is a JSON object: ``{"op": "judge"|"undo", "question", "id", "grade", "previous",
"undoes" (an undo's target line), "doc", "start", "end", "rater", "at"}``; ``grade`` and ``previous``
are whole numbers or null (unjudged). A line without ``"rater"`` was written before raters were recorded
and is the unnamed rater's. ``doc``, ``start`` and ``end`` (all three or none) say which text a judged
chunk covered: characters ``[start, end)`` of document ``doc``'s text, so that the judgment carries to
another chunking by its text (engine/judging/positions.py); a line without them (a document's judgment, or one
written before spans were recorded) counts by its id alone. Replaying keeps each rater's grades of a pair
as a stack, so an undo takes back exactly the judgment it names.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ranklens.engine.corpus import TextSpan
from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.raters import UNNAMED, combine

Ratings = dict[str, dict[str, dict[str, int]]]  # question -> id -> rater -> grade, raters in the order they graded
Spans = dict[str, dict[str, TextSpan]]  # question -> id -> the text the id's chunk covered when last judged


@dataclass(frozen=True)
class Judgment:
    """One line of the log: ``grade`` given to ``id`` for ``question``; None means unjudged again."""

    line: int  # 1-based line of the log
    op: str  # "judge" or "undo"
    question: str
    id: str
    grade: int | None
    previous: int | None  # the same rater's grade of the pair before this line (None: unjudged)
    undoes: int | None = None  # for an undo: the line it takes back
    rater: str = UNNAMED  # who gave it (engine/judging/raters.py); "" on lines written before raters were recorded
    span: TextSpan | None = None  # the text the judged chunk covered; None: judged by its id alone


def read_entry(record: Mapping[str, Any], lineno: int, path: Path) -> Judgment:
    """Line ``lineno`` of the log at ``path`` as a Judgment; a ``RanklensError`` naming the line when it is not one."""
    try:
        rater = record.get("rater", UNNAMED)
        if not isinstance(rater, str):
            raise TypeError(rater)
        return Judgment(lineno, str(record["op"]), str(record["question"]), str(record["id"]),
                        _grade(record.get("grade")), _grade(record.get("previous")), record.get("undoes"), rater,
                        _span(record))
    except (KeyError, TypeError, ValueError):
        raise RanklensError(f"{path}:{lineno}: not a judgment (op, question, id, grade, doc, start, end, "
                            "rater)") from None


def _span(record: Mapping[str, Any]) -> TextSpan | None:
    """The line's ``doc``/``start``/``end`` as a span; None when it has none of them."""
    given = [key for key in ("doc", "start", "end") if key in record]
    if not given:
        return None
    doc, start, end = record["doc"], _grade(record["start"]), _grade(record["end"])
    if not isinstance(doc, str) or start is None or end is None or not 0 <= start <= end:
        raise ValueError(record)
    return TextSpan(doc, start, end)


def _grade(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value


def log_line(entry: Judgment) -> str:
    """``entry`` as a line of the log, stamped with the time it is written."""
    record: dict[str, Any] = {"op": entry.op, "question": entry.question, "id": entry.id, "grade": entry.grade,
                              "previous": entry.previous}
    if entry.undoes is not None:
        record["undoes"] = entry.undoes
    if entry.span is not None:
        record.update(doc=entry.span.doc, start=entry.span.start, end=entry.span.end)
    record["rater"] = entry.rater
    record["at"] = datetime.now(UTC).isoformat(timespec="seconds")
    return json.dumps(record, ensure_ascii=False) + "\n"


def replay(entries: Sequence[Judgment]) -> Ratings:
    """Each rater's grade of each pair after ``entries``, raters ordered by when their grade was given.

    A rater's grades of a pair are a stack: a judgment pushes, the undo of the judgment on top pops
    it (so a grade an undo restores counts as given when it was first given). An undo that does not
    match the top (a log edited by hand) sets its grade as a judgment would.
    """
    stacks: dict[tuple[str, str, str], list[tuple[int | None, int]]] = {}
    order: dict[str, dict[str, None]] = {}
    for entry in entries:
        order.setdefault(entry.question, {}).setdefault(entry.id)
        stack = stacks.setdefault((entry.question, entry.id, entry.rater), [])
        if entry.op == "undo" and stack and stack[-1][1] == entry.undoes:
            stack.pop()
            if (stack[-1][0] if stack else None) == entry.grade:
                continue
        stack.append((entry.grade, entry.line))
    given: list[tuple[int, str, str, str, int]] = []
    for (question, ident, rater), stack in stacks.items():
        grade = stack[-1][0] if stack else None
        if grade is not None:
            given.append((stack[-1][1], question, ident, rater, grade))
    by_pair: dict[tuple[str, str], dict[str, int]] = {}
    for _, question, ident, rater, grade in sorted(given):
        by_pair.setdefault((question, ident), {})[rater] = grade
    ratings: Ratings = {}
    for question, ids in order.items():
        for ident in ids:
            if (question, ident) in by_pair:
                ratings.setdefault(question, {})[ident] = by_pair[question, ident]
    return ratings


def spans(entries: Sequence[Judgment]) -> Spans:
    """The text each judged id covered, by question: the span of the pair's latest line (none when that line
    has none: an id judged again by its id alone, an import, counts by its id). An id judged again under
    another chunking names another text, and the latest judgment's counts."""
    latest: dict[tuple[str, str], TextSpan | None] = {}
    for entry in entries:
        latest[entry.question, entry.id] = entry.span
    found: Spans = {}
    for (question, ident), span in latest.items():
        if span is not None:
            found.setdefault(question, {})[ident] = span
    return found


def combined(ratings: Ratings, rule: str) -> dict[str, dict[str, int]]:
    """One grade per pair: each pair's raters' grades made one by ``rule`` (engine/judging/raters.py)."""
    return {question: {ident: combine(by, rule) for ident, by in ids.items()} for question, ids in ratings.items()}
