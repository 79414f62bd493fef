"""Two runs on one corpus' questions: measures side by side, paired tests, the questions that moved.

Each side is a run with the judgments resolved under its own chunking (two setups that
chunk differently are each measured against their own chunks). The questions compared are
those with something relevant on either side, in the corpus' order; a question a run does
not rank scores 0 there. For each measure: the means of A and B, Δ = B - A, the paired
t-test's and the randomization test's two-sided p-values, and the bootstrap 95 % interval
of Δ (``engine/significance.py``); wins, ties and losses count questions where B is above,
equal to or below A.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.measures import Measure, first_relevant_rank, parse_measures, relevant_only
from ranklens.engine.significance import (PERMUTATIONS, SEED, bootstrap_ci, paired_t_test, randomization_test,
                                          wins_ties_losses)
from ranklens.engine.trec import Run


@dataclass
class RunSide:
    """One side of a comparison: a run and the judgments (question -> {chunk id: grade}) it is measured by."""

    label: str  # as the user named it: a saved run, a file, an inline setup
    run: Run
    qrels: Mapping[str, Mapping[str, int]]
    describe: str = ""  # the setup in one line, when known
    setup: dict[str, Any] | None = None


@dataclass(frozen=True)
class MeasureRow:
    name: str
    a: float
    b: float
    p_ttest: float
    p_randomization: float
    ci95: tuple[float, float]
    wins: int
    ties: int
    losses: int

    @property
    def delta(self) -> float:
        return self.b - self.a


@dataclass(frozen=True)
class QuestionRow:
    id: str
    text: str
    a: dict[str, float]
    b: dict[str, float]
    rank_a: int | None  # rank of the first relevant chunk in A's run (None: not retrieved)
    rank_b: int | None


@dataclass
class Comparison:
    a: RunSide
    b: RunSide
    rows: list[MeasureRow]
    questions: list[QuestionRow]
    permutations: int
    seed: int
    notes: list[str] = field(default_factory=list)

    @property
    def primary(self) -> MeasureRow:
        """The first measure asked for: the one wins, ties and losses are counted by."""
        return self.rows[0]

    def moved(self, limit: int | None = None) -> list[QuestionRow]:
        """Questions by how much the first measure moved (|Δ|, largest first), unmoved ones left out."""
        name = self.primary.name
        moved = [q for q in self.questions if abs(q.b[name] - q.a[name]) > 1e-12]
        moved.sort(key=lambda q: -abs(q.b[name] - q.a[name]))
        return moved[:limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": {"label": self.a.label, "setup": self.a.describe or None},
            "b": {"label": self.b.label, "setup": self.b.describe or None},
            "questions": len(self.questions),
            "permutations": self.permutations,
            "seed": self.seed,
            "metrics": {row.name: {"a": row.a, "b": row.b, "delta": row.delta, "p_ttest": _none(row.p_ttest),
                                   "p_randomization": _none(row.p_randomization),
                                   "ci95": [_none(row.ci95[0]), _none(row.ci95[1])],
                                   "wins": row.wins, "ties": row.ties, "losses": row.losses}
                        for row in self.rows},
            "by": self.primary.name,
            "wins": self.primary.wins,
            "ties": self.primary.ties,
            "losses": self.primary.losses,
            "per_question": [{"id": q.id, "text": q.text, "a": q.a, "b": q.b, "rank_a": q.rank_a,
                              "rank_b": q.rank_b} for q in self.questions],
            "notes": list(self.notes),
        }


def _none(value: float) -> float | None:
    return None if value != value else value  # NaN is not JSON


def compare_runs(a: RunSide, b: RunSide, questions: Sequence[Question], measures: str | Sequence[Measure],
                 permutations: int = PERMUTATIONS, seed: int = SEED) -> Comparison:
    """Measure both sides on the questions judged on either, and test every measure's Δ."""
    chosen = parse_measures(measures) if isinstance(measures, str) else list(measures)
    rows: list[QuestionRow] = []
    for question in questions:
        rel_a = relevant_only(a.qrels.get(question.id, {}))
        rel_b = relevant_only(b.qrels.get(question.id, {}))
        if not rel_a and not rel_b:
            continue
        ranked_a = [doc for doc, _ in a.run.rankings.get(question.id, ())]
        ranked_b = [doc for doc, _ in b.run.rankings.get(question.id, ())]
        rows.append(QuestionRow(question.id, question.text,
                                {m.name: m(ranked_a, rel_a) for m in chosen},
                                {m.name: m(ranked_b, rel_b) for m in chosen},
                                first_relevant_rank(ranked_a, rel_a), first_relevant_rank(ranked_b, rel_b)))
    if not rows:
        raise RanklensError("no question has anything judged relevant: nothing to compare "
                            "(judge some results, or import qrels)")
    notes = []
    for side in (a, b):
        missing = sum(1 for q in rows if q.id not in side.run.rankings)
        if missing:
            notes.append(f"{side.label}: {missing} compared question(s) not in the run (scored 0)")
    measure_rows = []
    for measure in chosen:
        va = [q.a[measure.name] for q in rows]
        vb = [q.b[measure.name] for q in rows]
        wins, ties, losses = wins_ties_losses(va, vb)
        measure_rows.append(MeasureRow(measure.name, sum(va) / len(va), sum(vb) / len(vb), paired_t_test(va, vb),
                                       randomization_test(va, vb, permutations, seed), bootstrap_ci(va, vb, seed=seed),
                                       wins, ties, losses))
    return Comparison(a, b, measure_rows, rows, permutations, seed, notes)
