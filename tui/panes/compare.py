"""The Compare tab: two runs of the corpus' questions side by side, every measure's Δ tested.

A and B are each a saved run of the workspace (``S`` saves one) or the current setup, run
now. The comparison is engine/comparing/two_runs.py's, as ``ranklens compare`` prints it: the measures
(A, B, Δ, the paired t-test's and the randomization test's p-values, the bootstrap 95 %
interval of Δ), wins, ties and losses, a warning when either side's top 10 is less than 80 %
judged (engine/comparing/coverage.py), the questions by how much they moved, and for the
selected question the two rankings with each chunk's move and the relevant ones marked.
``y`` explains (engine/why.py) why the question's relevant chunk ranks where it does in B.

More runs are added with the third box ("+ run"): A is then the baseline and B, C, … are each
compared with it as ``ranklens compare BASE B C …`` compares them (engine/comparing/many_runs.py), one
measure at a time (``m`` the next), each run's randomization p corrected over the runs by Holm's
method; the questions and rankings below stay B against A. ``x`` drops the run added last.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Select, Static

from ranklens.engine.comparing.p_text import format_p
from ranklens.engine.work.progress import Progress
from ranklens.tui.context import Context
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.safe import one_line, safe_text
from ranklens.tui.widgets.lists import KeyScroll, KeyTable
from ranklens.tui.widgets.result_detail import Why, explained_why
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import Comparison, Placed, QuestionRow, RunSide
    from ranklens.engine.comparing.many_runs import ManyComparison
    from ranklens.engine.comparing.coverage import Coverage

CURRENT = "@current"  # the current setup among the choices; run names start with a letter or digit
RANKS_SHOWN = 20  # chunks of each ranking listed for the selected question
# Whole at 80 columns: where A and B are is what a first visit needs to read.
HINT = "Pick A and B with shift+tab: saved runs (S saves one) or the current setup."
SAME = "A and B are the same: pick them with shift+tab (S saves a run of this setup)."


def _saved_run_names(context: Context, progress: Progress) -> list[str]:
    try:
        return context.workspace.run_names() if context.workspace is not None else []
    except OSError:
        return []


@dataclass(frozen=True)
class QuestionWhy:
    question: str
    why: Why


def compare(context: Context, a: str, b: str, progress: Progress) -> Comparison:
    """The comparison of choices ``a`` and ``b`` on the context's questions (in a thread worker)."""
    from ranklens.engine.comparing.two_runs import compare_runs
    from ranklens.engine.measuring.measures import DEFAULT_MEASURES

    sides = [side(context, choice, progress) for choice in (a, b)]
    return compare_runs(sides[0], sides[1], context.corpus.questions, DEFAULT_MEASURES)


def compare_several(context: Context, a: str, others: list[str], progress: Progress) -> ManyComparison:
    """Each of ``others`` against the baseline ``a``, Holm-corrected over them (in a thread worker)."""
    from ranklens.engine.comparing.many_runs import compare_many
    from ranklens.engine.measuring.measures import DEFAULT_MEASURES

    sides = [side(context, choice, progress) for choice in (a, *others)]
    return compare_many(sides[0], sides[1:], context.corpus.questions, DEFAULT_MEASURES, progress=progress)


def side(context: Context, choice: str, progress: Progress) -> RunSide:
    """A saved run of the workspace, or the current setup's run made now."""
    from ranklens.engine.comparing.two_runs import run_depth, saved_side, setup_side

    if choice == CURRENT:
        return setup_side(f"current: {context.setup.scorer}", context.workbench, run_depth(context.setup), progress)
    assert context.workspace is not None
    return saved_side(context.workspace.load_run(choice), context.workbench)


