"""The app talks to the panes by messages and protocols, never reaching into their widgets: a question sent
from another tab reaches the Search tab's box and comes back as its query (ShowQuery), and a run saved
with S reaches a Compare tab already built (ListsRuns)."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

from ranklens.tui.context import ListsRuns, ShowQuery
from ranklens.tui.panes.compare import CURRENT, ComparePane
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.widgets.query_box import QueryBox
from tests.support.app import running, settle, until

SIZE = (100, 30)


async def test_a_query_shown_is_searched_at_once_and_a_run_saved_with_s_is_offered_by_the_compare_tab_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # a workspace of its own: no run saved by another test
    assert isinstance(ComparePane(), ListsRuns) and not isinstance(SearchPane(), ListsRuns)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        # ShowQuery: the query is searched as the box holds it
        app.query_one(SearchPane).post_message(ShowQuery("ferie\x1b[31m"))
        await pilot.pause()
        await pilot.pause()  # not the typing pause: the query is sent back at once
        box = app.query_one(QueryBox)
        assert box.value != "ferie\x1b[31m" and box.value.startswith("ferie")  # the escape made visible
        assert app.context.query == box.value

        # ListsRuns: a run saved with S reaches the Compare tab already built
        await pilot.press("escape", "6")
        await settle(pilot)
        side_a = app.query_one("#compare-a", Select)
        assert side_a.value == CURRENT  # no saved run yet
        await pilot.press("S")
        await until(pilot, lambda: app.screen.query("#path-input"))
        app.screen.query_one("#path-input").value = "mine"
        await pilot.press("enter")
        await settle(pilot)
        assert app.context.workspace.run_names() == ["mine"]
        assert side_a.value == "mine"  # A is the run just saved, B the current setup
