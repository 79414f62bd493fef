"""The Metrics tab: every scorer measured on the corpus' questions, each question's ranks, and the threshold.

What it shows is ``engine.experiments.scorers.compare_scorers``: every scorer
under the app's analysis and chunking settings, then the current scorer's
threshold analysis. With a reranker in the setup, the current scorer's ranking
reranked (``engine.rerank.evaluate_reranking``) shows beside it, as a row of the
table and a column of ranks: a second run, started once the scorers are measured,
so changing only the reranker reranks without measuring the scorers again. The
tab runs both in workers and draws the results.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, Static

from ranklens.engine.progress import Progress
from ranklens.engine.scoring.registry import scorer_names, spec
from ranklens.tui.charts import MARK_STYLE, DotRow, dot_rows
from ranklens.tui.context import Context, UseQuery
from ranklens.tui.heap import keep_built
from ranklens.tui.metric_text import metric_columns, metric_text, plural
from ranklens.tui.safe import clean, one_line, safe_text
from ranklens.tui.saving import SaveFlow, ask_and_save
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.lists import KeyScroll, KeyTable
from ranklens.tui.widgets.row_list import Column, RowList
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison
    from ranklens.engine.experiments.weights import FusionSweep
    from ranklens.engine.metrics import Evaluation
    from ranklens.engine.rerank import Reranking

RANK_WIDTH = 6
GOLD_WIDTH = 14
MIN_QUESTION_WIDTH = 16
MAX_LISTED_SCORES = 6  # unanswerable questions' top scores listed under the chart
CORPUS_FORMAT = "docs/corpus-format.md"
COMPACT_BELOW = 78  # pane width under which hit rates show as counts only
LABEL_MIN = 16  # cells a scorer's label keeps however narrow the pane: cut shorter, labels look alike
QUESTION_CUT = 400  # a question's text is cut here before the list cuts it to its column
FILTER_PAUSE_S = 0.2  # the filter applies once typing pauses
RERANKS_KEPT = 4  # reranked rankings kept per tab: turning a reranker off and on again reranks nothing
RERANKED = "rerank"  # the reranked ranking's name: its row's key, its column of ranks, its row exported


def safe_name(name: str) -> str:
    """A corpus name as part of a file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "corpus"


@dataclass(frozen=True)
class Reranked:
    """The setup's first stage reranked, as the tab shows it."""

    label: str  # "BM25 lucene → rerank mmarco top 5"
    reranking: Reranking


def table_text(target: Path, result: ScorerComparison, reranked: Reranked | None) -> str:
    """The table as JSON (``.json``: the comparison's to_dict, as ``compare-scorers --json``, plus ``rerank``
    as ``eval --rerank --json`` has it, with a reranker) or CSV (a row per scorer: its name, label and
    metrics; the reranked ranking's named ``rerank``)."""
    if target.suffix.lower() == ".json":
        data = result.to_dict()
        if reranked is not None:
            data["rerank"] = {"scorer": result.current, "label": reranked.label, **reranked.reranking.to_dict()}
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    keys = [key for _, key in metric_columns()]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["scorer", "label", *keys])
    for r in result.scorers:
        writer.writerow([r.scorer, r.label, *(r.evaluation.metrics[key] for key in keys)])
    if reranked is not None:
        writer.writerow([RERANKED, reranked.label, *(reranked.reranking.evaluation.metrics[key] for key in keys)])
    return out.getvalue()


def first_stage(context: Context) -> Hashable:
    """What the scorers' table depends on: the workbench and the setup less its reranker (and so its top)."""
    return (id(context.workbench), dataclasses.replace(context.setup, rerank=None, rerank_top=1))


def whole_setup(context: Context) -> Hashable:
    """What a reranked ranking depends on: the workbench and the whole setup."""
    return (id(context.workbench), context.setup)


def measure(context: Context, progress: Progress) -> ScorerComparison:
    """Every scorer under the context's settings, then the current scorer's threshold (in a worker)."""
    from ranklens.engine.experiments.scorers import compare_scorers  # numpy: loaded off the first paint

    return compare_scorers(context.workbench, context.setup, progress=progress, checkpoint=keep_built)


def rerank(context: Context, progress: Progress) -> Reranked:
    """The setup's scorer reranked by its reranker over the answerable questions (in a worker)."""
    from ranklens.engine.experiments.common import scorer_label
    from ranklens.engine.rerank import evaluate_reranking, reranker_for

    retriever = context.workbench.retriever(context.setup, progress)
    progress(0, 0, f"loading reranker {context.setup.rerank}")
    reranking = evaluate_reranking(retriever, reranker_for(retriever), progress=progress)
    return Reranked(f"{scorer_label(retriever.setup)} → rerank {Path(reranking.reranker).name} top {reranking.top}",
                    reranking)


def tune(context: Context, progress: Progress) -> FusionSweep:
    """The fusion sweep of the context's fusion (in a worker)."""
    from ranklens.engine.experiments.weights import fusion_sweep

    return fusion_sweep(context.workbench.retriever(context.setup, progress), progress=progress)