def why_not(context: Context, comparison: Comparison, question: QuestionRow, progress: Progress) -> QuestionWhy:
    """Why the question's best relevant chunk ranks where it does under B's setup (A's when B's is unknown)."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.retriever import setup_for
    from ranklens.engine.setup import Setup

    chosen = comparison.b if comparison.b.setup or not comparison.a.setup else comparison.a
    setup = (Setup.from_mapping(chosen.setup, source=f"{chosen.label}'s setup") if chosen.setup
             else setup_for(context.corpus))
    relevant = chosen.qrels.get(question.id, {})
    best = sorted((ident for ident, grade in relevant.items() if grade >= 1), key=lambda i: -relevant[i])
    if not best:
        raise RanklensError(f"question {question.id}: no chunk judged relevant under {chosen.label}'s chunking")
    retriever = context.workbench.retriever(setup, progress)
    return QuestionWhy(question.id, explained_why(retriever, question.text, best[0]))


def measures_table(comparison: Comparison) -> Group:
    """The measures: A, B, Δ, both p-values and the 95 % interval of Δ; then wins, ties and losses."""
    table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold")
    table.add_column("measure", no_wrap=True)
    for name in ("A", "B", "Δ", "p t-test", "p rand.", "95% CI of Δ"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in comparison.rows:
        low, high = row.ci95
        table.add_row(row.name, f"{row.a:.4f}", f"{row.b:.4f}", f"{row.delta:+.4f}", format_p(row.p_ttest),
                      format_p(row.p_randomization), f"[{low:+.3f}, {high:+.3f}]")
    primary = comparison.primary
    summary = Text(f"B vs A on {primary.name}: {primary.wins:,} wins, {primary.ties:,} ties, {primary.losses:,} losses"
                   f" · {len(comparison.questions):,} questions", style="dim")
    return Group(table, summary, *_coverage_warning(comparison.coverage))


def _coverage_warning(coverage: Coverage | None) -> list[Text]:
    """The line warning that a side's top 10 is too little judged, when one is (a Text: labels are untrusted)."""
    warning = coverage.warning if coverage is not None else None
    return [Text(f"⚠ {warning}", style="bold yellow")] if warning else []


RUN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def runs_table(many: ManyComparison, measure: str) -> Group:
    """One measure of several runs against the baseline (A): the baseline's mean, then each run's mean, Δ,
    both p-values, the p corrected over the runs and the 95 % interval of Δ."""
    table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold")
    table.add_column(measure, no_wrap=True, overflow="ellipsis", max_width=18)
    corrected = f"p {many.correction.capitalize()}"[:7]
    for name in ("mean", "Δ", "p t-test", "p rand.", corrected, "95% CI of Δ"):
        table.add_column(name, justify="right", no_wrap=True)
    baseline = many.baseline_means()[measure]
    table.add_row(Text("A ") + safe_text(many.baseline.label, keep_newlines=False), f"{baseline:.4f}")
    for letter, run in zip(RUN_LETTERS[1:], many.runs):
        row = run.row(measure)
        low, high = row.ci95
        table.add_row(Text(f"{letter} ") + safe_text(run.side.label, keep_newlines=False), f"{row.b:.4f}",
                      f"{row.delta:+.4f}", format_p(row.p_ttest), format_p(row.p_randomization),
                      format_p(run.adjusted[measure]),
                      f"[{low:+.3f}, {high:+.3f}]")
    position = many.measures.index(measure) + 1
    summary = Text(f"{corrected}: p rand. corrected over {len(many.runs)} runs · measure {position} of "
                   f"{len(many.measures)} (m) · {len(many.questions):,} questions", style="dim")
    return Group(table, summary, *_coverage_warning(many.coverage))


def _move(placed: Placed) -> Text:
    if placed.status != "moved":
        return Text(placed.status, style="italic")
    assert placed.move is not None
    if placed.move > 0:
        return Text(f"↑{placed.move}", style="green")
    if placed.move < 0:
        return Text(f"↓{-placed.move}", style="red")
    return Text("=", style="dim")


