"""The app's state, without Textual: the context every pane works from, setting changes with their
checks, undo and redo, reset, and what runs.

The app asks the session for a change and gets an ``Outcome`` back (the setup it made, what to tell
the user); when the session made a new context, the app publishes it to the panes and, for a new
setup, builds its index in a worker (tui/app.py). Nothing here draws, waits or runs a worker, so every
rule of a setting change is tested without an app (tests/test_session.py). The engine is imported
under TYPE_CHECKING or inside functions: the first paint must not wait for numpy.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ranklens.engine.errors import RanklensError
from ranklens.engine.settings import parse_text
from ranklens.engine.setup import Setup, all_settings
from ranklens.tui.extras import unavailable
from ranklens.tui.setting_steps import SettingStep, find_step
from ranklens.tui.setting_text import changed, inactive_hint, setting_title, shown

if TYPE_CHECKING:  # numpy and scipy load with the engine; the first paint must not wait for them
    from ranklens.engine.backends.base import Backend
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.workspace.store import Workspace


@dataclass(frozen=True)
class Context:
    """The corpus (with its cached indexes), the current setup and query, and the corpus' workspace.

    The workbench's corpus is the corpus with the judgments that count (engine/judging/counted.py): the
    corpus' own plus the workspace's (the user's questions and judgments), or the corpus' own
    alone while "Count my judgments" is off; ``judged`` says which. A change to the workspace,
    or the toggle, makes a new context whose workbench shares the old one's indexes
    (``Workbench.with_questions``).

    The session replaces the context whenever one of them changes, and the app hands the
    new one to every pane through ``context_changed``; panes never mutate it.
    """

    workbench: Workbench
    setup: Setup
    query: str = ""
    generation: int = 0  # bumps on every change, so workers can drop stale results
    workspace: Workspace | None = None  # None until a corpus is open; kept (and written) while not counted
    judged: Judged | None = None  # the judgments the workbench's corpus counts, None until a corpus is open
    rater: str = ""  # who judges (the session's ``rater``), "" until the first judgment asked

    @property
    def corpus(self) -> Corpus:
        return self.workbench.corpus


@dataclass(frozen=True)
class Outcome:
    """What a setting change did: the setup it made (None: the setup stays) and what to tell the user."""

    setup: Setup | None = None
    said: str = ""  # "" for nothing to say
    warning: bool = False  # said as a warning: a refused value, no corpus open

    @property
    def changed(self) -> bool:
        return self.setup is not None


MAX_SKIPPED = 8  # values a step passes over that cannot run here: more than any cycle holds
NO_CORPUS = Outcome(said="no corpus is open yet", warning=True)


class Session:
    """The open corpus' context, the query, the setups to undo and redo, and what runs of the setup.

    Every change that makes a new context bumps its generation; a setting change is checked by
    ``Setup.replace`` (a refused value leaves the setup as it was), and undone and redone as a
    whole setup. A new corpus starts the history afresh.
    """

    def __init__(self) -> None:
        self.context: Context | None = None
        self.query = ""  # kept apart from the context: typing may start before the corpus is loaded
        self.chunk_count: int | None = None  # for the setup in the context, once its index is built
        self.ran: Setup | None = None  # the setup as it runs (LSA dimensions clamped), once built
        self.loaded: Corpus | None = None  # the open corpus as loaded, without its workspace
        self.no_corpus = ""  # why no corpus is open (a failed or cancelled first open), for panes built later
        # "Count my judgments": the workspace's judgments count with the corpus' own (off: as --no-workspace).
        # It stays as set when another corpus is opened.
        self.counting = True
        # Who judges: asked at the session's first judgment (tui/rater.py), None until then; kept across corpora.
        self.rater: str | None = None
        # Setups before each change (undo) and after each undo (redo).
        self._undo: list[Setup] = []
        self._redo: list[Setup] = []

    @property
    def backend(self) -> Backend | None:
        """The collection the open corpus is ranked through, None when ranklens' own index ranks it."""
        return None if self.context is None else self.context.workbench.backend

    @property
    def running(self) -> Setup | None:
        """The setup as it runs once its index is built (LSA's dimensions clamped to the corpus), the one
        asked for until then; None before a corpus is open."""
        return self.ran or (self.context.setup if self.context is not None else None)

    # -- the corpus ----------------------------------------------------------------------------------

    def open(self, workbench: Workbench, setup: Setup, workspace: Workspace, loaded: Corpus, chunks: int,
             ran: Setup, judged: Judged | None = None) -> Context:
        """The context of a corpus just opened (``loaded``, ``workbench`` over it with the judgments that
        count, ``judged``), its index built: ``chunks`` chunks, ``ran`` the setup that runs. The history
        starts afresh."""
        previous = self.context
        self.chunk_count, self.ran = chunks, ran
        self.no_corpus = ""
        self._undo.clear()
        self._redo.clear()
        self.loaded = loaded
        self.context = Context(workbench, setup, self.query, previous.generation + 1 if previous else 0, workspace,
                               judged, self.rater or "")
        return self.context

    def opened_workspace(self) -> tuple[Workspace, Corpus] | None:
        """The open corpus' workspace and the corpus as loaded (without it), None before a corpus is open."""
        if self.context is None or self.context.workspace is None or self.loaded is None:
            return None
        return self.context.workspace, self.loaded

    def holds(self, workspace: Workspace, loaded: Corpus) -> bool:
        """Whether the open corpus is still ``loaded``, its workspace ``workspace`` (no other corpus opened since)."""
        return self.context is not None and self.context.workspace == workspace and self.loaded is loaded

    def toggle_counting(self) -> bool:
        """Turn "Count my judgments" off or on; True when it is on now. The open corpus is judged again by
        the caller (in a worker: the workspace's files are read) and handed to ``judged_again``."""
        self.counting = not self.counting
        return self.counting

    def judged_again(self, workspace: Workspace, loaded: Corpus, judged: Judged) -> bool:
        """A new context whose corpus is ``judged``'s (``loaded`` judged again after a change to ``workspace``
        or the toggle), sharing the indexes. False when another corpus was opened meanwhile, or when
        ``judged`` was made before the toggle last changed (the toggle's own judging follows)."""
        if not self.holds(workspace, loaded) or (judged.workspace is not None) != self.counting:
            return False
        assert self.context is not None
        # A new context even when the questions compare equal: a grade 0 changes no question's relevant
        # chunks, but the Search tab shows it.
        self._next(workbench=self.context.workbench.with_questions(judged.corpus), judged=judged,
                   rater=self.rater or "")
        return True

    # -- the context ---------------------------------------------------------------------------------

    def change(self, **changes: Any) -> bool:
        """A new context with ``changes`` (Context fields), unless nothing changes; True when it made one."""
        if self.context is None:
            return False
        if all(getattr(self.context, name) == value for name, value in changes.items()):
            return False
        self._next(**changes)
        return True

    def _next(self, **changes: Any) -> None:
        assert self.context is not None
        self.context = dataclasses.replace(self.context, **changes, generation=self.context.generation + 1)

    def set_query(self, text: str) -> bool:
        self.query = text
        return self.change(query=text)

    def rank_through(self, backend: Backend | None) -> bool:
        """The open corpus ranked through ``backend`` (None: ranklens' own index, whose pieces are built
        already); what runs is known again once the index of the setup is built through it."""
        assert self.context is not None
        self.chunk_count, self.ran = None, None
        return self.change(workbench=self.context.workbench.with_backend(backend))

    def index_built(self, setup: Setup, backend: Backend | None, chunks: int, ran: Setup) -> bool:
        """Record what runs: ``setup``'s index through ``backend`` has ``chunks`` chunks and runs as ``ran``.
        False, and nothing recorded, when the setup or the engine ranking it changed since."""
        if self.context is None or setup != self.context.setup or backend is not self.backend:
            return False
        self.chunk_count, self.ran = chunks, ran
        return True

    # -- setting changes -----------------------------------------------------------------------------

    def apply(self, changes: Mapping[str, Any]) -> Outcome:
        """Apply setting changes (Setup field -> value); a refused value is said as a warning and the
        setup stays as it was. A change clears what is to redo."""
        if self.context is None:
            return NO_CORPUS
        try:
            setup = self.context.setup.replace(**changes)
        except RanklensError as error:
            return Outcome(said=str(error), warning=True)
        if setup == self.context.setup:
            return Outcome()
        # Refused before its index is built, not after: the setup on screen, and its results, stay.
        # A setup that could not run already (the command line's) may still change.
        why = unavailable(setup)
        if why and not unavailable(self.context.setup):
            return Outcome(said=f"{why}; the setup stays", warning=True)
        return self._changed_to(setup)

    def step(self, step_id: str) -> Outcome:
        """Apply the setting step ``step_id`` (a key or palette command of tui/setting_steps.py). A valid
        value that changes nothing still answers ("k stays 1"); a setting the active scorer does not read
        says so."""
        if self.context is None:
            return NO_CORPUS
        step = find_step(step_id)
        # Steps start from what runs: under LSA clamped to 18 dimensions, d goes to 16, not from 100 to 64.
        # Not the scorer under a collection, which runs BM25 whatever is asked: s would stay on LSA for ever.
        base = self.ran if self.ran is not None else self.context.setup
        if self.backend is not None and step.setting == "scorer":
            base = self.context.setup
        changes, skipped = self._runnable_step(step, base)
        outcome = self.apply(changes)
        if outcome.changed:
            hint = inactive_hint(self.context.setup, step.setting)
            return dataclasses.replace(outcome, said=" · ".join(filter(None, [*skipped, hint])))
        if outcome.said:
            return outcome
        return Outcome(said=f"{setting_title(step.setting)} stays {shown(base.value_of(step.setting))}")

    def _runnable_step(self, step: SettingStep, base: Setup) -> tuple[dict[str, Any], list[str]]:
        """``step``'s changes from ``base``, stepping past values that cannot run here (a dense scorer
        without the neural extra) and saying which were skipped and why."""
        assert self.context is not None
        settings = self.context.corpus.settings
        changes, skipped, current = step.change(base, settings), [], base
        for _ in range(MAX_SKIPPED):
            try:
                trial = current.replace(**changes)
            except RanklensError:
                break  # apply says what is wrong with it
            why = unavailable(trial)
            if not why or trial == base:
                break
            skipped.append(f"skipped: {why}")
            current, changes = trial, step.change(trial, settings)
        return changes, skipped

    def type_setting(self, name: str, text: str) -> Outcome:
        """Apply ``text`` typed for the setting ``name``, read as the command line and ranklens.toml read it."""
        try:
            value = parse_text(all_settings()[name], text)
        except RanklensError as error:
            return Outcome(said=str(error), warning=True)
        outcome = self.apply({name: value})
        if outcome.changed:
            assert self.context is not None
            said = inactive_hint(self.context.setup, name) or f"{setting_title(name)}: {shown(value)}"
            return dataclasses.replace(outcome, said=said)
        if outcome.said:
            return outcome
        return Outcome(said=f"{setting_title(name)} stays {shown(value)}")

    def undo(self) -> Outcome:
        return self._step_history(self._undo, self._redo, "undone", "nothing to undo")

    def redo(self) -> Outcome:
        return self._step_history(self._redo, self._undo, "redone", "nothing to redo")

    def reset(self) -> Outcome:
        """Back to the corpus' own settings (its ranklens.toml over the defaults); undone like any change."""
        if self.context is None:
            return NO_CORPUS
        from ranklens.engine.retriever import setup_for

        current, setup = self.context.setup, setup_for(self.context.corpus)
        if setup == current:
            return Outcome(said="the settings are the corpus' already")
        return self._changed_to(setup, f"reset to the corpus' settings: {changed(current, setup)}")

    def _changed_to(self, setup: Setup, said: str = "") -> Outcome:
        assert self.context is not None
        self._undo.append(self.context.setup)
        self._redo.clear()
        return self._use(setup, said)

    def _step_history(self, source: list[Setup], target: list[Setup], done: str, empty: str) -> Outcome:
        if self.context is None or not source:
            return Outcome(said=empty)
        current, setup = self.context.setup, source.pop()
        target.append(current)
        return self._use(setup, f"{done}: {changed(current, setup)}")

    def _use(self, setup: Setup, said: str) -> Outcome:
        self.chunk_count, self.ran = None, None
        self.change(setup=setup)
        return Outcome(setup, said)
