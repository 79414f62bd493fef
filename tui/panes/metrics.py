"""The Metrics tab: every scorer measured on the corpus' questions, each question's ranks, and the threshold.

What it shows is ``engine.experiments.scorers.compare_scorers``: every scorer
under the app's analysis and chunking settings, then the current scorer's
threshold analysis. With a reranker in the setup, the current scorer's ranking
reranked (``engine.rerank.evaluate_reranking``) shows beside it, as a row of the
table and a column of ranks: a second run, started once the scorers are measured,
so changing only the reranker reranks without measuring the scorers again. The
tab runs both in workers (tui/metrics_work.py) and draws the results with its
widgets: the scorers' table, the questions' ranks, the threshold chart. ``b`` shows,
in place of the ranks, the scorers' numbers per stratum of a question field
(``engine/comparing/strata.py``: tags, metadata, length), grouped in a worker once measured.
"""
from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from ranklens.engine.measuring.metric_table import better_metrics, eval_metrics
from ranklens.engine.scoring.registry import scorer_names, spec
from ranklens.tui.context import Context, UseQuery
from ranklens.tui.metric_text import plural
from ranklens.tui.metrics_work import (
    Reranked, StrataTable, first_stage, measure, rerank, safe_name, strata, table_text, tune, whole_setup,
)
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.safe import clean, one_line, safe_content, safe_text
from ranklens.tui.saving import SaveFlow, ask_and_save
from ranklens.tui.strata_text import strata_text
from ranklens.tui.typing_pause import TypingPause
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.widgets.lists import KeyScroll
from ranklens.tui.widgets.question_list import QuestionList
from ranklens.tui.widgets.row_list import RowList
from ranklens.tui.widgets.scorer_table import ScorerTable
from ranklens.tui.widgets.threshold_chart import ThresholdChart
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison
    from ranklens.engine.experiments.weights import FusionSweep

CORPUS_FORMAT = "docs/corpus-format.md"
COMPACT_BELOW = 78  # pane width under which hit rates show as counts only
FILTER_PAUSE_S = 0.2  # the filter applies once typing pauses
RERANKS_KEPT = 4  # reranked rankings kept per tab: turning a reranker off and on again reranks nothing


