"""The Metrics tab: every scorer measured on the corpus' questions, each question's ranks, and the threshold.

What it shows is ``engine.experiments.scorers.compare_scorers``: every scorer
under the app's analysis and chunking settings, then the current scorer's
threshold analysis. The tab runs it in a worker and draws the result.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable, Static

from ranklens.engine.progress import Progress
from ranklens.engine.scoring.registry import scorer_names
from ranklens.tui.charts import MARK_STYLE, DotRow, dot_rows
from ranklens.tui.context import Context, UseQuery
from ranklens.tui.heap import keep_built
from ranklens.tui.metric_text import metric_columns, metric_text, plural
from ranklens.tui.safe import clean, one_line, safe_text
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison

SHORT_NAMES = {"tfidf": "TF-IDF", "bm25": "BM25", "lsa": "LSA", "fusion": "fusion"}
# A DataTable row costs the event loop a little; beyond this many questions the CLI is the tool.
MAX_QUESTION_ROWS = 500
RANK_WIDTH = 6
GOLD_WIDTH = 14
MIN_QUESTION_WIDTH = 16
MAX_LISTED_SCORES = 6  # unanswerable questions' top scores listed under the chart
CORPUS_FORMAT = "docs/corpus-format.md"
COMPACT_BELOW = 78  # pane width under which hit rates show as counts only


def measure(context: Context, progress: Progress) -> ScorerComparison:
    """Every scorer under the context's settings, then the current scorer's threshold (in a worker)."""
    from ranklens.engine.experiments.scorers import compare_scorers  # numpy: loaded off the first paint

    return compare_scorers(context.workbench, context.setup, progress=progress, checkpoint=keep_built,
                           question_rows=MAX_QUESTION_ROWS)


class QuestionTable(KeyTable):
    """The per-question table; Enter is described because it leaves the tab."""

    BINDINGS = [Binding("enter", "select_cursor", "search it", tooltip="Search it", id="metrics.use")]


class MetricsPane(WorkPane):
    DEFAULT_CSS = """
    MetricsPane #metrics-scorers { height: auto; max-height: 6; }
    MetricsPane #metrics-questions { height: 1fr; min-height: 5; }
    MetricsPane #metrics-empty { display: none; padding: 1 2; }
    MetricsPane.-no-questions #metrics-empty { display: block; }
    MetricsPane.-no-questions #metrics-scorers, MetricsPane.-no-questions #metrics-questions,
    MetricsPane.-no-questions #metrics-threshold { display: none; }
    """
    BINDINGS = [Binding("r", "rerun", "re-run", tooltip="Re-evaluate", id="metrics.rerun")]
    KEEPS_PARTIAL = frozenset({"evaluate"})  # Escape keeps the scorers already measured

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.result: ScorerComparison | None = None

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        # Nothing to do on a scorer row, so the table stays out of the focus chain.
        scorers = KeyTable(id="metrics-scorers", cursor_type="none")
        scorers.can_focus = False
        yield scorers
        yield QuestionTable(id="metrics-questions", cursor_type="row", zebra_stripes=True, classes="-framed")
        yield Chart(id="metrics-threshold")
        yield Static(id="metrics-empty", markup=False)

    def on_mount(self) -> None:
        self.query_one("#metrics-questions", QuestionTable).border_title = "questions · Enter searches one"

    def refresh_content(self, context: Context) -> None:
        # What is on screen was measured for another corpus or setup: it goes now, not when the new
        # numbers arrive (35 s on a large corpus).
        self._clear()
        self.start_work("evaluate", lambda progress: measure(context, progress),
                        f"evaluating {plural(len(scorer_names()), 'scorer')} on {clean(context.corpus.name)}")

    def _clear(self) -> None:
        self.result = None
        self.query_one("#metrics-scorers", KeyTable).clear()
        self.query_one("#metrics-questions", QuestionTable).clear()
        self.query_one("#metrics-threshold", Chart).plot(None)

    def action_rerun(self) -> None:
        if self.context is not None:
            self.refresh_content(self.context)

    def work_done(self, group: str, result: ScorerComparison) -> None:
        self.result = result
        status = self.query_one(WorkStatus)
        if not result.scorers and not result.complete:
            status.show("cancelled · r runs it again")
            return
        self.set_class(not result.scorers, "-no-questions")
        if not result.scorers:
            message = (f"{result.corpus} has no questions with an answer, so there is nothing to measure. "
                       f"Add queries.jsonl with qrels/test.tsv or \"answer\" spans (see {CORPUS_FORMAT}).")
            self.query_one("#metrics-empty", Static).update(safe_text(message))
            status.show(f"{result.corpus}: no questions")
            return
        notes = list(dict.fromkeys(note for r in result.scorers for note in r.notes))  # fusion repeats its parts'
        done = "" if result.complete else " (cancelled before the others)"
        status.show(" · ".join([f"{plural(result.question_count, 'question')}, "
                                f"{plural(len(result.scorers), 'scorer')}{done}; r re-runs",
                                *notes]))
        self._show_scorers(result)
        self._show_questions(result)
        self._show_threshold(result)

    def on_resize(self, event: events.Resize) -> None:
        # The question column takes the width that is left; hit rates go compact when narrow.
        if self.result is not None and self.result.scorers:
            self._show_scorers(self.result)
            self._show_questions(self.result)

    def _show_scorers(self, result: ScorerComparison) -> None:
        table = self.query_one("#metrics-scorers", KeyTable)
        # The columns come with the first result: their names are the engine's (see metric_columns).
        columns = metric_columns()
        table.clear(columns=True)
        compact = self.size.width < COMPACT_BELOW
        table.cell_padding = 0 if compact else 1  # compact: one leading space per cell instead
        gap = " " if compact else ""
        table.add_columns("scorer", *(gap + header for header, _ in columns))
        keys = [key for _, key in columns]
        best = {key: max(r.evaluation.metrics[key] for r in result.scorers) for key in keys}
        highlight = f"bold {self.colour('success')}"
        # Under 80 columns hit rates show as counts only, so every metric's column fits.
        for r in result.scorers:
            mark = "▸ " if r.scorer == result.current else "  "
            cells = [Text(mark + r.label, style="bold" if r.scorer == result.current else "")]
            for key in keys:
                is_best = r.evaluation.metrics[key] >= best[key] - 1e-12
                cells.append(Text(gap + metric_text(r.evaluation, key, compact), style=highlight if is_best else ""))
            table.add_row(*cells, key=r.scorer)

    def _show_questions(self, result: ScorerComparison) -> None:
        table = self.query_one("#metrics-questions", QuestionTable)
        row = table.cursor_row
        table.clear(columns=True)
        names = [SHORT_NAMES[r.scorer] for r in result.scorers]
        fixed = 2 + 2 + (GOLD_WIDTH + 2) + len(names) * (RANK_WIDTH + 2) + 2  # frame, padding, scrollbar
        width = max(MIN_QUESTION_WIDTH, self.content_size.width - fixed)
        extra = result.question_count - len(result.questions)
        table.add_column(f"question (first {len(result.questions)}; {extra} more: use the CLI)" if extra > 0
                         else "question", width=width)
        table.add_column("gold", width=GOLD_WIDTH)
        for name in names:
            table.add_column(name, width=RANK_WIDTH)
        for n, q in enumerate(result.questions):
            gold = safe_text(one_line(", ".join(q.gold), GOLD_WIDTH) if q.gold else "answer cut")
            if not q.gold:
                gold.stylize(self.colour("error"))
            table.add_row(safe_text(one_line(q.text, width)), gold, *(self._rank(rank) for rank in q.ranks),
                          key=str(n))
        if result.questions:
            table.move_cursor(row=min(row, len(result.questions) - 1))

    def _rank(self, rank: int | None) -> Text:
        """A rank, coloured by how far the answer is from the top; a miss stands out."""
        if rank is None:
            return Text("miss", style=f"bold {self.colour('error')}")
        colour = self.colour("success" if rank == 1 else "warning" if rank <= 3 else "error")
        return Text(str(rank).rjust(RANK_WIDTH - 1), style=colour if rank == 1 else f"bold {colour}")

    def _show_threshold(self, result: ScorerComparison) -> None:
        chart = self.query_one("#metrics-threshold", Chart)
        current = next((r.label for r in result.scorers if r.scorer == result.current), result.current)
        report = result.threshold
        if report is None:
            note = Content.assemble((f"threshold · {current}: ", "bold"), clean(result.threshold_note))
            chart.plot(lambda width, height: [note])
            return
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
        chart.plot(lambda width, height: [title, *dot_rows(rows, width, report.best_threshold, "t="), footer])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "metrics-questions" and self.result is not None:
            event.stop()
            self.post_message(UseQuery(self.result.questions[event.cursor_row].text))