def rankings_view(comparison: Comparison, question: QuestionRow) -> RenderableType:
    """The two rankings of ``question`` side by side: rank, ✓ for a relevant chunk, its id, its move."""
    from ranklens.engine.comparing.two_runs import side_by_side

    a = [doc for doc, _ in comparison.a.run.rankings.get(question.id, ())]
    b = [doc for doc, _ in comparison.b.run.rankings.get(question.id, ())]
    left, right = side_by_side(a, b, comparison.a.qrels.get(question.id, {}), comparison.b.qrels.get(question.id, {}),
                               RANKS_SHOWN)
    table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold", expand=True)
    for name in ("A", "", "B", ""):
        if name:  # an id longer than its half wraps: cut, two ids could read alike
            table.add_column(name, overflow="fold", ratio=1)
        else:  # the move (↑12, new, dropped), as wide as the longest shown: the ids need the room
            table.add_column(name, no_wrap=True)
    for i in range(max(len(left), len(right))):
        cells: list[Text] = []
        for placed in (left[i] if i < len(left) else None, right[i] if i < len(right) else None):
            if placed is None:
                cells += [Text(), Text()]
                continue
            mark = Text("✓" if placed.relevant else " ", style="bold green")
            cells.append(mark + Text(f"{placed.rank:>2} ") + safe_text(placed.id, keep_newlines=False))
            cells.append(_move(placed))
        table.add_row(*cells)
    name = comparison.primary.name
    # The question on one line, cut to the pane: at 80 columns the rankings below are what must fit. The
    # numbers wrap at a word rather than lose their end ("first rele…").
    heading = Text(one_line(f"{question.id}: {question.text}", 200), style="bold", no_wrap=True, overflow="ellipsis")
    ranks = Text(f"{name} {question.a[name]:.3f} → {question.b[name]:.3f} · first relevant "
                 f"{_rank(question.rank_a)} → {_rank(question.rank_b)} · y: why?", style="dim")
    return Group(heading, ranks, table)


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


