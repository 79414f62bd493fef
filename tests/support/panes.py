"""A minimal app around one pane (it plays the app's part: contexts in, messages out), and test helpers."""
from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from ranklens.corpora import bundled_path
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.tui.context import ChangeSetup, Context, UseQuery
from tests.support.app import settle as settle_app
from tests.support.app import screen_text, typing_pause, until  # noqa: F401  (the pane tests' helpers, from one place)

_SHARED: dict[str, Workbench] = {}


def shared_workbench(corpus: str) -> Workbench:
    """A workbench on ``corpus``: one per bundled corpus in a test process, shared by its harnesses (a path's
    is the test's own). The panes only read it and fill its caches, which are keyed by setting; judgments go to
    the workspace, and a test that needs other questions takes ``with_questions``, a copy."""
    if bundled_path(corpus) is None:
        return Workbench(load_corpus(corpus))
    if corpus not in _SHARED:
        _SHARED[corpus] = Workbench(load_corpus(corpus))
    return _SHARED[corpus]


class PaneHarness(App):
    """Composes ``make_pane()``, hands it a context like the app does, records what it posts."""

    # What the app tells its widgets (tui/host.py): a blinking cursor would make snapshots differ.
    cursor_blink = False
    typing = False
    keys_over_boxes: frozenset[str] = frozenset()
    AUTO_FOCUS = None  # focus as the app gives it when a tab opens: see on_mount

    def __init__(self, make_pane: Callable[[], Widget], corpus: str = "studio-alfa",
                 overrides: dict[str, Any] | None = None, pauses: float = 0.0) -> None:
        super().__init__()
        self.pane = make_pane()
        self.pauses = pauses  # typing pauses this many times the users' pause under run_test (see typing_pause)
        self.workbench = shared_workbench(corpus)
        self.context = Context(self.workbench, setup_for(self.workbench.corpus, overrides or {}))
        self.messages: list[Message] = []

    @contextlib.asynccontextmanager
    async def run_test(self, *args: Any, **kwargs: Any) -> AsyncIterator[Pilot]:
        with typing_pause(self.pauses):
            async with super().run_test(*args, **kwargs) as pilot:
                yield pilot

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
    """Wait until no pane waits for typing to pause and every worker has finished, then let the screen catch
    up (the harness keeps a query to itself: nothing is sent)."""
    await settle_app(pilot, sent=False)