class QuestionList(RowList):
    """Every question with its ranks, drawn as it scrolls into view; Enter is described because it leaves
    the tab."""

    BINDINGS = [Binding("enter", "select_cursor", "search it", tooltip="Search it", id="metrics.use")]


class MetricsPane(WorkPane):
    DEFAULT_CSS = """
    MetricsPane #metrics-scorers { height: auto; max-height: 6; }
    MetricsPane #metrics-questions { height: 1fr; min-height: 5; }
    MetricsPane #metrics-filter { height: 3; display: none; }
    MetricsPane.-filtering #metrics-filter { display: block; }
    MetricsPane #metrics-sweep { height: 1fr; display: none; }
    MetricsPane.-tuned #metrics-sweep { display: block; }
    MetricsPane.-tuned #metrics-questions, MetricsPane.-tuned #metrics-threshold { display: none; }
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
        self._folded: list[str] = []  # the questions' text casefolded, for the filter
        self._filter_timer: Timer | None = None
        self._fit: tuple[bool, int] | None = None  # the scorer table's layout when last drawn (see _layout)

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        # Nothing to do on a scorer row, so the table stays out of the focus chain.
        scorers = KeyTable(id="metrics-scorers", cursor_type="none")
        scorers.can_focus = False
        yield scorers
        yield TextBox(placeholder="words of the question", id="metrics-filter", classes="-framed")
        yield QuestionList(id="metrics-questions", classes="-framed")
        with KeyScroll(id="metrics-sweep", classes="-framed"):
            yield Static(id="metrics-sweep-text", markup=False)
        yield Chart(id="metrics-threshold")
        yield Static(id="metrics-empty", markup=False)

    def on_mount(self) -> None:
        self.query_one("#metrics-questions", QuestionList).border_title = "questions · Enter searches one"
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

    def _clear(self) -> None:
        self.result = None
        self.reranked = None
        self._measured = None
        self._folded = []
        self.query_one("#metrics-scorers", KeyTable).clear()
        self.query_one("#metrics-questions", QuestionList).clear()
        self.query_one("#metrics-sweep-text", Static).update("")
        self._show_sweep(False)
        self.query_one("#metrics-threshold", Chart).plot(None)

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
        self._folded = [q.text.casefold() for q in result.questions]
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
        self._show_threshold(result)
        if result.complete and self.context is not None:
            self._measured = first_stage(self.context)
            self._show_reranked(self.context)
        else:
            self._draw()

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
        self._show_scorers(result)
        self._show_questions(result)

    def _summary(self, result: ScorerComparison, note: str = "") -> str:
        """The status line over a measured table, ``note`` early, before it is cut to the width."""
        notes = list(dict.fromkeys(note for r in result.scorers for note in r.notes))  # fusion repeats its parts'
        done = "" if result.complete else " (cancelled before the others)"
        reranked = [note] if note else []
        if self.reranked is not None:
            r = self.reranked.reranking
            reranked.append(f"reranked by {Path(r.reranker).name} in {r.timing['rerank_s']:.1f} s "
                            f"({r.timing['pairs_per_s']:,.0f} pairs/s)")
        return " · ".join([f"{plural(result.question_count, 'question')}, "
                           f"{plural(len(result.scorers), 'scorer')}{done}; r re-runs", *reranked,
                           *result.notes, *notes])

    def on_resize(self, event: events.Resize) -> None:
        # Hit rates go compact when narrow; the question list fits its columns itself.
        if self.result is not None and self.result.scorers and self._fit != self._layout(self.result):
            self._show_scorers(self.result)

    def _rows(self, result: ScorerComparison) -> list[tuple[str, str, Evaluation, bool]]:
        """The table's rows: (key, label, evaluation, whether the setup ranks by it); the reranked ranking
        under its first stage."""
        rows = []
        for r in result.scorers:
            rows.append((r.scorer, r.label, r.evaluation, r.scorer == result.current))
            if r.scorer == result.current and self.reranked is not None:
                rows.append((RERANKED, self.reranked.label, self.reranked.reranking.evaluation, True))
        return rows

    def _layout(self, result: ScorerComparison) -> tuple[bool, int]:
        """How the table fits the pane: whether hit rates show as counts only (under COMPACT_BELOW columns, or
        when the full table would not fit: 4281/7609 0.563 on a large corpus), and the cells a scorer's label
        may take (a reranker's name can be long: what the metrics leave, at least LABEL_MIN)."""
        rows = self._rows(result)
        labels = max(len(label) + 2 for _, label, _, _ in rows)

        def metrics(compact: bool) -> int:  # compact: one leading space per cell, else one on each side
            return sum(max(len(header), *(len(metric_text(evaluation, key, compact)) for _, _, evaluation, _ in rows))
                       + (1 if compact else 2) for header, key in metric_columns())

        width = self.content_size.width
        if self.size.width >= COMPACT_BELOW and labels + 2 + metrics(False) <= width:
            return False, labels
        return True, labels if not width else max(LABEL_MIN, min(labels, width - metrics(True)))

    def _show_scorers(self, result: ScorerComparison) -> None:
        table = self.query_one("#metrics-scorers", KeyTable)
        # The columns come with the first result: their names are the engine's (see metric_columns).
        columns = metric_columns()
        table.clear(columns=True)
        self._fit = compact, room = self._layout(result)
        table.cell_padding = 0 if compact else 1  # compact: one leading space per cell instead
        gap = " " if compact else ""
        table.add_columns("scorer", *(gap + header for header, _ in columns))
        keys = [key for _, key in columns]
        rows = self._rows(result)
        best = {key: max(evaluation.metrics[key] for _, _, evaluation, _ in rows) for key in keys}
        highlight = f"bold {self.colour('success')}"
        # Under 80 columns hit rates show as counts only, so every metric's column fits.
        for name, label, evaluation, current in rows:
            mark = "▸ " if name == result.current else "  "
            cells = [Text(mark + one_line(label, room - len(mark)), style="bold" if current else "")]
            for key in keys:
                is_best = evaluation.metrics[key] >= best[key] - 1e-12
                cells.append(Text(gap + metric_text(evaluation, key, compact), style=highlight if is_best else ""))
            table.add_row(*cells, key=name)

    def _show_questions(self, result: ScorerComparison) -> None:
        questions = self.query_one("#metrics-questions", QuestionList)
        shown = self._ordered(result)
        matching = f" · {len(shown):,} of {len(result.questions):,} match" if len(shown) < len(result.questions) else ""
        questions.border_title = f"questions{matching} · Enter searches one"
        columns = [Column("question", 0), Column("gold", GOLD_WIDTH),
                   *(Column(spec(r.scorer).label, RANK_WIDTH) for r in result.scorers)]
        if self.reranked is not None:
            columns.append(Column(RERANKED, RANK_WIDTH))
        questions.set_rows(columns, shown, lambda n: self._cells(result, int(str(n))))

    def _cells(self, result: ScorerComparison, n: int) -> list[Text]:
        """Question ``n``'s row, drawn when it scrolls into view."""
        q = result.questions[n]
        gold = safe_text(one_line(", ".join(q.gold), GOLD_WIDTH) if q.gold else "answer cut")
        if not q.gold:
            gold.stylize(self.colour("error"))
        ranks = [*q.ranks]
        if self.reranked is not None:
            ranks.append(self.reranked.reranking.evaluation.per_question[n].rank)
        return [safe_text(one_line(q.text, QUESTION_CUT)), gold, *(self._rank(rank) for rank in ranks)]

    def _ordered(self, result: ScorerComparison) -> list[int]:
        """Positions of the questions in the file that match the filter, in file order or worst rank first
        under the setup's ranking (its scorer's, reranked when it has a reranker)."""
        wanted = self.query_one("#metrics-filter", TextBox).value.casefold().split()
        rows = [n for n, text in enumerate(self._folded) if all(word in text for word in wanted)]
        names = [r.scorer for r in result.scorers]
        if self.worst_first and self.reranked is not None:
            ranks = [r.rank for r in self.reranked.reranking.evaluation.per_question]
        elif self.worst_first and result.current in names:
            at = names.index(result.current)
            ranks = [q.ranks[at] for q in result.questions]
        else:
            return rows
        rows.sort(key=lambda n: (ranks[n] is None, ranks[n] or 0), reverse=True)
        return rows

    def action_filter(self) -> None:
        self.add_class("-filtering")
        box = self.query_one("#metrics-filter", TextBox)
        box.border_title = "filter · Escape keeps it, Enter clears"
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "metrics-filter":
            event.stop()
            if self._filter_timer is not None:
                self._filter_timer.stop()
            self._filter_timer = self.set_timer(FILTER_PAUSE_S, self._refilter)

    def _refilter(self) -> None:
        if self.result is not None and self.result.scorers:
            self._show_questions(self.result)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "metrics-filter":  # Enter: no filter any more
            event.stop()
            event.input.value = ""
            self.remove_class("-filtering")
            self._show_sweep(False)
            self.query_one("#metrics-questions", QuestionList).focus()

    def action_order(self) -> None:
        self.worst_first = not self.worst_first
        self.notify("questions: worst rank first" if self.worst_first else "questions: in file order")
        if self.result is not None and self.result.scorers:
            self._show_questions(self.result)
            self.query_one("#metrics-questions", QuestionList).cursor_row = 0

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

    def _tuned(self, sweep: FusionSweep) -> None:
        from ranklens.engine.experiments.weights import grid_lines, verdict_lines

        # The verdict first: at 80x24 the grid runs below the fold.
        text = Text("\n".join([*verdict_lines(sweep), "", *grid_lines(sweep)]))
        text.highlight_regex("★", f"bold {self.colour('success')}")
        self.query_one("#metrics-sweep-text", Static).update(text)
        self.query_one(WorkStatus).show(
            f"held out: tuned fusion {sweep.cv_ndcg:.3f}, best single {sweep.cv_single_ndcg:.3f}, "
            f"gain {sweep.gain:+.3f} (p={sweep.p_ttest:.2g}) · u back")
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
            self.query_one("#metrics-questions", QuestionList).focus()
        if was_shown and self.result is not None and self.result.scorers:  # the sweep's verdict goes with it
            self.query_one(WorkStatus).show(self._summary(self.result))
