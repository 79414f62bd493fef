"""The base of every tab: context in, thread workers out, stale results dropped.

The app hands each pane every new ``Context`` (``context_changed``). A pane
says which parts of the context its content depends on (``context_key``);
other changes are ignored. When they matter, the pane's running work is
cancelled and ``refresh_content`` starts new work, but only while the tab is
shown: a hidden tab notes that its content is stale and catches up when
shown, so a setting changed on the Search tab does not re-evaluate four
scorers nobody is looking at.

All work goes through ``start_work(group, job, done)``: a thread worker per
kind ("group"); starting work of a kind cancels the previous run of that
kind, Escape cancels them all, and only the newest run of each kind, started
for the current context, reaches its ``done`` callback, which takes the type
``job`` returns: a late answer for an older context is dropped on the event
loop, before the pane sees it. A failure reaches the job's ``failed``
callback, or by default the tab's status line.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar, cast

from textual import events
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.work.progress import Progress, cancellable, no_progress
from ranklens.tui.colours import theme_colour
from ranklens.tui.context import Context
from ranklens.tui.heap import keep_built
from ranklens.tui.host import Host
from ranklens.tui.key_map import typing_actions
from ranklens.tui.widgets.work_status import WorkStatus

T = TypeVar("T")


@dataclass(frozen=True)
class Run(Generic[T]):
    """One run of a job: its worker, and where its result and its failure go."""

    worker: Worker[T]
    generation: int  # the context generation the run was started for
    reports: bool  # whether it drives the tab's WorkStatus
    done: Callable[[T], None]
    failed: Callable[[str], None] | None  # None: said on the WorkStatus, or as a notification
    keeps_partial: bool  # a cancelled run's result (what it finished) is shown too

    def succeeded(self) -> None:
        self.done(cast(T, self.worker.result))


class WorkPane(Vertical):
    # Widgets that take keys wear a frame that lights up with focus, as everywhere in the app.
    DEFAULT_CSS = """
    WorkPane { height: 1fr; padding: 0 1; }
    WorkPane .-framed { border: round $foreground 40%; border-title-color: $text-muted; }
    WorkPane .-framed:focus { border: round $accent; border-title-color: $accent; border-title-style: bold; }
    """
    BINDINGS = [Binding("escape", "cancel_work", "cancel", tooltip="Cancel work", id="work.cancel")]
    # A tab whose work waits for the index the app is building (search, prompt): what takes long is that
    # build, so Escape stops the app's workers too, as the app's own Escape does.
    WAITS_FOR_INDEX = False

    class Partial(Message):
        """What a cancelled run that keeps partial results finished, posted from its thread."""

        def __init__(self, worker: Worker[Any], result: Any) -> None:
            super().__init__()
            self.worker = worker
            self.result = result

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.context: Context | None = None
        self._stale = False
        self._runs: dict[str, Run[Any]] = {}
        # Generation of the last context change that mattered: runs started before it are stale.
        self._valid_from = 0

    # -- what a tab defines -------------------------------------------------------------------

    def context_key(self, context: Context) -> Hashable:
        """The parts of the context the tab's content depends on; other changes are ignored."""
        return (context.workbench, context.setup)

    def refresh_content(self, context: Context) -> None:
        """Start the work that brings the tab up to date with ``context`` (on the event loop)."""

    def no_corpus(self, message: str) -> None:
        """No corpus could be opened (``message`` says why and how to go on): the tab's status line
        says so, in place of its hint about keys that have nothing to work on."""
        for status in self.query(WorkStatus):
            status.show(message)

    def corpus_opened(self) -> None:
        """Another corpus replaced the open one (its context follows): what the tab holds for the old
        corpus alone (a filter, a find box, a sweep and its verdict, a selection) goes, so that none of it
        shows over the new corpus' numbers. Tabs that hold such state say here how it resets."""

    def has_corpus(self) -> bool:
        """Whether a key of the tab has a corpus to work on; when not it says so, so the key answers."""
        if self.context is None:
            self.notify("no corpus is open yet: ctrl+o opens one", severity="warning")
            return False
        return True

    # -- the machinery -----------------------------------------------------------------------

    def context_changed(self, context: Context) -> None:
        """Called by the app on every change; only starts work, and only when it matters."""
        previous, self.context = self.context, context
        if previous is not None and self.context_key(previous) == self.context_key(context):
            return
        self.cancel_runs()
        self._valid_from = context.generation
        self._stale = True
        self._catch_up()

    def on_show(self, event: events.Show) -> None:
        self._catch_up()

    def _catch_up(self) -> None:
        if self._stale and self.context is not None and self.is_on_screen:
            self._stale = False
            self.refresh_content(self.context)

    def start_work(self, group: str, job: Callable[[Progress], T], done: Callable[[T], None], *,
                   label: str | None = None, failed: Callable[[str], None] | None = None,
                   keeps_partial: bool = False) -> None:
        """Run ``job(progress)`` in a thread; what it returns reaches ``done`` on the event loop, unless a
        newer run of ``group`` or a newer context came first.

        ``progress`` raises ``Cancelled`` once the run is cancelled, so the
        engine's loops stop at their next report. ``label`` shows progress on
        the tab's WorkStatus. An engine error's message goes to ``failed``
        (by default the WorkStatus when the run reports there, else a
        notification). With ``keeps_partial``, the job returns what it
        finished when cancelled (a comparison of scorers), and that part
        reaches ``done`` too rather than being thrown away.
        """
        report = no_progress
        if label is not None:
            status = self.query_one(WorkStatus)
            report = status.reporter(status.begin(label))

        def in_thread() -> T:
            worker = get_current_worker()
            result = job(cancellable(report, lambda: worker.is_cancelled))
            if worker.is_cancelled and keeps_partial:
                # The worker's own result is dropped once it is cancelled: hand it over by message.
                self.post_message(self.Partial(worker, result))
            return result

        worker = self.run_worker(in_thread, name=group, group=group, thread=True, exclusive=True,
                                 exit_on_error=False)
        generation = self.context.generation if self.context else 0
        self._runs[group] = Run(worker, generation, label is not None, done, failed, keeps_partial)
        self.refresh_bindings()  # Escape shows in the footer while there is work to cancel

    def cancel_runs(self) -> None:
        """Cancel every run started with ``start_work`` (other workers of the pane, a save, go on)."""
        for run in self._runs.values():
            run.worker.cancel()

    def is_working(self) -> bool:
        return any(run.worker.state in (WorkerState.PENDING, WorkerState.RUNNING) for run in self._runs.values())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # With nothing to cancel, Escape falls through to the app's own binding.
        if action == "cancel_work":
            return self.is_working()
        # While a text box of the tab has the focus, its letter keys type: the footer leaves them out.
        # The action is tested first: the footer asks for every binding, and a protocol check costs microseconds.
        return not (action in _typing_actions(type(self)) and isinstance(self.app, Host) and self.app.typing)

    def action_cancel_work(self) -> None:
        if self.WAITS_FOR_INDEX:
            self.app.workers.cancel_all()
        else:
            self.cancel_runs()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        run = self._runs.get(worker.group)
        if worker.node is not self or run is None or run.worker is not worker:
            return  # another widget's worker, or a run superseded by a newer one
        event.stop()
        self.refresh_bindings()
        if run.generation < self._valid_from:
            return  # finished just as a newer context cancelled it
        if event.state == WorkerState.SUCCESS:
            run.succeeded()
        elif event.state == WorkerState.CANCELLED or isinstance(worker.error, Cancelled):
            if run.reports:  # quiet runs (a preview) are redone by the next key anyway
                self.query_one(WorkStatus).show("cancelled · r runs it again")
        elif event.state == WorkerState.ERROR:
            if isinstance(worker.error, RanklensError):
                self._failed(run, str(worker.error))
            else:  # a bug: say so in one line rather than take the app down
                message = f"{type(worker.error).__name__}: {worker.error}"
                if run.reports:
                    self.query_one(WorkStatus).show(f"failed: {message}")
                self.notify(message, title="ranklens: unexpected error", severity="error", markup=False)

    def _failed(self, run: Run[Any], message: str) -> None:
        """An engine error of the newest run: to the job's own handler, else where the run reports."""
        if run.failed is not None:
            run.failed(message)
        elif run.reports:
            self.query_one(WorkStatus).show(message)
        else:
            self.notify(message, severity="warning", markup=False)

    def on_work_pane_partial(self, message: Partial) -> None:
        message.stop()
        run = self._runs.get(message.worker.group)
        if run is None or run.worker is not message.worker or run.generation < self._valid_from:
            return  # a newer run, or a newer context: what it finished is stale
        run.done(message.result)

    def colour(self, name: str) -> str:
        """A theme colour as a Rich style, for table cells (see tui/colours.py)."""
        return theme_colour(self.app, name)


@cache
def _typing_actions(pane: type[WorkPane]) -> frozenset[str]:
    return typing_actions(b for klass in pane.__mro__ for b in klass.__dict__.get("BINDINGS", ())
                          if isinstance(b, Binding))


def stage(progress: Progress, index: int, count: int, name: str) -> Progress:
    """Progress of stage ``index`` (0-based) of ``count`` reported as progress of the whole.

    Calling it once at the start of a stage also checks for cancellation
    between stages, where the engine reports nothing. What earlier stages
    built stays cached: it is frozen (tui/heap.py) before the next one allocates.
    """
    keep_built()

    def report(done: int, total: int, label: str) -> None:
        part = min(done / total, 1.0) if total else 0.0
        progress(round((index + part) * 1000), count * 1000, f"{name}: {label}")

    return report
