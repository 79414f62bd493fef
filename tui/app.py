"""The ranklens app: the tabs of the tab table over one corpus, the setup line, the keys that change settings.

The app composes the screen and routes keys and messages. Its state is a ``Session`` (tui/session.py,
no Textual): one ``Context`` (corpus, setup, query), setting changes, undo and redo. Any change makes
a new context (generation + 1), which the app hands to every pane; panes do their work through the
worker path of their base (tui/panes/base.py), which drops results computed for an older generation.
The engine (numpy, scipy, later scikit-learn) is imported only inside workers, so the first screen
paints before any of it loads.

The app's other jobs are objects it owns, one module each: the tabs' panes, built when first shown
(tab_panes.py), opening a corpus (corpus_opening.py), the workspace's writes (workspace_actions.py),
collections (collections.py), the setup line (status.py), the tab keys and labels (tab_keys.py) and
the palette's rows (palette_rows.py). How the parts fit: docs/architecture.md.
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import cache, partial
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.dom import DOMNode
from textual.events import DescendantFocus
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Input, TabbedContent, TabPane, Tabs

from ranklens.tui.collections import Collections
from ranklens.tui.context import ChangeSetup, ChangeWorkspace, ShowQuery, TabKeysChanged, TakesTabKeys, UseQuery
from ranklens.tui.corpus_opening import CorpusOpener
from ranklens.tui.heap import release_kept
from ranklens.tui.grade_keys import grade_key_display
from ranklens.tui.help import HelpScreen
from ranklens.tui.index_build import IndexBuilder
from ranklens.tui.judgment_watch import JudgmentWatch
from ranklens.tui.key_map import all_rows
from ranklens.tui.palette import PaletteCommand, RanklensCommands
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.safe import one_line
from ranklens.tui.session import Context, Outcome, Session
from ranklens.tui.terminal_watch import CHECK_EVERY_S, HUNG_UP_STATUS, end_after_grace, hung_up, terminal_fd
from ranklens.tui.setting_steps import SETTING_STEPS
from ranklens.tui.setting_text import setting_title, typed_text
from ranklens.tui.status import Status
from ranklens.tui.tab_keys import TabLabels, keys_over_boxes, tab_bindings
from ranklens.tui.tab_panes import TabPanes
from ranklens.tui.tabs import TABS, Tab
from ranklens.tui.toasts import Toasts
from ranklens.tui.widgets.footer import FittedFooter
from ranklens.tui.widgets.path_prompt import PathPrompt
from ranklens.tui.widgets.query_box import QueryBox
from ranklens.tui.widgets.setup_line import SetupLine
from ranklens.tui.workspace_actions import WorkspaceActions

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend

DEFAULT_CORPUS = "studio-alfa"
NOTIFICATION_CELLS = 400  # a message quoting a 100,000-character line would fill the screen


@cache
def _takes_tab_keys(kind: type) -> bool:
    # The footer asks digits_taken for each tab key on every focus move and every worker's change: an isinstance
    # against a runtime Protocol, ~30 µs each on Python 3.11, cost a tenth of a judging test's CPU.
    return issubclass(kind, TakesTabKeys)


def _setting_bindings() -> list[Binding]:
    return [
        Binding(step.key, f"setting('{step.id}')", step.description, show=False, id=f"setting.{step.id}")
        for step in SETTING_STEPS
        if step.key is not None
    ]


class MainScreen(Screen[None]):
    """The app's screen. No auto-focus: Textual's picks the first focusable widget in the DOM, which may
    sit in a hidden tab, and focusing it switches tabs (after a dialog closes, say). The app places the
    focus itself (``TabPanes.focus_in``)."""

    AUTO_FOCUS = ""


class RanklensApp(App[None]):
    """The app over ``TAB_TABLE``; ``make_app`` makes it, with the keys of its tab table bound."""

    CSS_PATH = "app.tcss"
    TITLE = "ranklens"
    COMMANDS = App.COMMANDS | {RanklensCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (80, "-narrow"), (100, "-wide")]
    # Footer labels are short (description); the help and the palette say more (tooltip).
    APP_BINDINGS = [
        # The keys that open a box act as the app gets them (priority), not once the focused widget has passed
        # them up: the keys typed after them then go to the box (tui/widgets/path_prompt.py), never to shortcuts.
        Binding("slash", "focus_query", "query", tooltip="Go to the query box", show=False, priority=True,
                id="app.query"),
        Binding("question_mark,f1", "help", "help", tooltip="Help", id="app.help"),
        Binding("f1", "help_while_typing", "help", tooltip="Help (while typing)", id="app.help_typing"),
        # the footer shows the palette key on its own, at the right
        Binding("ctrl+p", "command_palette", "Palette", show=False, priority=True, id="app.palette"),
        Binding("ctrl+o", "open_path", "open", tooltip="Open a corpus from a path", show=False, priority=True,
                id="app.open"),
        Binding("q", "quit", "quit", tooltip="Quit", id="app.quit"),
        Binding("ctrl+q", "quit_anywhere", "quit", tooltip="Quit (also while typing)", show=False, priority=True,
                id="app.quit_anywhere"),
        Binding("escape", "cancel_work", "cancel", tooltip="Cancel running work", show=False, id="app.cancel"),
        Binding("ctrl+z", "undo", "undo", tooltip="Undo the last setting change", show=False, id="app.undo"),
        Binding("ctrl+y", "redo", "redo", tooltip="Redo a setting change undone", show=False, id="app.redo"),
        Binding("R", "reset", "reset", tooltip="Reset the settings to the corpus' own", show=False, id="app.reset"),
        Binding("S", "save_run", "save run", tooltip="Save a run of every question under the current setup",
                show=False, priority=True, id="app.save_run"),
        Binding("P", "judge_pool", "pool", tooltip="Judge a pool…: the unjudged pairs of several runs' top N, one "
                "at a time", show=False, priority=True, id="app.judge_pool"),
        Binding("r", "reload_judgments", "reload", tooltip="Read the judgments again (given in another terminal "
                "or by the command line: seen within a second anyway)", show=False, id="app.reload_judgments"),
        Binding("M", "count_mine", "mine", tooltip="Count my judgments: on/off (off: the corpus' judgments alone, "
                "as --no-workspace)", show=False, id="app.count_mine"),
        # Textual's own focus keys, listed in the help: they move between the boxes of a tab.
        Binding("tab", "focus_next", "Next box", show=False, id="app.focus_next"),
        Binding("shift+tab", "focus_previous", "Previous box", show=False, id="app.focus_previous"),
    ]
    # Actions whose keys type into a text box: the footer hides them while one has the focus.
    HIDDEN_WHILE_TYPING = frozenset({"focus_query", "help", "quit", "setting", "reset", "save_run", "count_mine",
                                     "judge_pool", "reload_judgments"})
    SHOWN_WHILE_TYPING = frozenset({"help_while_typing"})
    # Never from a screen over the tabs (a dialog, the queue, the help): `s` there changed the unseen scorer.
    ON_THE_TABS = frozenset({"setting", "reset", "undo", "redo", "save_run", "count_mine", "judge_pool", "show_tab",
                             "jump_tab", "focus_query", "reload_judgments", "open_path"})
    SETTING_BINDINGS = _setting_bindings()
    TAB_TABLE: ClassVar[Mapping[str, Tab]] = {}  # the tabs shown, in order: set with their keys (see _bound)

    def __init__(self, corpus: str = DEFAULT_CORPUS, overrides: dict[str, Any] | None = None,
                 cursor_blink: bool = True, backend: Backend | None = None) -> None:
        if not self.TAB_TABLE:
            raise TypeError("make the app with make_app: it binds the keys of the app's tab table")
        super().__init__()
        self.tabs = dict(self.TAB_TABLE)
        self.first_tab = next(iter(self.tabs))
        self._tab_bindings = tab_bindings(self.tabs)
        self.keys_over_boxes = keys_over_boxes(self.tabs)  # read by every text box
        self.corpus_spec = corpus
        self.overrides = dict(overrides or {})
        self.cursor_blink = cursor_blink  # read by every text box; snapshot tests turn it off
        self.session = Session()
        self.tab_panes = TabPanes(self)
        self.status = Status(self)
        self.opener = CorpusOpener(self, backend)
        self.indexer = IndexBuilder(self)
        self.collections = Collections(self)
        self.workspace_actions = WorkspaceActions(self)
        self.judgment_watch = JudgmentWatch(self)
        self._labels = TabLabels(self.tabs)
        self._toasts = Toasts()
        self._running_command = False  # a palette command runs: keys are not being typed (see typing)

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(id="_default")

    def key_bindings(self) -> list[Binding]:
        """Every key of the app, in the order the help lists them (alt+digit once, with its digit)."""
        tabs = [binding for binding in self._tab_bindings if not binding.priority]
        # f1 while typing is the footer's way of showing f1 there; the help lists f1 once, with ?.
        own = [binding for binding in self.APP_BINDINGS if binding.action != "help_while_typing"]
        return [*own, *tabs, *self.SETTING_BINDINGS]

    def get_key_display(self, binding: Binding) -> str:
        return grade_key_display(binding, self.context) or super().get_key_display(binding)

    @property
    def context(self) -> Context | None:
        return self.session.context

    @property
    def backend(self) -> Backend | None:
        """The collection the open corpus is ranked through, None when ranklens' own index ranks it."""
        return self.session.backend

    # -- layout ------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with TabbedContent(initial=self.first_tab, id="tabs"):
            for tab in self.tabs.values():
                with TabPane(tab.label, id=tab.id):
                    if tab.id == self.first_tab:
                        yield tab.pane(id=f"{tab.id}-pane")
        yield SetupLine(id="setup-line")
        yield FittedFooter()

    @property
    def panes(self) -> list[WorkPane]:
        """The panes built so far, in tab order."""
        return self.tab_panes.built

    async def build_tab(self, tab: str) -> WorkPane:
        """``tab``'s pane, built the first time it is asked for (tui/tab_panes.py)."""
        return await self.tab_panes.build(tab)

    async def build_all_tabs(self) -> None:
        """Every tab's pane: the help screen lists the keys of widgets that must exist."""
        for tab in self.tabs:
            await self.build_tab(tab)

    def on_mount(self) -> None:
        self.tab_panes.composed(self.first_tab, self.query_one(f"#{self.first_tab}-pane", WorkPane))
        # The tab bar is no focus stop: nothing shows it has the focus, and keys switch tabs anyway.
        self.query_one("#tabs", TabbedContent).query_one(Tabs).can_focus = False
        self.query_one(QueryBox).focus()
        # A prompt's box closing gives the focus back without a focus event the app sees: sync then too.
        self.screen_change_signal.subscribe(self, lambda _screen: self.call_after_refresh(self._sync_typing))
        terminal = terminal_fd()
        if terminal is not None and not self.is_headless:
            self.set_interval(CHECK_EVERY_S, partial(self._exit_if_hung_up, terminal))
        self.judgment_watch.start()
        self.switch_corpus(self.corpus_spec)

    def _exit_if_hung_up(self, terminal: int) -> None:
        if hung_up(terminal):
            end_after_grace()
            self.exit(return_code=HUNG_UP_STATUS)

    def on_unmount(self) -> None:
        release_kept()  # the process may go on (tests, a program embedding the app): its heap is its own again
        if self.backend is not None:
            self.backend.close()  # a local folder stays locked while its client is open

    def switch_corpus(self, spec: str) -> None:
        """Open ``spec``; the current corpus stays until the new one is ready (or fails to load)."""
        self.opener.open(spec)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:  # noqa: D417
        """Every notification is plain text, one line, control characters made visible.

        Messages quote file names, ids, corpus text and engine errors; guarding
        here covers every caller (``Widget.notify`` comes here too), so no
        message can style text or reach the terminal raw. ``markup`` is
        accepted for Textual's signature and ignored.
        """
        message, title = one_line(message, NOTIFICATION_CELLS), one_line(title, NOTIFICATION_CELLS)
        timeout = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        if self._toasts.first(message, title, timeout):  # the same message twice stays one toast
            super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def clear_notifications(self) -> None:
        self._toasts.clear()
        super().clear_notifications()

    # -- keys typed while a dialog opens ----------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # A dialog just pushed has no focused box yet: the keys typed meanwhile are its (tui/widgets/path_prompt.py),
        # never the shortcuts of the screen under it.
        top = self.screen_stack[-1] if self.screen_stack else None
        if (isinstance(event, events.Key) and not event.is_forwarded and isinstance(top, PathPrompt)
                and top.holds(event)):
            return
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        # A key handed on before a dialog opened unasked (at a grade) comes back here unused once it is on top:
        # it waits with the dialog's others, instead of being lost under it.
        top = self.screen_stack[-1] if self.screen_stack else None
        if isinstance(top, PathPrompt) and top.kept_for_later(event):
            event.prevent_default()

    async def on_path_prompt_typed_ahead(self, message: PathPrompt.TypedAhead) -> None:
        for key in message.prompt.release():
            await super().on_event(key)  # handled as they would have been, the box having the focus now

    # -- the state every pane works from ----------------------------------------------------------

    def publish(self) -> None:
        """Hand the session's context to every pane built, and say on the setup line what it is."""
        context = self.session.context
        assert context is not None
        self.status.published()
        for pane in self.panes:
            pane.context_changed(context)

    def set_query(self, text: str) -> None:
        if self.session.set_query(text):
            self.publish()

    def apply_settings(self, changes: dict[str, Any]) -> bool:
        """Apply setting changes (Setup field -> value); a refused value becomes a notification and the
        setup stays as it was. True when the setup changed."""
        return self._settle(self.session.apply(changes))

    def _settle(self, outcome: Outcome) -> bool:
        """Publish the context of a setting change and build its index; say what the change said."""
        if outcome.changed:
            self.publish()
            self.indexer.build()
        if outcome.said:
            self.notify(outcome.said, severity="warning" if outcome.warning else "information")
        return outcome.changed

    # -- messages from the panes -------------------------------------------------------------------

    def on_search_pane_query_changed(self, message: SearchPane.QueryChanged) -> None:
        self.set_query(message.text)

    async def on_use_query(self, message: UseQuery) -> None:
        await self.action_show_tab("search")
        # The Search tab shows the question in its box and sends it back as the box holds it (QueryChanged).
        (await self.build_tab("search")).post_message(ShowQuery(message.text))

    def on_change_setup(self, message: ChangeSetup) -> None:
        if self.apply_settings(message.changes) and message.reason:
            self.notify(message.reason)

    def on_change_workspace(self, message: ChangeWorkspace) -> None:
        self.workspace_actions.change(message.change, message.judges, message.dropped)

    # -- tabs and the focus -------------------------------------------------------------------------

    async def action_show_tab(self, tab: str) -> None:
        await self.tab_panes.show(tab)

    async def action_jump_tab(self, tab: str) -> None:
        await self.tab_panes.show(tab)

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is None:
            return
        await self.build_tab(event.pane.id)  # shown from the tab bar (mouse, arrows): not built yet
        # Focus follows the tab, so its keys work at once; the tab bar keeps it when it had it.
        if not isinstance(self.focused, Tabs):
            self.call_after_refresh(self.tab_panes.focus_in, event.pane.id)

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self.call_after_refresh(self._sync_typing)
        self.tab_panes.focused(event.widget)

    def on_descendant_blur(self) -> None:
        self.call_after_refresh(self._sync_typing)

    def on_resize(self) -> None:
        self.call_after_refresh(self._sync_typing)

    def _sync_typing(self) -> None:
        """The tab bar names the keys that switch tabs from where the focus is: digits, or alt+digits."""
        if self.query("#tabs"):
            self._labels.follow(self.query_one("#tabs", TabbedContent), self.digits_taken, self.size.width)

    @property
    def typing(self) -> bool:
        """Whether keys type into a text box now (a palette command is not typed: it runs as if a key)."""
        return isinstance(self.focused, Input) and not self._running_command

    @property
    def digits_taken(self) -> bool:
        """Whether the tabs' digits type or act in the focused pane now (a text box, judge mode's grades):
        then alt+digit switches tabs, and the tab bar and the footer say so."""
        if self.typing:
            return True
        focused = self.focused
        return focused is not None and any(_takes_tab_keys(type(node)) and cast(TakesTabKeys, node).takes_tab_keys()
                                           for node in focused.ancestors_with_self)

    def on_tab_keys_changed(self, message: TabKeysChanged) -> None:
        self.refresh_bindings()
        self.call_after_refresh(self._sync_typing)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.ON_THE_TABS and len(self.screen_stack) > 1:
            return False
        if action == "show_tab":
            return not self.digits_taken
        if action == "jump_tab":
            return self.digits_taken
        if action == "cancel_work":
            # Escape is free for the panes and dialogs unless there is work to cancel.
            return any(worker.is_running for worker in self.workers)
        if action in self.HIDDEN_WHILE_TYPING:
            return not self.typing
        if action in self.SHOWN_WHILE_TYPING:
            return self.typing
        return True

    # -- actions -----------------------------------------------------------------------------------

    async def action_focus_query(self) -> None:
        await self.action_show_tab("search")
        # Now, not after the next message (Widget.focus waits for one): the keys typed right after / are the box's.
        self.set_focus(self.query_one(QueryBox))

    async def action_help(self) -> None:
        await self.build_all_tabs()
        self.push_screen(HelpScreen(all_rows(self, self.tabs)))

    async def action_help_while_typing(self) -> None:
        await self.action_help()

    def action_setting(self, step_id: str) -> None:
        self._settle(self.session.step(step_id))

    def action_type_setting(self, name: str) -> None:
        """Ask for a setting no key steps (a model, a reranker, fusion's parts...), then apply it."""
        from ranklens.engine.settings import OFF_WORDS
        from ranklens.engine.setup import all_settings

        if self.context is None:
            self.notify("no corpus is open yet", severity="warning")
            return
        spec = all_settings()[name]

        def chosen(text: str | None) -> None:
            if text is not None:
                self._settle(self.session.type_setting(name, text))

        off = f"; {OFF_WORDS[0]} for none" if spec.optional else ""
        self.push_screen(PathPrompt(f"{setting_title(name)}: {spec.help}", typed_text(self.context.setup, name),
                                    hint=f"Enter applies it{off}, Escape cancels"), chosen)

    def action_undo(self) -> None:
        self._settle(self.session.undo())

    def action_redo(self) -> None:
        self._settle(self.session.redo())

    def action_reset(self) -> None:
        self._settle(self.session.reset())

    def action_open_path(self) -> None:
        self.opener.ask()

    def action_save_run(self) -> None:
        self.workspace_actions.save_run()

    def action_judge_pool(self) -> None:
        self.workspace_actions.judge_pool()

    def action_reload_judgments(self) -> None:
        self.workspace_actions.reload(told=True)

    def action_count_mine(self) -> None:
        self.workspace_actions.toggle_counting()

    def action_workspace_file(self, name: str) -> None:
        self.workspace_actions.file(name)

    def action_open_collection(self, backend: str) -> None:
        self.collections.ask(backend)

    def action_use_local_index(self) -> None:
        self.collections.use_local_index()

    def action_cancel_work(self) -> None:
        self.workers.cancel_all()

    async def action_quit_anywhere(self) -> None:
        await self.action_quit()

    def action_help_quit(self) -> None:
        """ctrl+c quits in many programs: say which key does here, in plain words (Textual's says it in markup)."""
        self.notify("Press ctrl+q to quit (or q when not typing)", title="Do you want to quit?")

    # -- the command palette -----------------------------------------------------------------------

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action the palette offers now (tui/palette_rows.py)."""
        from ranklens.tui.palette_rows import palette_commands

        return palette_commands(self)

    async def run_command(self, action: str, owner: DOMNode) -> None:
        """Run a palette command's action, whatever has the focus once the palette closes."""
        self._running_command = True
        try:
            await self.run_action(action, owner)
        finally:
            self._running_command = False


