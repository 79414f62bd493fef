"""A minimal app around one pane (it plays the app's part: contexts in, messages out), and test helpers."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.tui.context import ChangeSetup, Context, UseQuery
from tests.support.app import screen_text, until  # noqa: F401  (the pane tests' helpers, from one place)


class PaneHarness(App):
    """Composes ``make_pane()``, hands it a context like the app does, records what it posts."""

    # What the app tells its widgets (tui/host.py): a blinking cursor would make snapshots differ.
    cursor_blink = False
    typing = False
    keys_over_boxes: frozenset[str] = frozenset()
    AUTO_FOCUS = None  # focus as the app gives it when a tab opens: see on_mount

    def __init__(self, make_pane: Callable[[], Widget], corpus: str = "studio-alfa",
                 overrides: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.pane = make_pane()
        self.workbench = Workbench(load_corpus(corpus))
        self.context = Context(self.workbench, setup_for(self.workbench.corpus, overrides or {}))
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield self.pane

    def on_mount(self) -> None:
        self.pane.context_changed(self.context)
        # The app focuses a tab's first widget that is not a text box, so keys reach the tab.
        self.set_focus(next(w for w in self.screen.focus_chain if not isinstance(w, Input)))

    def change(self, **changes: Any) -> None:
        """A new context, as the app makes one when settings or the query change."""
        fields = {key: value for key, value in changes.items() if key != "query"}
        self.context = Context(self.workbench, self.context.setup.replace(**fields) if fields else self.context.setup,
                               changes.get("query", self.context.query), self.context.generation + 1)
        self.pane.context_changed(self.context)

    def on_use_query(self, message: UseQuery) -> None:
        self.messages.append(message)

    def on_change_setup(self, message: ChangeSetup) -> None:
        self.messages.append(message)
        self.change(**message.changes)


async def settle(pilot: Pilot) -> None:
    """Wait out the typing debounce (a find box previews when typing pauses), then let every worker
    finish and the screen catch up."""
    from ranklens.tui.panes.search import DEBOUNCE_S

    await pilot.pause(DEBOUNCE_S + 0.05)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
