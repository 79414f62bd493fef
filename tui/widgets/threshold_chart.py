"""The Metrics tab's threshold chart: the current scorer's top score of every question, answerable above
unanswerable, and the threshold t that tells them apart best ("answer if top ≥ t")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from ranklens.tui.charts import MARK_STYLE, DotRow, dot_rows
from ranklens.tui.safe import clean
from ranklens.tui.widgets.chart import Chart

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison

MAX_LISTED_SCORES = 6  # unanswerable questions' top scores listed under the chart


class ThresholdChart(Chart):
    def show(self, result: ScorerComparison) -> None:
        """``result``'s threshold analysis, or why there is none."""
        current = next((r.label for r in result.scorers if r.scorer == result.current), result.current)
        report = result.threshold
        if report is None:
            note = Content.assemble((f"threshold · {current}: ", "bold"), clean(result.threshold_note))
            self.plot(lambda width, height: [note])
            return
        # None only without questions, and then the tab shows no chart.
        assert report.best_accuracy is not None
        total = len(report.answerable) + len(report.unanswerable)
        title = Content.assemble(
            (f"threshold · {current}", "bold"), " · answer if top ≥ t · best ",
            (f"t={report.best_threshold:.3f}", MARK_STYLE),
            f": {round(report.best_accuracy * total)}/{total} right ({report.best_accuracy:.3f})",
        )
        rows = [DotRow(f"answerable {len(report.answerable)}", [q.top_score for q in report.answerable], "$success"),
                DotRow(f"unanswerable {len(report.unanswerable)}", [q.top_score for q in report.unanswerable],
                       "$error", "○")]
        summary = report.answerable_summary
        listed = " ".join(f"{q.top_score:.3f}" for q in report.unanswerable[:MAX_LISTED_SCORES])
        footer = Content.styled(
            f"answerable {summary['min']:.3f}…{summary['max']:.3f} (median {summary['median']:.3f})"
            f" · unanswerable {listed}{' …' if len(report.unanswerable) > MAX_LISTED_SCORES else ''}",
            "$text-muted")
        self.plot(lambda width, height: [title, *dot_rows(rows, width, report.best_threshold, "t="), footer])