@cache
def _bound(tabs: tuple[Tab, ...]) -> type[RanklensApp]:
    """The app over ``tabs``, their keys bound. Textual reads a class's BINDINGS once, when the class is
    made, and binds keys at run time only through ``App.bind``, which "may be removed" and takes neither
    an id nor a priority: each tab table gets a class. Its tab keys come first, so that the footer shows
    them before the others."""
    table = {tab.id: tab for tab in tabs}
    bindings = [*tab_bindings(table), *RanklensApp.APP_BINDINGS, *RanklensApp.SETTING_BINDINGS]
    return type(RanklensApp.__name__, (RanklensApp,), {"BINDINGS": bindings, "TAB_TABLE": table,
                                                       "__module__": __name__})


def make_app(corpus: str = DEFAULT_CORPUS, overrides: dict[str, Any] | None = None,
             cursor_blink: bool = True, tabs: Mapping[str, Tab] = TABS, backend: Backend | None = None
             ) -> RanklensApp:
    """The app on ``corpus`` with setup ``overrides`` (Setup field -> value), not yet running;
    ``tabs`` is the tab table it shows (tests give one with a tab of their own); ``backend`` (opened,
    the app closes it) ranks the corpus."""
    return _bound(tuple(tabs.values()))(corpus, overrides, cursor_blink, backend)


def run_app(corpus_spec: str, overrides: dict[str, Any], backend: Backend | None = None) -> None:
    """Run the TUI until the user quits: what ``ranklens [CORPUS] [--backend ...]`` calls."""
    make_app(corpus_spec, overrides, backend=backend).run()
