"""The judging queue (P, or the palette's "Judge a pool…"): the unjudged pairs of a pool, one at a time.

A screen over the app. First it offers the pools kept in the workspace (``pools/NAME.json``, as
``ranklens pool --save`` keeps them), each with how far it is judged, and the runs a new pool
can be made of: the current setup and the saved runs, picked with space (``[x]``; none is picked
for the user, and runs of one setup are pooled once), at a depth typed in its box (engine/judging/pool.py
makes it, in a thread worker, and keeps it in the workspace). Then it
shows the first unjudged pair: the question, the chunk's text, which runs retrieved it at what
rank, and "37 of 120 judged". 0-3 (the corpus' scale) grade it, s skips it (to the end of the
queue), u takes the latest judgment back. Grades go through the app's workspace writes
(``ChangeWorkspace``, as the Search tab's judge mode), so the other tabs' numbers follow; which
pairs are judged is read from the workspace's log whenever a pool is opened, so a pool resumes
where any session left it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from ranklens.engine.work.progress import Progress
from ranklens.tui.context import ChangeWorkspace, Context, TabKeysChanged
from ranklens.tui.grade_keys import grade_bindings, on_the_scale, scale_top
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.panes.compare import CURRENT, side
from ranklens.tui.safe import one_line, safe_text
from ranklens.tui.widgets.footer import FittedFooter
from ranklens.tui.widgets.lists import KeyScroll
from ranklens.tui.widgets.pick_list import PickList
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Chunk, Corpus
    from ranklens.engine.judging.pool import Pool, PoolPair, QueueState
    from ranklens.engine.judging.log import Judgment
    from ranklens.engine.workspace.store import Workspace

DEFAULT_DEPTH = "10"
CHOOSE_HINT = "Judge a pool: Enter resumes a kept one, or space picks runs and m makes one"


@dataclass(frozen=True)
class SavedPool:
    name: str
    said: str  # "fruit · 3 of 7 judged · depth 3 · bm25, tfidf"


@dataclass(frozen=True)
class Choices:
    """What the chooser offers: the pools kept, the saved runs."""

    pools: list[SavedPool]
    runs: list[str]


@dataclass(frozen=True)
class Opened:
    """A pool ready to judge: its name, the pool, the judged state now and its chunks (their text shown, the text
    they cover recorded with a judgment)."""

    name: str
    pool: Pool
    state: QueueState
    chunks: dict[str, Chunk]  # chunk id -> chunk, for the pool's pairs
    said: str = ""  # runs picked that were left out, ranking under the setup of another


def choices(context: Context, progress: Progress) -> Choices:
    """The workspace's pools, each with how far it is judged, and its saved runs (in a thread worker)."""
    from ranklens.engine.judging.pool import judged_now, load_pool, pool_names, queue_state

    workspace = context.workspace
    if workspace is None:
        return Choices([], [])
    names = pool_names(workspace)
    pools: list[SavedPool] = []
    judged: dict[str, dict[str, dict[str, int]]] = {}  # by chunking: pools of one chunking share it
    for name in names:
        progress(len(pools), len(names), "reading the pools")
        pool = load_pool(workspace, name)
        chunking = repr(sorted(pool.chunking.items()))
        if chunking not in judged:
            judged[chunking] = judged_now(context.workbench, workspace, context.setup, pool)
        state = queue_state(pool, judged[chunking])
        pools.append(SavedPool(name, f"{name} · {state.progress()} · depth {pool.depth} · {', '.join(pool.runs)}"))
    return Choices(pools, workspace.run_names())


def _opened(context: Context, name: str, pool: Pool, progress: Progress) -> Opened:
    from ranklens.engine.judging.pool import judged_now, queue_state

    assert context.workspace is not None
    state = queue_state(pool, judged_now(context.workbench, context.workspace, context.setup, pool))
    wanted = {pair.id for pair in pool.pairs}
    chunks = context.workbench.chunks(context.setup.replace(**pool.chunking), progress)
    return Opened(name, pool, state, {c.id: c for c in chunks if c.id in wanted})


