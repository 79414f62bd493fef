"""Questions grouped by one of their fields, and measures averaged per group ("stratum").

A question's fields are the keys of its queries.jsonl record other than ``_id``, ``text``
and ``answer`` (``Question.fields``). ``by`` names one of them; a dotted path reads inside
an object (``metadata.type`` reads ``{"metadata": {"type": "list"}}``). What the value
puts the question in:

- a string, a number or true/false: one stratum, named by the value (``3``, ``2.5``, ``true``);
- a list (``"tags": ["billing", "hr"]``): one stratum per distinct element, so a question
  counts in each of its tags' strata and the strata's sizes may add up to more than the
  questions;
- no such field, null or an empty list: the stratum ``(none)``;
- an object: an error naming its fields (a stratum per whole object would read as noise).

``length`` (``LENGTH``) is not a field: it buckets questions by their number of words
(whitespace-separated) in doubling buckets, 1-4, 5-8, 9-16, 17-32 and 33+ words. Fixed
buckets read the same on every corpus and in every comparison, which quantiles of one
question set would not; empty buckets are left out. A field of queries.jsonl named
``length`` is shadowed by it.

Strata come in a stable order: length buckets shortest first; values numbers first
(ascending), then text (case-insensitively), ``(none)`` last. Plain Python: the TUI reads it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import Comparison
    from ranklens.engine.experiments.scorers import ScorerComparison

LENGTH = "length"  # the word-count buckets, offered beside the questions' fields
NONE = "(none)"  # the stratum of questions without the field
LENGTH_BUCKETS = (4, 8, 16, 32)  # upper bounds (words, inclusive) of every bucket but the last, "33+"
_MISSING = object()


@dataclass(frozen=True)
class Stratum:
    """One stratum: its name and the positions (0-based, in the order given) of its questions."""

    name: str
    members: tuple[int, ...]


@dataclass(frozen=True)
class StratumMeans:
    """One stratum's questions counted, and each series' mean of each measure over them."""

    stratum: str
    questions: int
    means: dict[str, dict[str, float]]  # series (a scorer, a run) -> measure name -> mean, in the measure's units


@dataclass(frozen=True)
class StratumDelta:
    """A measure on one stratum of a comparison: A's and B's means, and B's wins, ties and losses."""

    a: float
    b: float
    wins: int
    ties: int
    losses: int

    @property
    def delta(self) -> float:
        """B's mean minus A's."""
        return self.b - self.a


@dataclass(frozen=True)
class ComparedStratum:
    stratum: str
    questions: int
    metrics: dict[str, StratumDelta]  # by measure name, in the comparison's order

    def to_dict(self) -> dict[str, Any]:
        return {"stratum": self.stratum, "questions": self.questions,
                "metrics": {name: {"a": m.a, "b": m.b, "delta": m.delta, "wins": m.wins, "ties": m.ties,
                                   "losses": m.losses} for name, m in self.metrics.items()}}


def field_paths(questions: Sequence[Question]) -> list[str]:
    """The fields the questions can be grouped by: every key any of them has, a dotted path to each
    field of an object, sorted, then ``length``."""
    paths: set[str] = set()
    for question in questions:
        _collect(question.fields, "", paths)
    return [*sorted(paths, key=str.casefold), LENGTH]


def _collect(fields: Mapping[str, Any], prefix: str, paths: set[str]) -> None:
    for key, value in fields.items():
        if isinstance(value, Mapping):
            _collect(value, f"{prefix}{key}.", paths)
        else:
            paths.add(f"{prefix}{key}")


def check_field(questions: Sequence[Question], by: str) -> None:
    """Raise ``RanklensError`` unless some question has the field ``by`` (``length`` always exists), naming the
    fields they have; an object's name is said to need one of its fields."""
    if by == LENGTH:
        return
    known = field_paths(questions)
    if by in known:
        return
    inside = [path for path in known if path.startswith(by + ".")]
    if inside:
        raise RanklensError(f"question field {by!r} is an object: group by one of its fields "
                            f"({', '.join(inside)})")
    raise RanklensError(f"no question has a field {by!r} (fields: {', '.join(known)})")


def stratify(questions: Sequence[Question], by: str) -> list[Stratum]:
    """The questions' strata by the field ``by`` (or ``length``), in the module's order; raises
    ``RanklensError`` when no question has the field."""
    check_field(questions, by)
    return _group(questions, by)