class ComparePane(WorkPane):
    DEFAULT_CSS = """
    ComparePane #compare-sides { height: 1; }
    ComparePane #compare-sides Static { width: auto; padding: 0 1 0 0; }
    ComparePane #compare-sides Select { width: 1fr; margin-right: 1; }
    ComparePane #compare-sides Select:focus > SelectCurrent { background: $accent 40%; }
    ComparePane #compare-measures { height: auto; }
    ComparePane #compare-body { height: 1fr; }
    ComparePane #compare-questions { width: 1fr; }
    ComparePane #compare-detail { width: 2fr; }
    """
    BINDINGS = [
        Binding("r", "rerun", "re-run", tooltip="Compare A and B again", id="compare.rerun"),
        Binding("y", "why", "why?", tooltip="Why not? The selected question's relevant chunk under B's setup",
                id="compare.why"),
        Binding("m", "next_measure", "measure", tooltip="With more than two runs: show the next measure",
                id="compare.measure"),
        Binding("x", "drop_run", "drop run", tooltip="With more than two runs: drop the run added last",
                id="compare.drop"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.comparison: Comparison | None = None  # B against A
        self.many: ManyComparison | None = None  # every run against A, when more than two are picked
        self.more: list[str] = []  # the runs added with the third box, in order
        self._measure = 0  # the measure the runs' table shows
        self._questions: list[QuestionRow] = []  # the table's rows, in order
        self._filling = False  # the choices are being set: their Changed events start nothing
        self._placed = False  # the focus was placed on the questions, the first time the tab was shown

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-sides"):
            yield Static("A", markup=False)
            yield Select([("current setup", CURRENT)], value=CURRENT, allow_blank=False, compact=True, id="compare-a")
            yield Static("B", markup=False)
            yield Select([("current setup", CURRENT)], value=CURRENT, allow_blank=False, compact=True, id="compare-b")
            yield Select([("current setup", CURRENT)], prompt="+ run", compact=True, id="compare-more")
        yield WorkStatus()
        yield Static(id="compare-measures")
        with Horizontal(id="compare-body"):
            questions = KeyTable(id="compare-questions", cursor_type="row", classes="-framed")
            questions.border_title = "questions by |Δ|"
            yield questions
            detail = KeyScroll(Static(id="compare-detail-body"), id="compare-detail", classes="-framed")
            detail.border_title = "rankings"
            yield detail

    def on_mount(self) -> None:
        self.query_one(WorkStatus).show(HINT)

    def on_show(self, event: events.Show) -> None:
        # The first time the tab is shown the questions take the focus (the app gave it to A, the first
        # box): they are what one reads and moves through; A and B are a shift+tab away. Not at mount:
        # focusing a widget of a hidden tab would switch to it.
        if not self._placed:
            self._placed = True
            self.call_after_refresh(self.query_one("#compare-questions").focus)

    # -- the choices --------------------------------------------------------------------------------

    def refresh_content(self, context: Context) -> None:
        self._read_choices(context, then_compare=True)

    def runs_changed(self) -> None:
        """A run was saved: it is offered at once (the comparison on screen stays)."""
        if self.context is not None:
            self._read_choices(self.context, then_compare=False)

    def _read_choices(self, context: Context, *, then_compare: bool) -> None:
        # Listing the saved runs reads (and checks the digest of) every run file: off the event loop.
        def filled(names: list[str]) -> None:
            self._fill_choices(names)
            if then_compare:
                self._start(context)

        self.start_work("choices", partial(_saved_run_names, context), filled)

    def _fill_choices(self, names: list[str]) -> None:
        options = [("current setup", CURRENT), *((name, name) for name in names)]
        a, b = self.query_one("#compare-a", Select), self.query_one("#compare-b", Select)
        more = self.query_one("#compare-more", Select)
        # Until the user picks, A is a saved run and B the current setup: "is what I have now better?"
        same = a.value == b.value
        wanted_a = a.value if a.value in names and not same else (names[0] if names else CURRENT)
        wanted_b = b.value if b.value in names or b.value == CURRENT and not same else CURRENT
        self._filling = True
        try:
            for select, value in ((a, wanted_a), (b, wanted_b)):
                select.set_options(options)
                select.value = value
            more.set_options(options)
        finally:
            self._filling = False
        self.more = [choice for choice in self.more if choice == CURRENT or choice in names]
        self._more_prompt()

    def _more_prompt(self) -> None:
        more = self.query_one("#compare-more", Select)
        more.prompt = f"+ run ({len(self.more)} added)" if self.more else "+ run"
        self.refresh_bindings()

    @on(Select.Changed)
    def _choice_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self._filling or self.context is None:
            return
        if event.select.id == "compare-more":
            if event.value is Select.NULL:
                return  # cleared below, once the run is added
            self._add_run(str(event.value))
            event.select.clear()
            return
        self._start(self.context)

    def _add_run(self, choice: str) -> None:
        assert self.context is not None
        picked = [str(self.query_one(f"#compare-{x}", Select).value) for x in "ab"]
        if choice in picked or choice in self.more:
            self.notify(f"{self._label(choice)} is compared already", severity="warning", markup=False)
            return
        self.more.append(choice)
        self._more_prompt()
        self._start(self.context)

    def action_drop_run(self) -> None:
        if not self.more:
            self.notify("no run added: the third box adds runs to compare with A", severity="warning")
            return
        self.more.pop()
        self._more_prompt()
        if self.context is not None:
            self._start(self.context)

    def action_next_measure(self) -> None:
        if self.many is None:
            self.notify("with more than two runs, m shows the next measure (the third box adds runs)",
                        severity="warning")
            return
        self._measure = (self._measure + 1) % len(self.many.measures)
        self._show_measures()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_measure", "drop_run") and not self.more:
            return False  # shown only with more than two runs
        return super().check_action(action, parameters)

    def action_rerun(self) -> None:
        if self.has_corpus():
            assert self.context is not None
            self._start(self.context)

    def _start(self, context: Context) -> None:
        a, b = (str(self.query_one(f"#compare-{x}", Select).value) for x in "ab")
        if a == b:
            self.comparison = self.many = None
            self._show_questions()
            self.query_one(WorkStatus).show(SAME)
            return
        others = list(dict.fromkeys(choice for choice in (b, *self.more) if choice != a))
        if len(others) > 1:
            self.start_work("compare", partial(compare_several, context, a, others), self._compared_several,
                            label=f"comparing {len(others)} runs with {self._label(a)}")
            return
        self.start_work("compare", partial(compare, context, a, b), self._compared,
                        label=f"comparing {self._label(a)} with {self._label(b)}")

    @staticmethod
    def _label(choice: str) -> str:
        return "the current setup" if choice == CURRENT else one_line(choice, 40)

    # -- the results ----------------------------------------------------------------------------------

    def _compared(self, comparison: Comparison) -> None:
        self.many = None
        self._show_comparison(comparison, [*comparison.a.notes, *comparison.b.notes, *comparison.notes])

    def _compared_several(self, many: ManyComparison) -> None:
        self.many = many
        self._measure %= len(many.measures)
        notes = [*many.baseline.notes, *(note for run in many.runs for note in run.side.notes), *many.notes]
        self._show_comparison(many.runs[0].pair, notes)

    def _show_comparison(self, comparison: Comparison, notes: list[str]) -> None:
        self.comparison = comparison
        judged = self.context.judged if self.context is not None else None  # which judgments the measures count
        said = [*([judged.describe()] if judged is not None else []), *notes,
                f"randomization: {comparison.permutations:,} sign flips, seed {comparison.seed}"]
        self.query_one(WorkStatus).show(one_line(" · ".join(said), 300))
        self._show_questions()

    def _show_measures(self) -> None:
        measures = self.query_one("#compare-measures", Static)
        if self.many is not None:
            measures.update(runs_table(self.many, self.many.measures[self._measure]))
        elif self.comparison is not None:
            measures.update(measures_table(self.comparison))
        else:
            measures.update("")

    def _show_questions(self) -> None:
        table = self.query_one("#compare-questions", KeyTable)
        table.clear(columns=True)
        self._show_measures()
        comparison = self.comparison
        if comparison is None:
            self._questions = []
            self._detail(Text())
            return
        name = comparison.primary.name
        self._questions = sorted(comparison.questions, key=lambda q: -abs(q.b[name] - q.a[name]))
        table.add_column("Δ", key="delta")
        table.add_column("A→B", key="ranks")
        table.add_column("question", key="question")
        for question in self._questions:
            delta = question.b[name] - question.a[name]
            style = "green" if delta > 1e-12 else "red" if delta < -1e-12 else "dim"
            table.add_row(Text(f"{delta:+.3f}", style=style, justify="right"),
                          Text(f"{_rank(question.rank_a)}→{_rank(question.rank_b)}", justify="right"),
                          safe_text(one_line(question.text, 60), keep_newlines=False))
        table.border_title = f"questions by |Δ {name}|"
        if self._questions:
            self._show_rankings(0)

    @on(DataTable.RowHighlighted, "#compare-questions")
    def _question_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_rankings(event.cursor_row)

    def _show_rankings(self, row: int) -> None:
        if self.comparison is None or not 0 <= row < len(self._questions):
            return
        self.query_one("#compare-detail", KeyScroll).border_title = "rankings: A | B (moves B against A)"
        self._detail(rankings_view(self.comparison, self._questions[row]))

    def _detail(self, renderable: RenderableType) -> None:
        self.query_one("#compare-detail-body", Static).update(renderable)
        self.query_one("#compare-detail", KeyScroll).scroll_home(animate=False)

    def action_why(self) -> None:
        table = self.query_one("#compare-questions", KeyTable)
        if self.comparison is None or self.context is None or not 0 <= table.cursor_row < len(self._questions):
            self.notify("compare two runs first: why? explains a question of the comparison", severity="warning")
            return
        self.start_work("why", partial(why_not, self.context, self.comparison, self._questions[table.cursor_row]),
                        self._show_why, failed=self._why_failed)

    def _show_why(self, answer: QuestionWhy) -> None:
        # The question's id is untrusted (a corpus' or a user's): Content, never markup.
        title = Content(f"why? ({one_line(answer.question, 30)})")
        self.query_one("#compare-detail", KeyScroll).border_title = title
        self._detail(answer.why.view())

    def _why_failed(self, message: str) -> None:
        self.notify(message, severity="warning", markup=False)  # it quotes the question's id