class MetricsPane(WorkPane):
    DEFAULT_CSS = """
    MetricsPane #metrics-scorers { height: auto; max-height: 6; }
    MetricsPane #metrics-questions { height: 1fr; min-height: 5; }
    MetricsPane #metrics-filter { height: 3; display: none; }
    MetricsPane.-filtering #metrics-filter { display: block; }
    MetricsPane #metrics-sweep { height: 1fr; display: none; }
    MetricsPane.-tuned #metrics-sweep { display: block; }
    MetricsPane.-tuned #metrics-questions, MetricsPane.-tuned #metrics-threshold { display: none; }
    MetricsPane #metrics-strata { height: 1fr; display: none; }
    MetricsPane.-strata #metrics-strata { display: block; }
    MetricsPane.-strata #metrics-questions, MetricsPane.-strata #metrics-threshold { display: none; }
    MetricsPane #metrics-empty { display: none; padding: 1 2; }
    MetricsPane.-no-questions #metrics-empty { display: block; }
    MetricsPane.-no-questions #metrics-scorers, MetricsPane.-no-questions #metrics-questions,
    MetricsPane.-no-questions #metrics-threshold { display: none; }
    """
    BINDINGS = [
        Binding("r", "rerun", "re-run", tooltip="Re-evaluate", id="metrics.rerun"),
        Binding("f", "filter", "filter", tooltip="Filter the questions by their text", id="metrics.filter"),
        Binding("o", "order", "sort", tooltip="Sort the questions: worst rank first / file order", id="metrics.order"),
        Binding("u", "tune", "tune", tooltip="Tune the fusion: weight, method, normalisation, cross-validated "
                "(u again: back to the questions)", id="metrics.tune"),
        Binding("b", "by_field", "by field", tooltip="Measures by a question field: tags, metadata, length "
                "(b again: the next field, then back to the questions)", id="metrics.by_field"),
        Binding("B", "strata_measure", "measure", tooltip="Measures by a question field: the next measure",
                show=False, id="metrics.strata_measure"),
        Binding("e", "export", "export", tooltip="Export the table (CSV, or JSON by the file's name)", show=False,
                id="metrics.export"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.result: ScorerComparison | None = None
        self.reranked: Reranked | None = None  # the setup's reranker over its scorer, beside the result
        self._measured: Hashable = None  # first_stage() of a complete result
        self._reranks: dict[Hashable, Reranked] = {}  # by workbench and setup, the newest last
        self.worst_first = False  # the questions' order: file order, or the current scorer's worst rank first
        self._last_export: Path | None = None
        self._filter_pause = TypingPause(self, FILTER_PAUSE_S)
        self.strata_by: str | None = None  # the field the strata view groups by ("": the first); None: not shown
        self.strata_table: StrataTable | None = None
        self.strata_measure = better_metrics()[0].key  # the metric the strata view shows

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        yield ScorerTable(id="metrics-scorers")
        yield TextBox(placeholder="words of the question", id="metrics-filter", classes="-framed")
        yield QuestionList(id="metrics-questions", classes="-framed")
        with KeyScroll(id="metrics-sweep", classes="-framed"):
            yield Static(id="metrics-sweep-text", markup=False)
        with KeyScroll(id="metrics-strata", classes="-framed"):
            yield Static(id="metrics-strata-text", markup=False)
        yield ThresholdChart(id="metrics-threshold")
        yield Static(id="metrics-empty", markup=False)

    def on_mount(self) -> None:
        self.query_one(QuestionList).border_title = "questions · Enter searches one"
        self.query_one("#metrics-sweep", KeyScroll).border_title = "fusion sweep · u: back to the questions"

    def refresh_content(self, context: Context) -> None:
        if self.result is not None and self._measured == first_stage(context):
            self._show_reranked(context)  # only the reranker changed: the scorers' numbers stand
            return
        # What is on screen was measured for another corpus or setup: it goes now, not when the new
        # numbers arrive (35 s on a large corpus).
        self._clear()
        # Escape keeps the scorers already measured.
        self.start_work("evaluate", lambda progress: measure(context, progress), self._measured_all,
                        label=f"evaluating {plural(len(scorer_names()), 'scorer')} on {clean(context.corpus.name)}",
                        keeps_partial=True)

    def _show_reranked(self, context: Context) -> None:
        """The setup's reranked ranking beside the measured scorers: kept from an earlier run, else reranked
        now; none without a reranker."""
        self.reranked = self._reranks.get(whole_setup(context)) if context.setup.rerank else None
        self._show_sweep(False)  # the run that changed the setup stopped any sweep, and the line is the table's
        self._draw()
        if context.setup.rerank and self.reranked is None:
            self.start_work("rerank", lambda progress: rerank(context, progress), self._reranked,
                            label=f"reranking the top {context.setup.rerank_top} of "
                                  f"{plural(len(context.corpus.answerable), 'question')} with "
                                  f"{Path(context.setup.rerank).name}",
                            failed=self._rerank_failed)

    def corpus_opened(self) -> None:
        box = self.query_one("#metrics-filter", TextBox)
        box.value = ""
        self.remove_class("-filtering")
        self._show_sweep(False)
        self._show_strata(None)  # another corpus' questions have other fields

    def _clear(self) -> None:
        self.result = None
        self.reranked = None
        self._measured = None
        self.query_one(ScorerTable).clear()
        self.query_one(QuestionList).clear()
        self.query_one("#metrics-sweep-text", Static).update("")
        self.strata_table = None
        self.query_one("#metrics-strata-text", Static).update("")
        self._show_sweep(False)
        self.query_one(ThresholdChart).plot(None)

    def action_rerun(self) -> None:
        """What is missing (a reranking cancelled or failed), or everything again when nothing is."""
        if not self.has_corpus():
            return
        context = self.context
        assert context is not None
        missing = (context.setup.rerank and self.reranked is None and self.result is not None
                   and self._measured == first_stage(context))
        if not missing:
            self._reranks.pop(whole_setup(context), None)
            self._clear()  # measured anew, scorers first
        self.refresh_content(context)

    def _reranked(self, reranked: Reranked) -> None:
        assert self.context is not None  # results of an older context are dropped before here
        self._reranks.pop(key := whole_setup(self.context), None)  # newest last
        self._reranks[key] = self.reranked = reranked
        while len(self._reranks) > RERANKS_KEPT:
            del self._reranks[next(iter(self._reranks))]
        self._draw()

    def _measured_all(self, result: ScorerComparison) -> None:
        """The scorers measured: all of them, or those done before Escape."""
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
        self.query_one(ThresholdChart).show(result)
        if result.complete and self.context is not None:
            self._measured = first_stage(self.context)
            self._show_reranked(self.context)
        else:
            self._draw()
        if self.strata_by is not None:
            self._group(self.strata_by)

    def _rerank_failed(self, message: str) -> None:
        # The scorers' table stands; the line keeps why the reranking is missing (the notification fades).
        self._draw(f"reranking failed: {one_line(message, 160)} · r tries again")
        self.notify(one_line(message, 300), title="ranklens: no reranking", severity="error", markup=False)

    def _draw(self, note: str = "") -> None:
        """The status line, the scorers' table and the questions' ranks for what is measured."""
        result = self.result
        if result is None or not result.scorers:
            return
        self.query_one(WorkStatus).show(self._summary(result, note))
        self.query_one(ScorerTable).show(result, self.reranked, *self._room())
        self._show_questions(result)

    def _room(self) -> tuple[int, bool]:
        """The cells the scorers' table may take, and whether the tab is narrow (hit rates as counts only)."""
        return self.content_size.width, self.size.width < COMPACT_BELOW

    def _summary(self, result: ScorerComparison, note: str = "") -> str:
        """The status line over a measured table, ``note`` early, before it is cut to the width."""
        notes = list(dict.fromkeys(note for r in result.scorers for note in r.notes))  # fusion repeats its parts'
        done = "" if result.complete else " (cancelled before the others)"
        reranked = [note] if note else []
        if self.reranked is not None:
            r = self.reranked.reranking
            reranked.append(f"reranked by {Path(r.reranker).name} in {r.timing['rerank_s']:.1f} s "
                            f"({r.timing['pairs_per_s']:,.0f} pairs/s)")
        # Which judgments the numbers count (engine/judging/counted.py), as the command line's reports say it.
        judged = self.context.judged if self.context is not None else None
        counted = (judged.under(result.carried).describe() if judged is not None
                   else plural(result.question_count, 'question'))
        return " · ".join([f"{counted}, {plural(len(result.scorers), 'scorer')}{done}; r re-runs", *reranked,
                           *result.notes, *notes])

    def on_resize(self, event: events.Resize) -> None:
        # Hit rates go compact when narrow; the question list fits its columns itself.
        result, table = self.result, self.query_one(ScorerTable)
        if result is not None and result.scorers and not table.fits(result, self.reranked, *self._room()):
            table.show(result, self.reranked, *self._room())

    def _show_questions(self, result: ScorerComparison) -> None:
        words = self.query_one("#metrics-filter", TextBox).value.casefold().split()
        self.query_one(QuestionList).show(result, self.reranked, words, self.worst_first)

    def action_filter(self) -> None:
        self.add_class("-filtering")
        box = self.query_one("#metrics-filter", TextBox)
        box.border_title = "filter · Escape keeps it, Enter clears"
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "metrics-filter":
            event.stop()
            self._filter_pause.restart(self._refilter)

    def _refilter(self) -> None:
        if self.result is not None and self.result.scorers:
            self._show_questions(self.result)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "metrics-filter":  # Enter: no filter any more
            event.stop()
            event.input.value = ""
            self.remove_class("-filtering")
            self._show_sweep(False)
            self.query_one(QuestionList).focus()

    def action_order(self) -> None:
        self.worst_first = not self.worst_first
        self.notify("questions: worst rank first" if self.worst_first else "questions: in file order")
        if self.result is not None and self.result.scorers:
            self._show_questions(self.result)
            self.query_one(QuestionList).cursor_row = 0

    def action_export(self) -> None:
        result, reranked = self.result, self.reranked
        if result is None or not result.scorers:
            self.notify("nothing measured yet: the table is exported once it is there", severity="warning")
            return
        source = self.context.corpus.source if self.context is not None else None
        flow = SaveFlow("Export the metrics table to", "Enter saves (.json: JSON, else CSV), Escape cancels",
                        "metrics exported to", source)
        default = str(self._last_export) if self._last_export else f"~/ranklens-metrics-{safe_name(result.corpus)}.csv"
        ask_and_save(self, flow, default, lambda target: table_text(target, result, reranked), self._exported)

    def _exported(self, target: Path) -> None:
        self._last_export = target

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        if event.row_list.id == "metrics-questions" and self.result is not None:
            event.stop()
            self.post_message(UseQuery(self.result.questions[int(str(event.key))].text))

    def action_tune(self) -> None:
        if self.has_class("-tuned"):
            self._show_sweep(False)
            return
        if not self.has_corpus():
            return
        assert self.context is not None
        context = self.context
        if context.setup.scorer != "fusion":
            self.notify(f"the sweep tunes a fusion, and the scorer is {spec(context.setup.scorer).label}: "
                        "s switches scorers", severity="warning")
            return
        if self.is_working():
            self.notify("still working: u once it is done (Escape stops it)", severity="warning")
            return
        parts = "+".join(context.setup.fuse)
        self.start_work("tune", lambda progress: tune(context, progress), self._tuned,
                        label=f"tuning the fusion of {parts} on {clean(context.corpus.name)}")

    def action_by_field(self) -> None:
        """The strata view by the first field, then the next, and after ``length`` back to the questions."""
        if not self.has_corpus():
            return
        table = self.strata_table
        if self.strata_by is None:
            self._group("")
        elif table is not None and table.by != table.fields[-1]:
            self._group(table.fields[table.fields.index(table.by) + 1])
        else:  # past the last field, or b again before the first grouping arrived
            self._show_strata(None)

    def _group(self, by: str) -> None:
        """Group the measured scorers by ``by`` (a field, "" for the first) in a worker; before they are
        measured, the view waits for them."""
        self.strata_by = by
        self._show_strata(by)
        result, context = self.result, self.context
        if result is None or not result.scorers or context is None:
            self.query_one("#metrics-strata", KeyScroll).border_title = "by a question field · once measured"
            return
        self.start_work("strata", lambda progress: strata(context, result, by, progress), self._grouped)

    def _grouped(self, table: StrataTable) -> None:
        self.strata_by, self.strata_table = table.by, table
        self._draw_strata()

    def _draw_strata(self) -> None:
        table = self.strata_table
        if table is None:
            return
        following = "questions" if table.by == table.fields[-1] else table.fields[table.fields.index(table.by) + 1]
        shown = next(m.header for m in eval_metrics() if m.key == self.strata_measure)
        self.query_one("#metrics-strata", KeyScroll).border_title = safe_content(
            one_line(f"{shown} by {table.by} · b: {following} · B: next measure", max(20, self.size.width - 6)))
        self.query_one("#metrics-strata-text", Static).update(
            strata_text(table, self.strata_measure, f"bold {self.colour('success')}"))

    def action_strata_measure(self) -> None:
        if self.strata_by is None:
            self.notify("b shows the measures by a question field first", severity="warning")
            return
        keys = [m.key for m in eval_metrics()]
        self.strata_measure = keys[(keys.index(self.strata_measure) + 1) % len(keys)]
        self._draw_strata()

    def _show_strata(self, by: str | None) -> None:
        """The strata view in place of the questions and threshold (``by`` a field), or back (None)."""
        had_focus = self.app.focused is self.query_one("#metrics-strata")
        self.set_class(by is not None, "-strata")
        if by is not None:
            self._show_sweep(False)
            self.query_one("#metrics-strata", KeyScroll).focus()
            return
        self.strata_by, self.strata_table = None, None
        self.query_one("#metrics-strata-text", Static).update("")
        if had_focus:
            self.query_one(QuestionList).focus()

    def _tuned(self, sweep: FusionSweep) -> None:
        from ranklens.engine.experiments.weights import grid_lines, verdict_lines

        # The verdict first: at 80x24 the grid runs below the fold.
        text = Text("\n".join([*verdict_lines(sweep), "", *grid_lines(sweep)]))
        text.highlight_regex("★", f"bold {self.colour('success')}")
        self.query_one("#metrics-sweep-text", Static).update(text)
        self.query_one(WorkStatus).show(
            f"held out: tuned fusion {sweep.cv_ndcg:.3f}, best single {sweep.cv_single_ndcg:.3f}, "
            f"gain {sweep.gain:+.3f} (p={sweep.p_ttest:.2g}) · u back")
        self._show_strata(None)
        self._show_sweep(True)

    def _show_sweep(self, shown: bool) -> None:
        """The sweep's report in place of the questions and threshold, or back."""
        was_shown = self.has_class("-tuned")
        had_focus = was_shown and self.app.focused is self.query_one("#metrics-sweep")
        self.set_class(shown, "-tuned")
        if shown:
            self.query_one("#metrics-sweep", KeyScroll).focus()
            return
        if had_focus:
            self.query_one(QuestionList).focus()
        if was_shown and self.result is not None and self.result.scorers:  # the sweep's verdict goes with it
            self.query_one(WorkStatus).show(self._summary(self.result))