def _group(questions: Sequence[Question], by: str) -> list[Stratum]:
    members: dict[str, list[int]] = {}
    for i, question in enumerate(questions):
        for name in _strata_of(question, by):
            members.setdefault(name, []).append(i)
    order = _length_order if by == LENGTH else _value_order
    return [Stratum(name, tuple(members[name])) for name in sorted(members, key=order)]


def _strata_of(question: Question, by: str) -> list[str]:
    if by == LENGTH:
        return [length_bucket(len(question.text.split()))]
    value = _lookup(question.fields, by)
    if isinstance(value, list):
        names = list(dict.fromkeys(_name(v) for v in value if v is not None))
        return names or [NONE]
    return [NONE if value is _MISSING or value is None else _name(value)]


def _lookup(fields: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted ``path``; a key holding a dot itself is read whole first."""
    if path in fields:
        return fields[path]
    head, dot, rest = path.partition(".")
    inner = fields.get(head, _MISSING)
    if dot and isinstance(inner, Mapping):
        return _lookup(inner, rest)
    return _MISSING


def _name(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True)  # a list or object inside a list


def length_bucket(words: int) -> str:
    """The length stratum of a question of ``words`` words: "1-4 words" … "33+ words"."""
    low = 1
    for high in LENGTH_BUCKETS:
        if words <= high:
            return f"{low}-{high} words"
        low = high + 1
    return f"{low}+ words"


def _length_order(name: str) -> int:
    return int(name.split("-")[0].split("+")[0])


def _value_order(name: str) -> tuple[int, float, str]:
    if name == NONE:
        return (2, 0.0, "")
    try:
        number = float(name)
    except ValueError:
        return (1, 0.0, name.casefold())
    return (0, number, name) if number == number else (1, 0.0, name.casefold())


def _means(questions: Sequence[Question], values: Mapping[str, Sequence[Mapping[str, float]]],
           by: str) -> list[StratumMeans]:
    """Each stratum's size and, per series, each measure's mean; ``values[series][i]`` is question i's."""
    rows = []
    for stratum in _group(questions, by):
        n = len(stratum.members)
        means = {series: {name: sum(per_question[i][name] for i in stratum.members) / n
                          for name in per_question[stratum.members[0]]}
                 for series, per_question in values.items()}
        rows.append(StratumMeans(stratum.name, n, means))
    return rows


def scorer_strata(comparison: ScorerComparison, questions: Sequence[Question], by: str) -> list[StratumMeans]:
    """The Metrics tab's scorers by ``by``: per stratum of the measured (answerable) questions, each scorer's
    mean of each of eval's metrics (series: the scorers' names; measures: the metric table's keys, fractions
    in [0, 1]). ``questions`` are the corpus' (with their fields), matched to the measured ones by id."""
    check_field(questions, by)  # on every question, as compare_strata
    if not comparison.scorers:
        return []
    by_id = {q.id: q for q in questions}
    measured = comparison.scorers[0].evaluation.per_question  # every scorer measures the same questions
    asked = [by_id.get(row.id, Question(row.id, row.text)) for row in measured]
    values = {r.scorer: [row.values for row in r.evaluation.per_question] for r in comparison.scorers}
    return _means(asked, values, by)


def compare_strata(comparison: Comparison, questions: Sequence[Question], by: str) -> list[ComparedStratum]:
    """A comparison's compared questions by ``by``: per stratum and measure, A's and B's means, Δ = B - A and
    B's wins, ties and losses (no paired tests: a stratum of a few questions would make them meaningless).
    ``questions`` are the corpus' (with their fields), matched to the comparison's by id."""
    from ranklens.engine.comparing.significance import wins_ties_losses

    check_field(questions, by)  # on every question: the compared ones may all lack the field
    by_id = {q.id: q for q in questions}
    compared = comparison.questions
    asked = [by_id.get(row.id, Question(row.id, row.text)) for row in compared]
    names = [row.name for row in comparison.rows]
    strata = []
    for stratum in _group(asked, by):
        rows = [compared[i] for i in stratum.members]
        metrics = {}
        for name in names:
            a, b = [q.a[name] for q in rows], [q.b[name] for q in rows]
            metrics[name] = StratumDelta(sum(a) / len(a), sum(b) / len(b), *wins_ties_losses(a, b))
        strata.append(ComparedStratum(stratum.name, len(rows), metrics))
    return strata
