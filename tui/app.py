"""The ranklens app: the tabs of the tab table over one corpus, the setup line, the keys that change settings.

The app owns the state: one ``Context`` (corpus, setup, query). Any change
makes a new context (generation + 1) and hands it to every pane; panes do
their work through the worker path of their base (tui/panes/base.py), which
drops results computed for an older generation. The engine (numpy, scipy,
later scikit-learn) is imported only inside workers, so the first screen
paints before any of it loads. How the parts fit: docs/architecture.md.

Only the first tab is composed at start; each other tab's pane is built the
first time the tab is shown (mounting all five costs about as much as the
rest of the first paint) and starts from the context current at that moment.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.events import DescendantFocus
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.dom import DOMNode
from textual.widgets import Footer, Input, TabbedContent, TabPane, Tabs
from textual.worker import get_current_worker

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.progress import cancellable
from ranklens.tui.context import ChangeSetup, ChangeWorkspace, Context, UseQuery
from ranklens.tui.heap import keep_built, release_kept
from ranklens.tui.help import HelpScreen
from ranklens.tui.key_map import all_rows, app_rows, own_bindings, rows_for
from ranklens.tui.palette import PaletteCommand, RanklensCommands
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.safe import one_line
from ranklens.tui.setting_steps import SETTING_STEPS, STEPS_BY_ID
from ranklens.tui.tabs import TABS, Tab
from ranklens.tui.widgets.path_prompt import PathPrompt
from ranklens.tui.widgets.query_box import QueryBox
from ranklens.tui.widgets.setup_line import SetupLine

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace import Workspace

DEFAULT_CORPUS = "studio-alfa"
PROGRESS_EVERY_S = 0.1  # how often a worker's progress reaches the screen
MAX_WARNINGS = 3  # corpus warnings shown as notifications; the rest are counted
NOTIFICATION_CELLS = 400  # a message quoting a 100,000-character line would fill the screen
# Term indexes of corpora with this many chunks or more are kept on disk between runs, as the command
# line keeps them; None: the engine's threshold (tests lower it).
CACHE_MIN_CHUNKS: int | None = None
HOW_TO_OPEN = "Press ctrl+o to open a path, or ctrl+p for the bundled corpora."


# What Textual makes of Escape then a digit (and of alt+digit in terminals that send it so): the
# characters macOS types with Option and the digit ("\x1b3" is "£"). They switch tabs as alt+digit
# does; the price is that these characters cannot be typed into a box.
ESCAPE_DIGIT_KEYS = {
    "1": "inverted_exclamation_mark", "2": "trade_mark_sign", "3": "pound_sign", "4": "cent_sign",
    "5": "infinity", "6": "section_sign", "7": "pilcrow_sign", "8": "bullet", "9": "ª", "0": "º",
}


def _alt_keys(key: str) -> str:
    escaped = ESCAPE_DIGIT_KEYS.get(key)
    return f"alt+{key},{escaped}" if escaped else f"alt+{key}"


def tab_bindings(tabs: Mapping[str, Tab]) -> list[Binding]:
    """Two keys per tab, from the tab table: its key (a digit) and alt with it, which a text box cannot
    type (many terminals send Escape then the digit as alt+digit, too). The footer shows the first
    tab's pair for all of them: "1-5 tabs" where digits work, "alt+1-5 tabs" while typing."""
    listed = list(tabs.values())
    span = f"{listed[0].key}-{listed[-1].key}" if len(listed) > 1 else listed[0].key
    bindings = []
    for n, tab in enumerate(listed):
        bindings.append(Binding(f"{tab.key},{_alt_keys(tab.key)}", f"show_tab('{tab.id}')", "tabs",
                                show=n == 0, key_display=span, tooltip=f"{tab.title} tab", id=f"tab.{tab.id}"))
        # Priority: a text box would type the digit of alt+digit. Enabled only while typing (see check_action).
        bindings.append(Binding(_alt_keys(tab.key), f"jump_tab('{tab.id}')", "tabs",
                                show=n == 0, key_display=f"alt+{span}", tooltip=f"{tab.title} tab (while typing)",
                                priority=True, id=f"tab.{tab.id}.typing"))
    return bindings


def _setting_bindings() -> list[Binding]:
    return [
        Binding(step.key, f"setting('{step.id}')", step.description, show=False, id=f"setting.{step.id}")
        for step in SETTING_STEPS
        if step.key is not None
    ]


class MainScreen(Screen[None]):
    """The app's screen. No auto-focus: Textual's picks the first focusable widget in the DOM, which may
    sit in a hidden tab, and focusing it switches tabs (after a dialog closes, say). The app places the
    focus itself (``_focus_in_tab``)."""

    AUTO_FOCUS = ""


class RanklensApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "ranklens"
    COMMANDS = App.COMMANDS | {RanklensCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (80, "-narrow"), (100, "-wide")]
    # Footer labels are short (description); the help and the palette say more (tooltip).
    APP_BINDINGS = [
        Binding("slash", "focus_query", "query", tooltip="Go to the query box", show=False, id="app.query"),
        Binding("question_mark,f1", "help", "help", tooltip="Help", id="app.help"),
        Binding("f1", "help_while_typing", "help", tooltip="Help (while typing)", id="app.help_typing"),
        # the footer shows the palette key on its own, at the right
        Binding("ctrl+p", "command_palette", "Palette", show=False, priority=True, id="app.palette"),
        Binding("ctrl+o", "open_path", "open", tooltip="Open a corpus from a path", show=False, id="app.open"),
        Binding("q", "quit", "quit", tooltip="Quit", id="app.quit"),
        Binding("ctrl+q", "quit_anywhere", "quit", tooltip="Quit (also while typing)", show=False, priority=True,
                id="app.quit_anywhere"),
        Binding("escape", "cancel_work", "cancel", tooltip="Cancel running work", show=False, id="app.cancel"),
        Binding("ctrl+z", "undo", "undo", tooltip="Undo the last setting change", show=False, id="app.undo"),
        Binding("ctrl+y", "redo", "redo", tooltip="Redo a setting change undone", show=False, id="app.redo"),
        Binding("R", "reset", "reset", tooltip="Reset the settings to the corpus' own", show=False, id="app.reset"),
        Binding("S", "save_run", "save run", tooltip="Save a run of every question under the current setup",
                show=False, id="app.save_run"),
        # Textual's own focus keys, listed in the help: they move between the boxes of a tab.
        Binding("tab", "focus_next", "Next box", show=False, id="app.focus_next"),
        Binding("shift+tab", "focus_previous", "Previous box", show=False, id="app.focus_previous"),
    ]
    # Actions whose keys type into a text box: the footer hides them while one has the focus.
    HIDDEN_WHILE_TYPING = frozenset({"show_tab", "focus_query", "help", "quit", "setting", "reset", "save_run"})
    SHOWN_WHILE_TYPING = frozenset({"jump_tab", "help_while_typing"})
    SETTING_BINDINGS = _setting_bindings()
    # The tab keys are bound per app, from the tab table it is given (see __init__).
    BINDINGS = [*APP_BINDINGS, *SETTING_BINDINGS]

    def __init__(self, corpus: str = DEFAULT_CORPUS, overrides: dict[str, Any] | None = None,
                 cursor_blink: bool = True, tabs: Mapping[str, Tab] = TABS, backend: Backend | None = None) -> None:
        super().__init__()
        self.tabs = dict(tabs)
        self.first_tab = next(iter(self.tabs))
        self._tab_bindings = tab_bindings(self.tabs)
        # Keys a text box must not type, so that they reach the tab bindings (see ESCAPE_DIGIT_KEYS).
        self.keys_over_boxes = frozenset(ESCAPE_DIGIT_KEYS[tab.key] for tab in self.tabs.values()
                                         if tab.key in ESCAPE_DIGIT_KEYS)
        # Textual binds keys from class attributes only; a table given at run time binds here, first,
        # so that the footer shows the tab keys before the others.
        keys = self._bindings.key_to_bindings
        tab_keys: dict[str, list[Binding]] = {}
        for binding in Binding.make_bindings(self._tab_bindings):
            tab_keys.setdefault(binding.key, []).append(binding)
        self._bindings.key_to_bindings = {**tab_keys, **{key: found for key, found in keys.items()
                                                         if key not in tab_keys}}
        self.corpus_spec = corpus
        self.overrides = dict(overrides or {})
        self._first_backend = backend  # the collection of the command line, for the first corpus opened
        self.cursor_blink = cursor_blink  # read by every text box; snapshot tests turn it off
        self.context: Context | None = None
        self._query = ""  # kept apart from the context: typing may start before the corpus is loaded
        self._chunk_count: int | None = None  # for the setup in the context, once its index is built
        self._ran: Setup | None = None  # the setup as it runs (LSA dimensions clamped), once built
        self._no_corpus = ""  # why no corpus is open (a failed or cancelled first open), for panes built later
        # Setups before each change (undo) and after each undo (redo); a new corpus starts them afresh.
        self._undo: list[Setup] = []
        self._redo: list[Setup] = []
        self._status = ""
        self._status_is_error = False
        self._last_progress = 0.0
        self._tab_focus: dict[str, Widget] = {}
        # The panes built so far, by tab; a pane joins once mounted, so every context reaches it whole.
        self._built: dict[str, WorkPane] = {}
        self._mounts: dict[str, tuple[WorkPane, AwaitMount]] = {}  # panes being mounted
        self._running_command = False  # a palette command runs: keys are not being typed (see typing)
        self.recent: list[str] = []  # corpora opened lately (paths), read in the opening worker
        self._labels_typing: str | None = None  # what the tab labels show now (see _sync_typing)
        self._loaded: Corpus | None = None  # the open corpus as loaded, without its workspace
        self._workspace_lock = threading.Lock()  # workspace writes, one at a time

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(id="_default")

    def key_bindings(self) -> list[Binding]:
        """Every key of the app, in the order the help lists them (alt+digit once, with its digit)."""
        tabs = [binding for binding in self._tab_bindings if not binding.priority]
        # f1 while typing is the footer's way of showing f1 there; the help lists f1 once, with ?.
        own = [binding for binding in self.APP_BINDINGS if binding.action != "help_while_typing"]
        return [*own, *tabs, *self.SETTING_BINDINGS]

    # -- layout ------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with TabbedContent(initial=self.first_tab, id="tabs"):
            for tab in self.tabs.values():
                with TabPane(tab.label, id=tab.id):
                    if tab.id == self.first_tab:
                        yield tab.pane(id=f"{tab.id}-pane")
        yield SetupLine(id="setup-line")
        yield Footer()

    @property
    def panes(self) -> list[WorkPane]:
        """The panes built so far, in tab order."""
        return [self._built[tab] for tab in self.tabs if tab in self._built]

    async def build_tab(self, tab: str) -> WorkPane:
        """``tab``'s pane, composed and mounted the first time it is asked for, given the current context."""
        if tab in self._built:
            return self._built[tab]
        if tab not in self._mounts:
            pane = self.tabs[tab].pane(id=f"{tab}-pane")
            self._mounts[tab] = (pane, self.query_one("#tabs", TabbedContent).get_pane(tab).mount(pane))
        pane, mounted = self._mounts[tab]
        await mounted  # a second caller during the mount waits for the same one
        if tab not in self._built:
            self._built[tab] = pane
            del self._mounts[tab]
            if self.context is not None:
                pane.context_changed(self.context)
            elif self._no_corpus:
                pane.no_corpus(self._no_corpus)
        return pane

    async def build_all_tabs(self) -> None:
        """Every tab's pane: the help screen lists the keys of widgets that must exist."""
        for tab in self.tabs:
            await self.build_tab(tab)

    def on_mount(self) -> None:
        self._built[self.first_tab] = self.query_one(f"#{self.first_tab}-pane", WorkPane)
        # The tab bar is no focus stop: nothing shows it has the focus, and keys switch tabs anyway.
        self.query_one("#tabs", TabbedContent).query_one(Tabs).can_focus = False
        self.query_one(QueryBox).focus()
        # A prompt's box closing gives the focus back without a focus event the app sees: sync then too.
        self.screen_change_signal.subscribe(self, lambda _screen: self.call_after_refresh(self._sync_typing))
        self.switch_corpus(self.corpus_spec)

    def on_unmount(self) -> None:
        release_kept()  # the process may go on (tests, a program embedding the app): its heap is its own again
        if self.backend is not None:
            self.backend.close()  # a local folder stays locked while its client is open

    # -- opening a corpus --------------------------------------------------------------------------

    def switch_corpus(self, spec: str) -> None:
        """Open ``spec``; the current corpus stays until the new one is ready (or fails to load)."""
        self._set_status(f"opening {spec}…")
        # After the next frame: at start, the worker's imports (numpy, scipy) would hold the GIL the
        # first paint needs.
        # The command line's collection ranks the first corpus; another corpus is ranked locally.
        backend, self._first_backend = self._first_backend, None
        self.call_after_refresh(self.open_corpus, spec, backend)

    @work(thread=True, exclusive=True, group="corpus")
    def open_corpus(self, spec: str, backend: Backend | None = None) -> None:
        """Load ``spec`` and build its index, then make it the app's corpus (ranked through ``backend`` when it
        holds the corpus' chunks under its setup; else locally, the reason told)."""
        from ranklens.engine import loaders
        from ranklens.tui.recent import recent_corpora, remember_corpus
        from ranklens.engine.cache import IndexCache
        from ranklens.engine.retriever import CACHE_MIN_CHUNKS as ENGINE_CACHE_MIN_CHUNKS
        from ranklens.engine.retriever import Workbench, setup_for
        from ranklens.engine.workspace import Workspace

        worker = get_current_worker()
        progress = cancellable(self._progress_from_thread, lambda: worker.is_cancelled)
        try:
            corpus = loaders.load_corpus(spec, progress)
            setup = setup_for(corpus, self.overrides, source="command line")
            # The user's own questions and judgments count at once, as on the command line.
            workspace = Workspace.for_corpus(corpus)
            applied, warnings = self._applied(workspace, corpus)
            # The persisted term index, as the command line uses it: a large corpus reopens in a fraction
            # of the time its analysis takes.
            minimum = ENGINE_CACHE_MIN_CHUNKS if CACHE_MIN_CHUNKS is None else CACHE_MIN_CHUNKS
            workbench = Workbench(applied, IndexCache(), minimum)
            if backend is not None:
                workbench, backend = self._through(workbench, backend, setup, progress)
            retriever = workbench.retriever(setup, progress)
            keep_built()
            if Path(spec).expanduser().exists():  # a path, not a bundled name: offered again by the Open dialog
                remember_corpus(spec)
            recent = recent_corpora()
        except Cancelled:
            self._close_quietly(backend)
            self.call_from_thread(self._failed, f"opening {spec} cancelled", False)
            return
        except RanklensError as error:
            self._close_quietly(backend)
            self.call_from_thread(self._failed, str(error))
            return
        except Exception as error:  # noqa: BLE001 - a loader bug on input nobody foresaw must not end the app
            self._close_quietly(backend)
            self.call_from_thread(self._failed, f"cannot open {spec}: {type(error).__name__}: {error}")
            return
        self.call_from_thread(self._opened, workbench, setup, len(retriever.chunks), retriever.setup, recent,
                              workspace, corpus, warnings)

    def _through(self, workbench: Workbench, backend: Backend, setup: Setup,
                 progress: Any) -> tuple[Workbench, Backend | None]:
        """``workbench`` ranking through ``backend`` when the collection answers for ``setup`` (in a worker);
        else ``workbench`` itself, the backend closed and the reason told."""
        try:
            through = workbench.with_backend(backend)
            through.retriever(setup, progress)
        except RanklensError as error:
            backend.close()
            self.call_from_thread(self.notify, f"ranked locally: {error}", title="collection", severity="error")
            return workbench, None
        self.call_from_thread(self.notify, f"ranking through {backend.label}", title="collection")
        return through, backend

    @staticmethod
    def _close_quietly(backend: Backend | None) -> None:
        if backend is not None:
            backend.close()

    @property
    def backend(self) -> Backend | None:
        """The collection the open corpus is ranked through, None when ranklens' own index ranks it."""
        return None if self.context is None else self.context.workbench.backend

    def _opened(self, workbench: Workbench, setup: Setup, chunks: int, ran: Setup, recent: list[str],
                workspace: Workspace, corpus: Corpus, warnings: list[str]) -> None:
        previous = self.context
        if previous is not None and previous.workbench.backend not in (None, workbench.backend):
            self._close_in_worker(previous.workbench.backend)  # the corpus it ranked is gone
        self.recent = recent
        self._chunk_count, self._ran = chunks, ran
        self._no_corpus = ""
        self._undo.clear(), self._redo.clear()
        self._loaded = corpus
        self._set_status("")
        self._publish(Context(workbench, setup, self._query, previous.generation + 1 if previous else 0, workspace))
        if previous is not None:
            release_kept()  # the old corpus goes: its cycles, if any, must be collectable
        self._show_warnings([*corpus.warnings, *warnings])

    def _show_warnings(self, warnings: list[str]) -> None:
        for warning in warnings[:MAX_WARNINGS]:
            self.notify(warning, title="corpus", severity="warning", markup=False)
        if len(warnings) > MAX_WARNINGS:
            self.notify(f"and {len(warnings) - MAX_WARNINGS} more warnings", severity="warning", markup=False)

    @staticmethod
    def _applied(workspace: Workspace, corpus: Corpus) -> tuple[Corpus, list[str]]:
        """``corpus`` with ``workspace`` applied; a workspace that cannot be read is a warning, not a failure
        to open the corpus."""
        try:
            return workspace.apply(corpus)
        except RanklensError as error:
            return corpus, [f"the workspace is left out: {error}"]

    # -- the workspace: questions, judgments, runs ----------------------------------------------------

    def on_change_workspace(self, message: ChangeWorkspace) -> None:
        if self.context is None or self.context.workspace is None or self._loaded is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        self._write_workspace(message.change, self.context.workspace, self._loaded)

    @work(thread=True, group="workspace")
    def _write_workspace(self, change: Callable[[Workspace, Corpus], str], workspace: Workspace,
                         corpus: Corpus) -> None:
        """Make ``change`` and apply the workspace again; changes run one at a time, in the order made."""
        with self._workspace_lock:
            try:
                said = change(workspace, corpus)
                applied, warnings = workspace.apply(corpus)
            except RanklensError as error:
                self.call_from_thread(self.notify, str(error), severity="error")
                return
            self.call_from_thread(self._workspace_changed, workspace, corpus, applied, said, warnings)

    def _workspace_changed(self, workspace: Workspace, corpus: Corpus, applied: Corpus, said: str,
                           warnings: list[str]) -> None:
        if self.context is None or self.context.workspace != workspace or self._loaded is not corpus:
            return  # another corpus was opened meanwhile
        # Published even when the questions compare equal: a grade 0 changes no question's relevant chunks,
        # but the Search tab shows it.
        self._publish(dataclasses.replace(self.context, workbench=self.context.workbench.with_questions(applied),
                                          generation=self.context.generation + 1))
        if said:
            self.notify(said, markup=False)  # it may quote a file name
        self._show_warnings(warnings)

    def action_workspace_file(self, name: str) -> None:
        """Ask for a file, then import it into the workspace or export the workspace's questions or
        judgments to it (asking before replacing a file)."""
        from ranklens.tui.recent import PathSuggester
        from ranklens.tui.saving import cleared
        from ranklens.tui.workspace_files import WORKSPACE_FILES

        entry = next(f for f in WORKSPACE_FILES if f.name == name)
        if self.context is None or self.context.workspace is None or self._loaded is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        workspace, loaded = self.context.workspace, self._loaded

        def run(path: Path) -> None:
            change = partial(entry.run, path=path)
            if entry.imports:
                self._write_workspace(change, workspace, loaded)
            else:
                self._write_file(change, workspace, loaded)

        def chosen(text: str | None) -> None:
            if not text:
                return
            path = Path(text).expanduser().absolute()
            if entry.imports:
                run(path)
            else:  # as the tabs' saves: never inside the corpus, a file replaced only on a yes
                cleared(self.screen, path, loaded.source, lambda: run(path))

        self.push_screen(PathPrompt(entry.prompt, hint="Enter to confirm, → completes a path, Escape cancels",
                                    suggester=PathSuggester(self.recent)), chosen)

    @work(thread=True, group="workspace-file")
    def _write_file(self, change: Callable[[Workspace, Corpus], str], workspace: Workspace, corpus: Corpus) -> None:
        try:
            said = change(workspace, corpus)
        except RanklensError as error:
            self.call_from_thread(self.notify, str(error), severity="error", markup=False)
            return
        self.call_from_thread(self.notify, said, markup=False)

    def action_save_run(self) -> None:
        """Ask for a name, then save a run of every question under the current setup in the workspace."""
        if self.context is None or self.context.workspace is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        context = self.context

        def chosen(name: str | None) -> None:
            if name:
                self._save_run(context, name)

        where = context.workspace.runs_dir
        self.push_screen(PathPrompt("Save a run of every question under the current setup, named",
                                    context.setup.scorer,
                                    hint=f"Enter saves it in {where}, Escape cancels"), chosen)

    @work(thread=True, exclusive=True, group="save-run")
    def _save_run(self, context: Context, name: str) -> None:
        from ranklens.engine.compare import run_depth, setup_run

        assert context.workspace is not None
        worker = get_current_worker()
        progress = cancellable(self._progress_from_thread, lambda: worker.is_cancelled)
        try:
            context.workspace.run_path(name)  # a bad name is refused before the run is made
            run, meta, _ = setup_run(context.workbench, run_depth(context.setup), name, progress)
            saved = context.workspace.save_run(name, run, meta)
        except Cancelled:
            self.call_from_thread(self._set_status, "saving the run cancelled")
            return
        except RanklensError as error:
            self.call_from_thread(self._set_status, "")
            self.call_from_thread(self.notify, str(error), severity="error")
            return
        headline = "  ".join(f"{key} {value:.3f}" for key, value in list(meta["metrics"].items())[:2])
        self.call_from_thread(self._set_status, "")
        self.call_from_thread(self.notify, f"run {name} saved: {meta['questions']} questions"
                                           f"{' · ' + headline if headline else ''} ({saved.path})")
        self.call_from_thread(self._runs_changed)

    def _runs_changed(self) -> None:
        """A run was saved: a pane listing runs lists it."""
        for pane in self.panes:
            refresh = getattr(pane, "runs_changed", None)
            if callable(refresh):
                refresh()

    def _failed(self, message: str, error: bool = True) -> None:
        self._set_status(message, error=error)
        if error:
            self.notify(message, title="error", severity="error", markup=False)
        if self.context is None:  # nothing open: the panes say why and how to go on, not "Opening…"
            self._no_corpus = f"{message}. {HOW_TO_OPEN}"
            for pane in self.panes:
                pane.no_corpus(self._no_corpus)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:  # noqa: D417
        """Every notification is plain text, one line, control characters made visible.

        Messages quote file names, ids, corpus text and engine errors; guarding
        here covers every caller (``Widget.notify`` comes here too), so no
        message can style text or reach the terminal raw. ``markup`` is
        accepted for Textual's signature and ignored.
        """
        message, title = one_line(message, NOTIFICATION_CELLS), one_line(title, NOTIFICATION_CELLS)
        # The same message twice (a key pressed twice at a limit) stays one toast.
        if any(n.message == message and n.title == title for n in self._notifications):
            return
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # -- the state every pane works from ----------------------------------------------------------

    def _publish(self, context: Context) -> None:
        self.context = context
        if self._status_is_error:  # an old error (a failed open) does not describe what is on screen now
            self._status, self._status_is_error = "", False
        self._refresh_setup_line()
        for pane in self.panes:
            pane.context_changed(context)

    def _change(self, **changes: Any) -> None:
        """A new context with ``changes``, unless nothing changes."""
        if self.context is None:
            return
        if all(getattr(self.context, name) == value for name, value in changes.items()):
            return
        self._publish(dataclasses.replace(self.context, **changes, generation=self.context.generation + 1))

    def set_query(self, text: str) -> None:
        self._query = text
        self._change(query=text)

    def apply_settings(self, changes: dict[str, Any]) -> bool:
        """Apply setting changes (Setup field -> value); a refused value becomes a notification and the
        setup stays as it was. True when the setup changed."""
        if self.context is None:
            self.notify("no corpus is open yet", severity="warning")
            return False
        try:
            setup = self.context.setup.replace(**changes)
        except RanklensError as error:
            self.notify(str(error), severity="warning", markup=False)
            return False
        if setup == self.context.setup:
            return False
        self._undo.append(self.context.setup)
        self._redo.clear()
        self._use_setup(setup)
        return True

    def _use_setup(self, setup: Setup) -> None:
        self._chunk_count, self._ran = None, None
        self._change(setup=setup)
        self._build_index(self.context)

    def action_undo(self) -> None:
        self._step_history(self._undo, self._redo, "undone", "nothing to undo")

    def action_redo(self) -> None:
        self._step_history(self._redo, self._undo, "redone", "nothing to redo")

    def _step_history(self, source: list[Setup], target: list[Setup], done: str, empty: str) -> None:
        if self.context is None or not source:
            self.notify(empty)
            return
        current, setup = self.context.setup, source.pop()
        target.append(current)
        self._use_setup(setup)
        self.notify(f"{done}: {changed(current, setup)}")

    def action_reset(self) -> None:
        """Back to the corpus' own settings (its ranklens.toml over the defaults); undone like any change."""
        if self.context is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        from ranklens.engine.retriever import setup_for

        current, setup = self.context.setup, setup_for(self.context.corpus)
        if setup == current:
            self.notify("the settings are the corpus' already")
            return
        self._undo.append(current)
        self._redo.clear()
        self._use_setup(setup)
        self.notify(f"reset to the corpus' settings: {changed(current, setup)}")

    @work(thread=True, exclusive=True, group="index")
    def _build_index(self, context: Context) -> None:
        """Build the index of a new setup now, with progress, so the panes find it ready."""
        worker = get_current_worker()
        try:
            retriever = context.workbench.retriever(
                context.setup, cancellable(self._progress_from_thread, lambda: worker.is_cancelled))
            keep_built()
        except Cancelled:
            self.call_from_thread(self._set_status, "indexing cancelled")
            return
        except RanklensError as error:
            self.call_from_thread(self._failed, str(error))
            return
        except Exception as error:  # noqa: BLE001 - a bug in a scorer must not close the app with the user's work
            self.call_from_thread(self._failed, f"indexing failed: {type(error).__name__}: {error}")
            return
        self.call_from_thread(self._index_built, context, len(retriever.chunks), retriever.notes, retriever.setup)

    def _index_built(self, context: Context, chunks: int, notes: list[str], ran: Setup) -> None:
        # built for another setup, or ranked by another engine (a collection opened or let go since)
        if self.context is None or context.setup != self.context.setup or context.workbench.backend is not self.backend:
            return
        self._chunk_count, self._ran = chunks, ran
        self._set_status("")
        for note in notes:
            self.notify(note, markup=False)
        if self.backend is not None and ran.scorer != context.setup.scorer:
            from ranklens.engine.scoring.registry import spec

            asked, runs = spec(context.setup.scorer).label, spec(ran.scorer).label
            self.notify(f"the collection ranks by {runs}, not {asked}: the palette's 'Use the local index' "
                        f"ranks by {asked}", markup=False)

    # -- the setup line ----------------------------------------------------------------------------

    def _refresh_setup_line(self) -> None:
        line = self.query_one(SetupLine)
        if self.context is None:
            line.show(self.corpus_spec, None, "", self._status, self._status_is_error)
        else:
            # What runs, once known: LSA's dimensions clamped to the corpus, not the ones asked for.
            setup = self._ran or self.context.setup
            corpus = self.context.corpus
            language = str(corpus.settings.get("language") or "")
            if language and corpus.language_detected:
                language += " (detected)"
            line.show(corpus.name, self._chunk_count, describe(setup), self._status, self._status_is_error,
                      language, self.backend.label if self.backend is not None else "")

    def _set_status(self, status: str, error: bool = False) -> None:
        self._status, self._status_is_error = status, error
        self._refresh_setup_line()

    def _progress_from_thread(self, done: int, total: int, label: str) -> None:
        """Progress of a worker: shown at most every PROGRESS_EVERY_S, so reporting stays cheap."""
        now = time.monotonic()
        if now - self._last_progress < PROGRESS_EVERY_S:
            return
        self._last_progress = now
        amount = f"{done * 100 // total}%" if total else f"{done:,}"
        self.call_from_thread(self._set_status, f"{label} {amount} (Esc cancels)")

    # -- messages from the panes -------------------------------------------------------------------

    def on_search_pane_query_changed(self, message: SearchPane.QueryChanged) -> None:
        self.set_query(message.text)

    async def on_use_query(self, message: UseQuery) -> None:
        await self.action_show_tab("search")
        self.set_query(self.query_one(SearchPane).show_query(message.text))

    def on_change_setup(self, message: ChangeSetup) -> None:
        if self.apply_settings(message.changes) and message.reason:
            self.notify(message.reason, markup=False)

    # -- actions -----------------------------------------------------------------------------------

    async def action_show_tab(self, tab: str) -> None:
        await self.build_tab(tab)
        tabs = self.query_one("#tabs", TabbedContent)
        if tabs.active != tab:
            # A focused widget that gets hidden hands focus to a neighbour, which can be in the old
            # tab, and focusing it switches back: let go first, _focus_in_tab picks in the new tab.
            self.set_focus(None)
            tabs.active = tab
            # Now, not after the next refresh: a key pressed right after the tab's key ("3 f") must
            # reach the new tab.
            self._focus_in_tab(tab)

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is None:
            return
        await self.build_tab(event.pane.id)  # shown from the tab bar (mouse, arrows): not built yet
        # Focus follows the tab, so its keys work at once; the tab bar keeps it when it had it.
        if not isinstance(self.focused, Tabs):
            self.call_after_refresh(self._focus_in_tab, event.pane.id)

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self.call_after_refresh(self._sync_typing)
        for ancestor in event.widget.ancestors:
            if isinstance(ancestor, TabPane) and ancestor.id is not None:
                self._tab_focus[ancestor.id] = event.widget
                break

    def _focus_in_tab(self, tab: str) -> None:
        """Focus what last had focus in ``tab``, else its first widget; never a text box, so that
        keys switching tabs do not land in one."""
        pane = self.query_one("#tabs", TabbedContent).get_pane(tab)
        if self.focused is not None and pane in self.focused.ancestors:
            return
        remembered = self._tab_focus.get(tab)
        candidates = [w for w in self.screen.focus_chain if pane in w.ancestors and not isinstance(w, Input)]
        target = remembered if remembered in candidates else (candidates[0] if candidates else None)
        self.set_focus(target)

    async def action_focus_query(self) -> None:
        await self.action_show_tab("search")
        self.query_one(QueryBox).focus()

    async def action_help(self) -> None:
        await self.build_all_tabs()
        self.push_screen(HelpScreen(all_rows(self, self.tabs)))

    def action_setting(self, step_id: str) -> None:
        if self.context is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        step = STEPS_BY_ID[step_id]
        # Steps start from what runs: under LSA clamped to 18 dimensions, d goes to 16, not from 100 to 64.
        # Not the scorer under a collection, which runs BM25 whatever is asked: s would stay on LSA for ever.
        base = self._ran if self._ran is not None else self.context.setup
        if self.backend is not None and step.setting == "scorer":
            base = self.context.setup
        changes = step.change(base, self.context.corpus.settings)
        if not self.apply_settings(changes):
            if self._valid(changes):  # a valid value that changes nothing: still, the key answers
                self.notify(f"{setting_title(step.setting)} stays {_shown(getattr(base, step.setting))}")
            return
        hint = inactive_hint(self.context.setup, step.setting)
        if hint:
            self.notify(hint)

    def action_type_setting(self, name: str) -> None:
        """Ask for a setting no key steps (a model, a reranker, fusion's parts...), then apply it."""
        from ranklens.engine.settings import OFF_WORDS, parse_text
        from ranklens.engine.setup import setup_settings

        spec = setup_settings()[name]
        if self.context is None:
            self.notify("no corpus is open yet", severity="warning")
            return

        def chosen(text: str | None) -> None:
            if text is None or self.context is None:
                return
            try:
                value = parse_text(spec, text)
            except RanklensError as error:
                self.notify(str(error), severity="warning", markup=False)
                return
            if self.apply_settings({name: value}):
                self.notify(inactive_hint(self.context.setup, name) or f"{setting_title(name)}: {_shown(value)}",
                            markup=False)
            elif self._valid({name: value}):
                self.notify(f"{setting_title(name)} stays {_shown(value)}", markup=False)

        current = getattr(self.context.setup, name)
        off = f"; {OFF_WORDS[0]} for none" if spec.optional else ""
        typed = "" if current is None else ",".join(current) if isinstance(current, tuple) else _shown(current)
        self.push_screen(PathPrompt(f"{setting_title(name)}: {spec.help}", typed,
                                    hint=f"Enter applies it{off}, Escape cancels"), chosen)

    def _valid(self, changes: dict[str, Any]) -> bool:
        try:
            self.context.setup.replace(**changes)  # type: ignore[union-attr]
        except RanklensError:
            return False
        return True

    def action_cancel_work(self) -> None:
        self.workers.cancel_all()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_work":
            # Escape is free for the panes and dialogs unless there is work to cancel.
            return any(worker.is_running for worker in self.workers)
        if action in self.HIDDEN_WHILE_TYPING:
            return not self.typing
        if action in self.SHOWN_WHILE_TYPING:
            return self.typing
        return True

    @property
    def typing(self) -> bool:
        """Whether keys type into a text box now (a palette command is not typed: it runs as if a key)."""
        return isinstance(self.focused, Input) and not self._running_command

    async def run_command(self, action: str, owner: DOMNode) -> None:
        """Run a palette command's action, whatever has the focus once the palette closes."""
        self._running_command = True
        try:
            await self.run_action(action, owner)
        finally:
            self._running_command = False

    async def action_jump_tab(self, tab: str) -> None:
        await self.action_show_tab(tab)

    async def action_help_while_typing(self) -> None:
        await self.action_help()

    async def action_quit_anywhere(self) -> None:
        await self.action_quit()

    def action_help_quit(self) -> None:
        """ctrl+c quits in many programs: say which key does here, in plain words (Textual's says it in markup)."""
        self.notify("Press ctrl+q to quit (or q when not typing)", title="Do you want to quit?")

    # -- the tab bar follows the focus --------------------------------------------------------------

    def _sync_typing(self) -> None:
        """The tab bar names the keys that switch tabs from where the focus is: digits, or alt+digits."""
        if not self.is_mounted or not self.query("#tabs"):
            return
        # Where "alt+1 Search …" does not fit (each label has a cell of padding either side), the labels
        # while typing are the titles alone and the footer says "alt+1-6 tabs".
        fits = sum(len(f"alt+{tab.key} {tab.title}") + 2 for tab in self.tabs.values()) < self.size.width
        labels = ("alt" if fits else "titles") if self.typing else "keys"
        if labels == self._labels_typing:
            return
        self._labels_typing = labels
        tabbed = self.query_one("#tabs", TabbedContent)
        for tab in self.tabs.values():
            tabbed.get_tab(tab.id).label = {"alt": f"alt+{tab.key} {tab.title}", "titles": tab.title,
                                            "keys": tab.label}[labels]
        # Textual moves the underline once the relabelled tabs are refreshed, which can be before their new
        # widths are laid out: move it again after that layout, so it always spans the active tab's label.
        bar = tabbed.query_one(Tabs)
        bar.call_after_refresh(bar.call_after_refresh, bar._highlight_active, False)

    def on_resize(self) -> None:
        self.call_after_refresh(self._sync_typing)

    def on_descendant_blur(self) -> None:
        self.call_after_refresh(self._sync_typing)

    def action_open_path(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.switch_corpus(path)

        from ranklens.tui.recent import PathSuggester

        self.push_screen(PathPrompt("Open a corpus: a BEIR folder, a folder of .txt/.md files or a .jsonl file",
                                    hint="Enter opens it, → completes a path, Escape cancels",
                                    suggester=PathSuggester(self.recent), recent=self.recent), chosen)

    # -- ranking through a collection (engine/backends/) ---------------------------------------------

    def action_open_collection(self) -> None:
        """Ask where the collection is and its name, then rank the open corpus through it."""
        if self.context is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        name = self.context.corpus.name

        def located(target: str | None) -> None:
            if not target:
                return

            def named(collection: str | None) -> None:
                if collection is not None:  # Escape: nothing opened; Enter on an empty box: the corpus' name
                    self.open_collection(target, collection or name)

            self.push_screen(PathPrompt(f"The collection in {target}", name,
                                        hint="Enter opens it (ranklens push names it after the corpus), "
                                             "Escape cancels"), named)

        self.push_screen(PathPrompt("Open a Qdrant collection: qdrant:PATH (a folder made by ranklens push) "
                                    "or http(s)://HOST:PORT (API key from $QDRANT_API_KEY)",
                                    hint="Enter goes on to the collection's name, Escape cancels"), located)

    def open_collection(self, target: str, collection: str) -> None:
        """Rank the open corpus through ``collection`` at ``target``; on any refusal the app ranks as before."""
        if self.context is None:
            return
        self._set_status(f"opening {target}…")
        # A local folder admits one client at a time: the one open now lets go first (the panes rank
        # locally meanwhile), and stays let go if the new one is refused.
        previous = self.backend
        if previous is not None:
            self._go_local()
        self._open_collection(self.context, target, collection, previous)

    @work(thread=True, exclusive=True, group="backend")
    def _open_collection(self, context: Context, target: str, collection: str, previous: Backend | None) -> None:
        from ranklens.engine.backends.qdrant import QdrantBackend

        self._close_quietly(previous)
        worker = get_current_worker()
        progress = cancellable(self._progress_from_thread, lambda: worker.is_cancelled)
        backend: Backend | None = None
        try:
            backend = QdrantBackend.open(target, collection)
            retriever = context.workbench.with_backend(backend).retriever(context.setup, progress)
        except (Cancelled, RanklensError) as error:
            self._close_quietly(backend)
            cancelled = isinstance(error, Cancelled)
            self.call_from_thread(self._set_status, f"opening {target} cancelled" if cancelled else "")
            if not cancelled:
                self.call_from_thread(self.notify, str(error), title="collection", severity="error")
            return
        self.call_from_thread(self._collection_opened, context, backend, len(retriever.chunks), retriever.setup)

    def _collection_opened(self, context: Context, backend: Backend, chunks: int, ran: Setup) -> None:
        if self.context is None or self.context.workspace is not context.workspace or self.backend is not None:
            self._close_in_worker(backend)  # another corpus (or collection) came first
            return
        self._set_status("")
        self._change(workbench=self.context.workbench.with_backend(backend))
        if self.context.setup == context.setup:
            self._chunk_count, self._ran = chunks, ran
            self._refresh_setup_line()
        else:  # the setup changed meanwhile: build what runs of the new one through the collection
            self._build_index(self.context)
        self.notify(f"ranking through {backend.label}", title="collection")

    def action_use_local_index(self) -> None:
        backend = self.backend
        if backend is None:
            self.notify("the local index ranks already")
            return
        self._go_local()
        self._close_in_worker(backend)
        self.notify(f"ranking with the local index (not through {backend.label})")

    def _go_local(self) -> None:
        """The open corpus ranked by ranklens' own index again (its pieces are built already)."""
        assert self.context is not None
        self._chunk_count, self._ran = None, None
        self._change(workbench=self.context.workbench.with_backend(None))
        self._build_index(self.context)

    def _close_in_worker(self, backend: Backend) -> None:
        self.run_worker(backend.close, thread=True, group="backend-close", exit_on_error=False)

    # -- the command palette -----------------------------------------------------------------------

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action: the app's keys, the active tab's, key-less settings, corpora to open."""
        from ranklens.corpora import bundled_corpora
        from ranklens.tui.workspace_files import WORKSPACE_FILES

        active_tab = str(self.query_one("#tabs", TabbedContent).active)
        rows = [row for row in app_rows(self) if row.action not in ("command_palette", "help_while_typing")]
        active = self._built.get(active_tab)  # None only in the instant its tab is being built
        if active is not None:
            # the pane's own actions (copy, save, ...), not the cursor keys of the widgets inside it
            # ("app." actions: the app's keys a pane shows in its footer, already listed)
            rows += rows_for(self, self.tabs[active_tab].title, active,
                             [b for b in own_bindings(active) if not b.action.startswith("app.")])
        commands = [PaletteCommand(row.description, partial(self.run_command, row.action, row.owner),
                                   f"{row.where} · key {row.keys}") for row in rows]
        commands += [PaletteCommand(f"Setting: {step.description}", partial(self.action_setting, step.id),
                                    "no key: palette only")
                     for step in SETTING_STEPS if step.key is None]
        if self.context is not None:
            commands += [PaletteCommand(f"Set {setting_title(name)}…", partial(self.action_type_setting, name),
                                        f"now {_shown(getattr(self.context.setup, name))} · typed: no key")
                         for name in _typed_settings()]
        commands += [PaletteCommand(entry.name, partial(self.action_workspace_file, entry.name),
                                    "the corpus' workspace: " + ("into it" if entry.imports else "out of it"))
                     for entry in WORKSPACE_FILES]
        commands += [PaletteCommand(f"Open corpus {name}", partial(self.switch_corpus, name), description)
                     for name, description in bundled_corpora()]
        commands.append(PaletteCommand("Open corpus from a path…", self.action_open_path,
                                       "a BEIR folder, a folder of .txt/.md files or a .jsonl file"))
        commands.append(PaletteCommand("Open a Qdrant collection…", self.action_open_collection,
                                       "rank the open corpus through a collection made by ranklens push "
                                       "(the qdrant extra)"))
        if self.backend is not None:
            commands.append(PaletteCommand("Use the local index", self.action_use_local_index,
                                           f"rank locally again, not through {self.backend.label}"))
        return commands



def describe(setup: Setup) -> str:
    """The setup line's summary: the engine's, with the number of results said as "top 5", so it is
    not mistaken for another k on the same line (fusion's RRF k=60)."""
    text = setup.describe()
    results = f"k={setup.k}"
    return text[:-len(results)] + f"top {setup.k}" if text.endswith(results) else text


def changed(before: Setup, after: Setup) -> str:
    """The settings that differ, as "BM25 k1 1.3 → 1.2, scorer bm25 → tfidf"."""
    from ranklens.engine.setup import setup_settings

    parts = [f"{setting_title(name)} {_shown(getattr(before, name))} → {_shown(getattr(after, name))}"
             for name in setup_settings() if getattr(before, name) != getattr(after, name)]
    return ", ".join(parts) or "no change"


def setting_title(name: str) -> str:
    from ranklens.engine.setup import setup_settings

    return setup_settings()[name].label()


def _typed_settings() -> tuple[str, ...]:
    """The settings no key steps: the palette asks for their value."""
    from ranklens.engine.setup import setup_settings

    stepped = {step.setting for step in SETTING_STEPS}
    return tuple(name for name in setup_settings() if name not in stepped)


def _shown(value: Any) -> str:
    if value is None:  # an optional setting not set: a reranker, a language
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return "+".join(value)
    return str(value)


def inactive_hint(setup: Setup, name: str) -> str:
    """What to say when a key changes ``name``, a setting that only another scorer reads: that it
    does not change the ranking on screen ("BM25 k1 1.3 — applies to BM25; the active scorer is TF-IDF")."""
    from ranklens.engine.scoring.registry import scorer_names, spec

    readers = [spec(n) for n in scorer_names() if name in spec(n).settings]
    if not readers:
        return ""  # analysis, chunking, k: every scorer reads them
    active = spec(setup.scorer)
    running = {setup.scorer, *(active.parts(setup) if active.parts else ())}
    if any(reader.name in running for reader in readers):
        return ""
    return (f"{setting_title(name)} {_shown(getattr(setup, name))} — applies to "
            f"{', '.join(reader.label for reader in readers)}; the active scorer is {active.label}")


def make_app(corpus: str = DEFAULT_CORPUS, overrides: dict[str, Any] | None = None,
             cursor_blink: bool = True, tabs: Mapping[str, Tab] = TABS, backend: Backend | None = None
             ) -> RanklensApp:
    """The app on ``corpus`` with setup ``overrides`` (Setup field -> value), not yet running;
    ``tabs`` is the tab table it shows (tests give one with a tab of their own); ``backend`` (opened,
    the app closes it) ranks the corpus."""
    return RanklensApp(corpus, overrides, cursor_blink, tabs, backend)


def run_app(corpus_spec: str, overrides: dict[str, Any], backend: Backend | None = None) -> None:
    """Run the TUI until the user quits: what ``ranklens [CORPUS] [--backend ...]`` calls."""
    make_app(corpus_spec, overrides, backend=backend).run()