def open_pool(context: Context, name: str, progress: Progress) -> Opened:
    """The pool kept as ``name``, its judged pairs read from the workspace's log now (in a thread worker)."""
    from ranklens.engine.judging.pool import load_pool

    assert context.workspace is not None
    return _opened(context, name, load_pool(context.workspace, name), progress)


def make_and_keep(context: Context, picked: list[str], depth: int, progress: Progress) -> Opened:
    """A pool of the picked runs (saved names, or the current setup) at ``depth``, one run per setup, kept in the
    workspace under a name made of theirs (in a thread worker)."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.judging.pool import make_pool, pool_names, save_pool

    assert context.workspace is not None
    chosen, same = one_per_setup([(choice, side(context, choice, progress)) for choice in picked])
    said = "; ".join(f"{dropped} ranks as {kept}: pooled once" for dropped, kept in same)
    if len(chosen) < 2:
        raise RanklensError(f"{said}; pick runs of two setups or more")
    pool = make_pool([run for _, run in chosen], context.corpus, depth)
    stem = "-".join("current" if choice == CURRENT else choice for choice, _ in chosen)[:80] + f"-top{depth}"
    taken, name, n = set(pool_names(context.workspace)), stem, 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}"
    save_pool(context.workspace, name, pool)
    return dataclasses.replace(_opened(context, name, pool, progress), said=said)


def one_per_setup(picked: list[tuple[str, RunSide]]) -> tuple[list[tuple[str, RunSide]], list[tuple[str, str]]]:
    """The picked runs, one per setup: of runs ranking under one setup (the current setup saved as a run, say),
    a saved run is kept over the current setup (it has a name), else the first picked. Returns those kept, and
    (label left out, label kept) for the others. A run whose setup is not known (a file without a sidecar)
    is its own."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.setup import Setup

    def key(run: RunSide) -> object:
        try:
            return Setup.from_mapping(run.setup, source=run.label) if run.setup else run
        except RanklensError:
            return run

    ordered = sorted(picked, key=lambda pair: pair[0] == CURRENT)  # stable: saved runs first, in picked order
    first: dict[object, RunSide] = {}
    same: list[tuple[str, str]] = []
    for _, run in ordered:
        kept = first.setdefault(key(run), run)
        if kept is not run:
            same.append((run.label, kept.label))
    kept_runs = {id(run) for run in first.values()}
    return [pair for pair in picked if id(pair[1]) in kept_runs], same


def judge_pair(pair: PoolPair, chunk: Chunk | None, grade: int, workspace: Workspace, corpus: Corpus) -> str:
    """Grade the pair (a ChangeWorkspace) with the text its chunk covers; nothing to tell: the queue shows the
    next pair."""
    workspace.judge(pair.question, pair.id, grade, span=None if chunk is None else chunk.text_span)
    return ""


def undo_latest(pane: PoolQueuePane, workspace: Workspace, corpus: Corpus) -> str:
    """Take back the workspace's latest judgment (a ChangeWorkspace); the queue hears which, to ask it again."""
    undone = workspace.undo()
    pane.post_message(PoolQueuePane.Undone(undone))
    if undone is None:
        return "no judgment to undo"
    return f"undone: {undone.id} for question {undone.question} is unjudged again" if undone.grade is None else \
        f"undone: {undone.id} for question {undone.question} is back to grade {undone.grade}"


