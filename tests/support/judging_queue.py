"""Driving the TUI's judging queue (P, tui/pool_queue.py) in Pilot tests: opened, and its parts read."""
from __future__ import annotations

from textual.widgets import Static

from ranklens.tui.pool_queue import PoolQueueScreen
from tests.support.app import name_rater


def shown(app, part: str) -> str:  # noqa: ANN001
    """The text of the queue's ``#pool-PART`` (progress, question, ranks)."""
    return str(app.screen.query_one(f"#pool-{part}", Static).content)


async def open_queue(pilot, rater: str | None = None) -> None:  # noqa: ANN001
    """P from the Search tab, the rater named when asked (``rater`` typed, None: the name offered): the queue's
    screen, its runs to pick focused."""
    await pilot.press("escape", "P")  # out of the query box first: P would type there
    await name_rater(pilot, rater)  # asked before the queue opens, once a session
    assert isinstance(pilot.app.screen, PoolQueueScreen)
