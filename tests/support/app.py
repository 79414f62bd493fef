"""Helpers for the app's tests: waiting for the app to settle, typing a query, reading the screen."""
from __future__ import annotations

import contextlib
import time
from pathlib import Path
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from textual import events
from textual.app import App
from textual.widgets import Input
from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerFailed

from ranklens.tui import typing_pause as typing_pause_module
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.typing_pause import TypingPause

@contextlib.contextmanager
def typing_pause(pauses: float) -> Iterator[None]:
    """Typing pauses ``pauses`` times as long as the users' (tui/typing_pause.py's SCALE): 0, under test, starts
    the work at each change, and ``settle`` waits for it by the app's state; the tests of the pause itself give 1.
    """
    saved, typing_pause_module.SCALE = typing_pause_module.SCALE, pauses
    try:
        yield
    finally:
        typing_pause_module.SCALE = saved


async def _workers_done(pilot: Pilot) -> None:
    """Wait for the workers running now; a worker cancelled by a newer one is not an error, nor one that failed
    (the pane shows the failure, which is what a test reads)."""
    with contextlib.suppress(WorkerCancelled, WorkerFailed):
        await pilot.app.workers.wait_for_complete()


def _query_sent(app: App) -> bool:
    """The query box's text has reached the app's context: no debounced search is still to start."""
    from ranklens.tui.widgets.query_box import QueryBox

    context = getattr(app, "context", None)
    boxes = app.query(QueryBox)
    return context is None or not boxes or context.query == boxes.first().value


def _typing_pending(app: App) -> bool:
    """A pane waits for typing to pause before it starts work."""
    from ranklens.tui.panes.base import WorkPane

    return any(isinstance(held, TypingPause) and held.pending
               for pane in app.query(WorkPane) for held in vars(pane).values())


def _settled(app: App, sent: bool) -> bool:
    return ((not sent or _query_sent(app)) and not _typing_pending(app)
            and not any(worker.is_running for worker in app.workers))


async def settle(pilot: Pilot, timeout: float = 60, sent: bool = True) -> None:
    """Wait until no pane waits for typing to pause, the query box's text has been sent to the app (``sent``;
    a pane harness has no app to send it to) and no worker runs (workers start workers: loop).

    Waiting on the app's state, not on the pause's length, keeps a slow machine from reading
    the screen before the work it expects has started, and a fast one from waiting for nothing.
    """
    deadline = time.monotonic() + timeout
    while True:
        await _workers_done(pilot)
        await pilot.pause()
        if _settled(pilot.app, sent):
            break
        assert time.monotonic() < deadline, (f"workers still running, typing pending or query unsent after "
                                             f"{timeout}s; screen:\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)
    await pilot.pause()


async def until(pilot: Pilot, condition: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        # the screen and the workers at the deadline: what a failure under load needs to be understood
        assert time.monotonic() < deadline, (f"condition still false after {timeout}s; workers: "
                                             f"{[(w.name, w.state.name) for w in pilot.app.workers]}; screen:\n"
                                             f"{screen_text(pilot.app)}")
        await _workers_done(pilot)
        await pilot.pause(0.05)


async def name_rater(pilot: Pilot, name: str | None = None) -> None:
    """Answer the dialog the session's first judgment opens: ``name`` typed over the name it offers (None:
    the name offered), then Enter."""
    await until(pilot, lambda: bool(pilot.app.screen.query("#path-input")))
    if name is not None:
        pilot.app.screen.query_one("#path-input", Input).value = name
    await pilot.press("enter")
    await settle(pilot)


async def opened(pilot: Pilot) -> None:
    """Wait until the app has opened its corpus and every pane has done its first work."""
    await until(pilot, lambda: getattr(pilot.app, "context", None) is not None)
    await settle(pilot)


@contextlib.asynccontextmanager
async def running(corpus: str = "studio-alfa", size: tuple[int, int] = (100, 30), pauses: float = 0.0,
                  **options: Any) -> AsyncIterator[Pilot]:
    """The app (``make_app(corpus, **options)``, cursor blink off) running at ``size``, its corpus opened,
    typing pausing ``pauses`` times the users' pause (see typing_pause)."""
    from ranklens.tui.app import make_app

    app = make_app(corpus, cursor_blink=False, **options)
    with typing_pause(pauses):
        async with app.run_test(size=size) as pilot:
            await opened(pilot)
            yield pilot


async def search(pilot: Pilot, text: str) -> SearchPane:
    """Paste ``text`` into the query box (going there with / first) and wait for the results.

    A paste is one event, as when a user pastes a question; typing key by key
    is what test_typing_fast_shows_the_last_query exercises.
    """
    from ranklens.tui.widgets.query_box import QueryBox

    if not isinstance(pilot.app.focused, QueryBox):
        await pilot.press("slash")
    pilot.app.focused.post_message(events.Paste(text))
    await settle(pilot)
    return pilot.app.query_one(SearchPane)


def screen_text(app: App) -> str:
    """What the screen shows, as plain text, one line per row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def answer(pilot: Pilot, text: str) -> None:
    """Answer the prompt on screen with ``text`` (pasted over what it holds) and press Enter."""
    from ranklens.tui.widgets.path_prompt import PathPrompt

    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    box = pilot.app.screen.query_one("#path-input")
    box.value = ""
    box.post_message(events.Paste(text))
    await pilot.pause()
    await pilot.press("enter")


async def open_path(pilot: Pilot, path: Path) -> None:
    """Answer the app's "open a corpus from a path" prompt with ``path`` (pasted) and wait."""
    await answer(pilot, str(path))
    await settle(pilot)


async def open_collection(pilot: Pilot, label: str, target: str, collection: str | None = None) -> None:
    """Open a collection from the palette's "Open a LABEL collection…": ``target``, then ``collection`` (None:
    the name offered, the corpus'), and wait."""
    next(c for c in pilot.app.palette_commands() if c.name == f"Open a {label} collection…").run()
    await answer(pilot, target)
    if collection is None:
        await pilot.pause()
        await pilot.press("enter")
    else:
        await answer(pilot, collection)
    await settle(pilot)


def notifications(app: App) -> list[str]:
    """The messages of the app's toasts, oldest first."""
    return [n.message for n in app._notifications]


def setup_line(app: App) -> str:
    """What the setup line at the bottom says."""
    from ranklens.tui.widgets.setup_line import SetupLine

    return app.query_one(SetupLine).text  # whole: a narrow screen shows it cut at a word