class PoolQueuePane(WorkPane):
    DEFAULT_CSS = """
    PoolQueuePane #pool-choose, PoolQueuePane #pool-judge { height: 1fr; }
    PoolQueuePane #pool-judge { display: none; }
    PoolQueuePane.-judging #pool-judge { display: block; }
    PoolQueuePane.-judging #pool-choose { display: none; }
    PoolQueuePane #pool-saved { height: auto; max-height: 6; }
    PoolQueuePane #pool-runs { height: 1fr; }
    PoolQueuePane #pool-depth-row { height: 3; }
    PoolQueuePane #pool-depth-row Static { width: auto; padding: 1 1 0 0; }
    PoolQueuePane #pool-depth { width: 12; }
    PoolQueuePane #pool-progress { height: 1; text-style: bold; }
    PoolQueuePane #pool-question { height: auto; max-height: 4; }
    PoolQueuePane #pool-ranks { height: 1; color: $text-muted; }
    PoolQueuePane #pool-chunk { height: 1fr; }
    """
    BINDINGS = [
        *grade_bindings("pool", "Judging a pool: grade the pair"),
        Binding("s", "skip", "skip", tooltip="Judging a pool: skip the pair (asked again at the end)",
                id="pool.skip"),
        Binding("u", "undo", "undo", tooltip="Judging a pool: take back the latest judgment", id="pool.undo"),
        Binding("m", "make", "make pool", tooltip="Make a pool of the runs picked", id="pool.make"),
    ]
    JUDGING = frozenset({"grade", "skip", "undo"})

    class Undone(Message):
        """The workspace's latest judgment was taken back (None: there was none), posted from the app's worker."""

        def __init__(self, undone: Judgment | None) -> None:
            super().__init__()
            self.undone = undone

    def __init__(self, context: Context, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = True
        self._first = context
        self.opened: Opened | None = None
        self.left: list[PoolPair] = []  # the pairs still to judge, next first (a skipped one goes last)
        self.judged = 0

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        with Vertical(id="pool-choose"):
            saved = OptionList(id="pool-saved", classes="-framed")
            saved.border_title = "pools kept: Enter resumes one"
            yield saved
            runs: PickList[str] = PickList(id="pool-runs", classes="-framed")
            runs.border_title = "runs to pool: space picks"
            yield runs
            with Horizontal(id="pool-depth-row"):
                yield Static("depth (top N of each run)", markup=False)
                yield Input(DEFAULT_DEPTH, id="pool-depth", type="integer")
        with Vertical(id="pool-judge"):
            yield Static(id="pool-progress", markup=False)
            yield Static(id="pool-question", markup=False)
            yield Static(id="pool-ranks", markup=False)
            chunk = KeyScroll(Static(id="pool-chunk-body", markup=False), id="pool-chunk", classes="-framed")
            chunk.border_title = "chunk"
            yield chunk

    def on_mount(self) -> None:
        self.query_one(WorkStatus).show(CHOOSE_HINT)
        self.context_changed(self._first)

    def context_key(self, context: Context) -> object:
        return context.workspace  # the chooser lists the workspace's pools and runs

    def refresh_content(self, context: Context) -> None:
        self.start_work("choices", partial(choices, context), self._show_choices)

    # -- choosing -------------------------------------------------------------------------------------

    def _show_choices(self, found: Choices) -> None:
        saved = self.query_one("#pool-saved", OptionList)
        saved.clear_options()
        saved.add_options([Option(Text(one_line(p.said, 200)), id=p.name) for p in found.pools])
        saved.display = bool(found.pools)
        saved.highlighted = 0 if found.pools else None
        runs = self.query_one("#pool-runs", SelectionList)
        runs.clear_options()
        # Nothing picked: the user picks every run of a new pool (the current setup, picked for them, made
        # a two-run pool of three).
        runs.add_options([(Text("the current setup"), CURRENT, False),
                          *((Text(name), name, False) for name in found.runs)])
        runs.highlighted = 0
        runs.focus()  # where runs are picked; Tab reaches the pools kept, above

    @on(OptionList.OptionSelected, "#pool-saved")
    def _resume(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        name = event.option.id
        if name is not None and self.context is not None:
            self.start_work("pool", partial(open_pool, self.context, name), self._start,
                            label=f"opening pool {one_line(name, 40)}")

    @on(Input.Submitted, "#pool-depth")
    def _depth_entered(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_make()

    def action_make(self) -> None:
        picked = list(self.query_one("#pool-runs", SelectionList).selected)
        depth_text = self.query_one("#pool-depth", Input).value.strip()
        if len(picked) < 2:
            self.notify("pick two runs or more with space (S on the main screen saves a run of a setup)",
                        severity="warning")
            return
        if not depth_text.isdigit() or int(depth_text) < 1:
            self.notify(f"depth {depth_text!r}: give a whole number, 1 or more", severity="warning")
            return
        # the app's context now: judgments made since the queue opened are not pooled again
        context = getattr(self.app, "context", None) or self.context
        if context is None:
            return
        self.start_work("pool", partial(make_and_keep, context, picked, int(depth_text)), self._start,
                        label="making the pool", failed=self._refused)

    def _refused(self, message: str) -> None:
        self.query_one(WorkStatus).show(message)
        self.notify(message, severity="error")  # it quotes run names: plain text (the app's notify)

    # -- judging --------------------------------------------------------------------------------------

    @property
    def judging(self) -> bool:
        return self.opened is not None

    def takes_tab_keys(self) -> bool:
        return self.judging  # the digits grade (TakesTabKeys)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.JUDGING and not self.judging:
            return False
        if action == "make" and self.judging:
            return False
        if action == "grade" and not on_the_scale(self.context, parameters):
            return False
        return super().check_action(action, parameters)

    def _start(self, opened: Opened) -> None:
        if opened.said:
            self.notify(opened.said)  # run names: plain text (the app's notify)
        self.opened = opened
        self.left = list(opened.state.left)
        self.judged = opened.state.judged
        self.add_class("-judging")
        self.focus()
        self.post_message(TabKeysChanged())
        self.refresh_bindings()
        scale = f"0-{scale_top(self.context)}"
        self.query_one(WorkStatus).show(f"{scale} grade · s skip · u undo · Escape closes: the pool is kept")
        self._show_pair()

    def _show_pair(self) -> None:
        opened = self.opened
        assert opened is not None
        progress = f"{self.judged} of {opened.state.total} judged · pool {opened.name} · depth {opened.pool.depth}"
        self.query_one("#pool-progress", Static).update(Content(one_line(progress, 300)))
        question, ranks = self.query_one("#pool-question", Static), self.query_one("#pool-ranks", Static)
        body = self.query_one("#pool-chunk-body", Static)
        chunk = self.query_one("#pool-chunk", KeyScroll)
        if not self.left:
            question.update(Content("Every pair of the pool is judged. Escape closes."))
            ranks.update("")
            body.update("")
            chunk.border_title = "chunk"
            return
        pair = self.left[0]
        text = opened.pool.questions.get(pair.question, "")
        question.update(Content(one_line(f"question {pair.question}: {text}", 400)))
        ranks.update(Content(one_line("retrieved by " + " · ".join(f"{run} at {rank}" for run, rank in
                                                                  pair.runs.items()), 300)))
        chunk.border_title = Content(f"chunk {one_line(pair.id, 60)}")
        shown = opened.chunks.get(pair.id)
        body.update(safe_text(shown.text if shown is not None else "(not a chunk of the corpus as it is now)"))
        chunk.scroll_home(animate=False)

    def action_grade(self, grade: int) -> None:
        if not self.left:
            self.notify("every pair of the pool is judged", severity="warning")
            return
        pair = self.left.pop(0)
        self.judged += 1
        assert self.opened is not None  # pairs are left only in an opened pool
        self.post_message(ChangeWorkspace(partial(judge_pair, pair, self.opened.chunks.get(pair.id), grade),
                                          judges=True))
        self._show_pair()

    def action_skip(self) -> None:
        if len(self.left) > 1:
            self.left.append(self.left.pop(0))
            self._show_pair()

    def action_undo(self) -> None:
        self.post_message(ChangeWorkspace(partial(undo_latest, self), judges=True))

    def on_pool_queue_pane_undone(self, message: Undone) -> None:
        """A judgment taken back: a pair of the pool is asked again, first."""
        message.stop()
        undone, opened = message.undone, self.opened
        if undone is None or opened is None or undone.grade is not None:
            return
        pair = next((p for p in opened.pool.pairs if (p.question, p.id) == (undone.question, undone.id)), None)
        if pair is not None and pair not in self.left:
            self.left.insert(0, pair)
            self.judged -= 1
            self._show_pair()


class PoolQueueScreen(Screen[None]):
    """The judging queue over the app; Escape goes back to the tabs."""

    BINDINGS = [Binding("escape", "close", "close", tooltip="Close the judging queue", id="pool.close")]

    def __init__(self, context: Context) -> None:
        super().__init__()
        self._opened_on = context

    def compose(self) -> ComposeResult:
        yield PoolQueuePane(self._opened_on, id="pool-pane")
        yield FittedFooter()

    def action_close(self) -> None:
        self.dismiss()
