"""More than two runs: each run against one baseline, every measure's p-values corrected across the runs.

Each run is compared with the baseline exactly as two runs are (``compare_runs``, the baseline as
A): per pair, the questions are those with something judged relevant on the baseline's side or on
that run's (each side's judgments resolved under its own chunking), so every run's mean, Δ, paired
t-test, randomization test and bootstrap interval are those ``ranklens compare CORPUS BASE RUN``
prints. When the runs all chunk as the baseline does (or resolve the judgments to the same
questions), every pair compares the same questions; when they do not, a pair's baseline mean is its
own (the ``a`` of its ``MeasureRow``) and the baseline's mean shown once
(``ManyComparison.baseline_means``) is over the union of the pairs' questions.

Testing R runs against one baseline tests R hypotheses per measure: for each measure, the
randomization test's p-values of the R runs are adjusted together, by Holm's step-down method
(the default) or Bonferroni's (``engine/comparing/significance.py``). Measures are not corrected against
each other: they are different views of the same runs, not more chances at the same question.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ranklens.engine.comparing.two_runs import Comparison, MeasureRow, RunSide, compare_runs
from ranklens.engine.comparing.coverage import Coverage, judged_coverage
from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.measures import Measure, parse_measures
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.comparing.significance import CORRECTIONS, PERMUTATIONS, SEED


@dataclass(frozen=True)
class RunAgainstBaseline:
    """A run and its comparison with the baseline (the baseline as A, the run as B); ``adjusted`` holds each
    measure's randomization p corrected over the runs (by the comparison's correction)."""

    side: RunSide
    pair: Comparison
    adjusted: dict[str, float]

    def row(self, measure: str) -> MeasureRow:
        """The pair's row of ``measure``: ``a`` the baseline's mean on the pair's questions, ``b`` the run's."""
        return next(row for row in self.pair.rows if row.name == measure)


@dataclass
class ManyComparison:
    """A baseline and every run against it, in the order given; means are fractions in [0, 1]."""

    baseline: RunSide
    runs: list[RunAgainstBaseline]
    measures: list[str]
    questions: list[str]  # ids of the questions of any pair, in the corpus' order
    correction: str  # a name of CORRECTIONS
    permutations: int
    seed: int
    notes: list[str] = field(default_factory=list)
    coverage: Coverage | None = None  # every side's judged share of its top 10, by label, and the warning

    def baseline_means(self) -> dict[str, float]:
        """The baseline's mean of every measure over ``questions`` (each pair's own mean when all pairs
        compare the same questions)."""
        values: dict[str, dict[str, float]] = {}
        for run in self.runs:
            for question in run.pair.questions:
                values.setdefault(question.id, question.a)
        return {name: sum(v[name] for v in values.values()) / len(values) for name in self.measures}

    def same_questions(self) -> bool:
        """Whether every pair compares the same questions."""
        return len({tuple(q.id for q in run.pair.questions) for run in self.runs}) == 1

    def to_dict(self) -> dict[str, Any]:
        key = f"p_{self.correction}"
        return {
            "baseline": {"label": self.baseline.label, "setup": self.baseline.describe or None,
                         "metrics": self.baseline_means()},
            "runs": [{"label": run.side.label, "setup": run.side.describe or None,
                      "questions": len(run.pair.questions),
                      "metrics": {row.name: {"mean": row.b, "baseline": row.a, "delta": row.delta,
                                             "p_ttest": _none(row.p_ttest),
                                             "p_randomization": _none(row.p_randomization),
                                             key: _none(run.adjusted[row.name]),
                                             "ci95": [_none(row.ci95[0]), _none(row.ci95[1])],
                                             "wins": row.wins, "ties": row.ties, "losses": row.losses}
                                  for row in run.pair.rows}}
                     for run in self.runs],
            "questions": len(self.questions),
            "permutations": self.permutations,
            "seed": self.seed,
            "correction": self.correction,
            "coverage": None if self.coverage is None else {
                "depth": self.coverage.depth, "shares": dict(self.coverage.shares),
                "threshold": self.coverage.threshold, "warning": self.coverage.warning},
            "notes": list(self.notes),
        }


def _none(value: float) -> float | None:
    return None if value != value else value  # NaN is not JSON


def compare_many(baseline: RunSide, runs: Sequence[RunSide], questions: Sequence[Question],
                 measures: str | Sequence[Measure], permutations: int = PERMUTATIONS, seed: int = SEED,
                 correction: str = "holm", progress: Progress = no_progress) -> ManyComparison:
    """Every run of ``runs`` against ``baseline`` (``compare_runs`` per pair), each measure's randomization
    p-values adjusted across the runs by ``correction`` ("holm" or "bonferroni").

    Raises ``RanklensError`` for an unknown correction, or when no question has anything judged relevant.
    """
    if correction not in CORRECTIONS:
        raise RanklensError(f"unknown correction {correction!r} (choose from {', '.join(CORRECTIONS)})")
    if not runs:
        raise RanklensError("nothing to compare the baseline with: give at least one run")
    chosen = parse_measures(measures) if isinstance(measures, str) else list(measures)
    pairs: list[Comparison] = []
    for done, run in enumerate(runs):
        progress(done, len(runs), f"testing {run.label} against {baseline.label}")
        pairs.append(compare_runs(baseline, run, questions, chosen, permutations, seed))
    progress(len(runs), len(runs), "tested")
    adjusted = {m.name: CORRECTIONS[correction]([pair.rows[i].p_randomization for pair in pairs])
                for i, m in enumerate(chosen)}
    compared = [RunAgainstBaseline(run, pair, {name: p[r] for name, p in adjusted.items()})
                for r, (run, pair) in enumerate(zip(runs, pairs))]
    notes = list(dict.fromkeys(note for pair in pairs for note in pair.notes))
    compared_ids = {q.id for pair in pairs for q in pair.questions}
    in_order = [q.id for q in questions if q.id in compared_ids]
    sides = {side.label: side for side in (baseline, *runs)}
    coverage = judged_coverage(sides, [q for q in questions if q.id in compared_ids])
    many = ManyComparison(baseline, compared, [m.name for m in chosen], in_order, correction, permutations, seed,
                          notes, coverage)
    if not many.same_questions():
        many.notes.append("the runs' judgments resolve to different questions (they chunk differently): each "
                          "run's Δ is against the baseline on the questions of its own pair")
    return many
