"""Raters on the command line: the ``--rater``/``--raters`` values of ``ranklens judgments``, and its
``--agreement`` report as text (engine/judging/agreement.py computes it)."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ranklens.cli.output import terminal_text

if TYPE_CHECKING:
    from ranklens.engine.judging.agreement import Agreement


def rater_name(text: str) -> str:
    """``--rater``'s value: a usable rater's name (engine/judging/raters.py), else the option's one-line error."""
    from ranklens.engine.judging.raters import rater_problem

    problem = rater_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"--rater: {problem}")
    return text


def rater_names(text: str) -> list[str]:
    """``--raters A,B``: two raters' names or more, separated by commas."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if len(set(names)) < 2:
        raise argparse.ArgumentTypeError(f"--raters: name two raters or more, separated by commas (got {text!r})")
    return names


def agreement_lines(report: Agreement) -> list[str]:
    """The report for people: the kappas and raw agreement, each two raters, the questions disagreed on most."""
    from ranklens.engine.judging.raters import shown_rater

    names = ", ".join(terminal_text(shown_rater(r)) for r in report.raters)
    if len(report.raters) < 2:
        whose = f" (all {names}'s)" if report.raters else ""
        return [f"agreement needs two raters or more: the workspace's judgments have {len(report.raters)}{whose}"]
    lines = [f"agreement of {len(report.raters)} raters ({names}) on the {report.pairs} pairs "
             f"(question, id) every one graded:"]
    numbers = []
    if len(report.raters) == 2:
        numbers += [f"Cohen's kappa {_value(report.kappa)}", f"linear weighted {_value(report.kappa_linear)}"]
    numbers += [f"Fleiss' kappa {_value(report.fleiss_kappa)}", f"raw agreement {_value(report.agreement)}"]
    lines.append("  " + " · ".join(numbers))
    if len(report.raters) > 2:
        for pair in report.rater_pairs:
            first, second = (terminal_text(shown_rater(r)) for r in pair.raters)
            lines.append(f"  {first} – {second}: {pair.pairs} pairs · Cohen's kappa {_value(pair.kappa)} · "
                         f"linear {_value(pair.kappa_linear)} · raw agreement {_value(pair.agreement)}")
    if not report.disagreements:
        lines.append("no question where raters gave one id different grades")
        return lines
    lines.append("disagree most (mean grade difference · ids graded differently / by two raters or more):")
    ids = [terminal_text(d.question) for d in report.disagreements]
    width = max(map(len, ids))
    for disagreement, qid in zip(report.disagreements, ids):
        first_id, grades = disagreement.ids[0]
        given = ", ".join(f"{terminal_text(shown_rater(r))} {g}" for r, g in grades.items())
        lines.append(f"  {qid:<{width}}  {disagreement.mean_difference:.2f}  {disagreement.differing}/"
                     f"{disagreement.judged}  {terminal_text(disagreement.text)[:50]}  "
                     f"(e.g. {terminal_text(first_id)}: {given})")
    return lines


def _value(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"
