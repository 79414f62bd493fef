"""``ranklens.evaluate``: a run measured against judgments, as ir_measures and ranx do it, with ranklens' measures.

Judgments and runs come as plain dicts (``{question: {id: grade}}``, ``{question: {id: score}}``: what
``pytrec_eval`` takes), as TREC files (``qid 0 id grade``, ``qid Q0 id rank score tag``; a BEIR qrels TSV
too), or as a ``Run`` of ``Workbench.run``. A dict run is ranked by score, equal scores in the dict's
order (a file's by its rank column, then its line order: ``engine/measuring/trec.py``). Measures are named as
ir_measures names them (``"nDCG@10 bpref judged@10"``); ``engine/measuring/measures`` defines each.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ranklens.display import Printed, data_frame
from ranklens.results import Run

if TYPE_CHECKING:
    import pandas

    from ranklens.engine.measuring.measures import RunMeasures

Judgments = Mapping[str, Mapping[str, int]] | str | os.PathLike[str]
Ranking = Mapping[str, Mapping[str, float]] | str | os.PathLike[str] | Run


def evaluate(qrels: Judgments, run: Ranking, measures: str | Iterable[str] | None = None) -> Measured:
    """Every measure of ``measures`` (default ``"nDCG@10 MRR@10 P@5 R@100 MAP"``) on each question of ``qrels``
    with something relevant (grade >= 1), and their means; a question the run leaves out scores 0 there. Raises
    ``RanklensError`` for an unknown measure or a file that cannot be read (naming its line)."""
    from ranklens.engine.measuring.measures import DEFAULT_MEASURES, measure_run, parse_measures

    chosen = parse_measures(DEFAULT_MEASURES if measures is None else measures)
    judgments, warnings = _judgments(qrels)
    ranked, more = _ranked(run)
    measured = measure_run(ranked, judgments, chosen)
    measured.warnings[:0] = [*warnings, *more]
    return Measured(measured)


def _judgments(qrels: Judgments) -> tuple[dict[str, dict[str, int]], list[str]]:
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.measuring.trec import read_qrels

    if isinstance(qrels, str | os.PathLike):
        read = read_qrels(qrels)
        return read.judgments, read.warnings
    judgments: dict[str, dict[str, int]] = {}
    for qid, grades in qrels.items():
        judgments[str(qid)] = {}
        for ident, grade in grades.items():
            if not isinstance(grade, int | float) or grade != int(grade):
                raise RanklensError(f"qrels: question {qid!r}, id {ident!r}: grade {grade!r} is not a whole number")
            judgments[str(qid)][str(ident)] = int(grade)
    return judgments, []


def _ranked(run: Ranking) -> tuple[dict[str, list[str]], list[str]]:
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.measuring.trec import read_run

    if isinstance(run, Run):
        return run.run.ids(), []
    if isinstance(run, str | os.PathLike):
        read = read_run(run)
        return read.ids(), read.warnings
    ranked: dict[str, list[str]] = {}
    for qid, scores in run.items():
        for ident, score in scores.items():
            if not isinstance(score, int | float) or not math.isfinite(score):
                raise RanklensError(f"run: question {qid!r}, id {ident!r}: score {score!r} is not a finite number")
        # sorted() is stable: equal scores keep the dict's order
        ranked[str(qid)] = [str(ident) for ident, _ in sorted(scores.items(), key=lambda item: -item[1])]
    return ranked, []


class Measured(Printed):
    """A run's measures: per question and their means over the questions measured."""

    def __init__(self, measured: RunMeasures) -> None:
        self._measured = measured

    @property
    def metrics(self) -> dict[str, float]:
        """Each measure's mean over the questions measured, by its name (``nDCG@10``)."""
        return self._measured.means

    @property
    def per_question(self) -> dict[str, dict[str, float]]:
        """Question id -> measure name -> value, in the judgments' order."""
        return {qid: self._measured.question(i) for i, qid in enumerate(self._measured.questions)}

    @property
    def warnings(self) -> list[str]:
        """What measuring found: questions missing from the run, run questions without judgments, ties."""
        return list(self._measured.warnings)

    def to_dict(self) -> dict[str, Any]:
        return {"questions": len(self._measured.questions), "metrics": self.metrics,
                "per_question": self.per_question, "warnings": self.warnings}

    def to_frame(self, per_question: bool = False) -> pandas.DataFrame:
        """The means as one row, or with ``per_question`` a row per question indexed by its id."""
        if per_question:
            return data_frame([{"question": qid, **values} for qid, values in self.per_question.items()],
                              index="question")
        return data_frame([{"questions": len(self._measured.questions), **self.metrics}], index="questions")

    def text(self) -> str:
        width = max(8, *(len(name) for name in self.metrics))
        lines = [f"# {len(self._measured.questions)} judged questions", f"{'measure':<{width}}  {'mean':>7}"]
        lines += [f"{name:<{width}}  {value:>7.4f}" for name, value in self.metrics.items()]
        return "\n".join([*lines, *(f"({warning})" for warning in self.warnings)])
