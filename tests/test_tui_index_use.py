"""The Index tab's `u`: the highlighted row's index and knob become the setup's ``ann``, so Search ranks
through that index (the setup line says so); exact's row puts exact search back."""
from __future__ import annotations

import asyncio
import importlib.util

import pytest

from ranklens.tui.app import make_app
from ranklens.tui.panes.index import IndexPane
from ranklens.tui.widgets.lists import KeyTable
from tests.support.panes import PaneHarness, settle, until

pytestmark = pytest.mark.skipif(importlib.util.find_spec("usearch") is None,
                                reason="usearch is not installed: pip install 'ranklens[hnsw]'")


async def test_u_applies_the_highlighted_row_to_the_setup_and_search_ranks_through_it() -> None:
    async with asyncio.timeout(120):
        app = make_app("studio-alfa", cursor_blink=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.context is not None)
            await pilot.press("escape", "4", "r")
            pane = app.query_one(IndexPane)
            await until(pilot, lambda: pane.result is not None)
            table = app.query_one("#ivf-table", KeyTable)
            table.move_cursor(row=5)  # exact, ivf 1/2/4, then hnsw ef_search 10, 16: the sixth row
            await pilot.press("u")
            await until(pilot, lambda: app.context.setup.ann == "hnsw")
            setup = app.context.setup
            assert (setup.scorer, setup.ef_search, setup.hnsw_m) == ("lsa", 16, 16)
            assert "through hnsw M=16 ef_search=16" in setup.describe()
            retriever = app.context.workbench.retriever(setup)
            assert type(retriever.scorer).__name__ == "ApproximateScorer"
            table.move_cursor(row=0)
            await pilot.press("u")
            await until(pilot, lambda: app.context.setup.ann is None)


async def test_u_before_a_sweep_says_what_to_do() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert not app.messages or all(type(m).__name__ != "ChangeSetup" for m in app.messages)
