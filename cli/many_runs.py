"""``ranklens compare CORPUS BASE R1 R2 …`` as text: every measure, the baseline then each run against it.

The runs are named R1, R2, … in the table (a setup such as "lsa --dims 100" would not fit a column)
and spelled out above it; the p-values corrected over the runs are the randomization test's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.cli.output import say, terminal_text
from ranklens.engine.comparing.p_text import format_p as _p

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.comparing.many_runs import ManyComparison
    from ranklens.engine.judging.counted import Judged

CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonf."}  # the corrected p's column: "p Holm"


def _named(code: str, side: RunSide) -> str:
    label = terminal_text(side.label)
    return f"{code:<4} {label}" + (f"  ({side.describe})" if side.describe and side.describe != side.label else "")


def print_many(judged: Judged, comparison: ManyComparison) -> None:
    runs = comparison.runs
    corrected = CORRECTION_NAMES[comparison.correction]
    say(f"# {judged.corpus.name} · {len(comparison.questions)} judged questions ({judged.describe()}) · "
        f"randomization: {comparison.permutations:,} sign flips, seed {comparison.seed}")
    say(_named("base", comparison.baseline))
    for i, run in enumerate(runs, 1):
        say(_named(f"R{i}", run.side))
    say(f"p {corrected}: each measure's randomization p corrected over the {len(runs)} runs "
        f"({comparison.correction})")
    width = max(8, *(len(name) for name in comparison.measures))
    say(f"{'measure':<{width}}  {'run':<4} {'mean':>7} {'Δ':>8}  {'p t-test':>8} {'p rand.':>8} "
        f"{'p ' + corrected:>8}  CI95 of Δ")
    baseline = comparison.baseline_means()
    for name in comparison.measures:
        say(f"{name:<{width}}  {'base':<4} {baseline[name]:>7.4f}")
        for i, run in enumerate(runs, 1):
            row = run.row(name)
            low, high = row.ci95
            say(f"{'':<{width}}  {'R' + str(i):<4} {row.b:>7.4f} {row.delta:>+8.4f}  {_p(row.p_ttest):>8} "
                f"{_p(row.p_randomization):>8} {_p(run.adjusted[name]):>8}  [{low:+.4f}, {high:+.4f}]")
    primary = comparison.measures[0]
    for i, run in enumerate(runs, 1):
        row = run.row(primary)
        say(f"R{i} against base on {primary}: {row.wins} wins, {row.ties} ties, {row.losses} losses")
