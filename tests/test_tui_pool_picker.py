"""The pool picker of the judging queue (P) at 80x24 (issue 32, section 5): nothing is picked for the user,
a picked run and another differ by a glyph ([x] / [ ]), not by colour alone, the focus starts where runs are
picked, and runs ranking under one setup are pooled once."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import SelectionList

from ranklens.cli.main import main
from ranklens.engine.judging.pool import load_pool, pool_names
from ranklens.tui.pool_queue import PoolQueueScreen
from tests.support.app import name_rater, notifications, running, screen_text, settle

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _saved_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["run", "studio-alfa", "--save", "lesson"]) == 0  # the corpus' own setup: the app's at start
    assert main(["run", "studio-alfa", "--save", "bm25", "--scorer", "bm25"]) == 0
    capsys.readouterr()


async def open_picker(pilot) -> SelectionList:  # noqa: ANN001
    await pilot.press("escape", "P")
    await name_rater(pilot)
    assert isinstance(pilot.app.screen, PoolQueueScreen)
    return pilot.app.screen.query_one("#pool-runs", SelectionList)


def rows(app) -> list[str]:  # noqa: ANN001
    """The picker's rows as the screen shows them, the glyph first."""
    return [line.strip("│ ") for line in screen_text(app).splitlines() if "[x]" in line or "[ ]" in line]


async def test_nothing_is_picked_for_the_user_a_glyph_says_what_is_and_runs_of_one_setup_are_pooled_once() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        runs = await open_picker(pilot)
        assert app.focused is runs and list(runs.selected) == []
        assert rows(app) == ["[ ] the current setup", "[ ] bm25", "[ ] lesson"]
        await pilot.press("down", "space")
        assert rows(app) == ["[ ] the current setup", "[x] bm25", "[ ] lesson"]
        assert list(runs.selected) == ["bm25"]

        # two runs of one setup are not a pool
        await pilot.press("space", "up", "space", "down", "down", "space", "m")  # bm25 off; current, lesson
        await settle(pilot)
        assert any("current: tfidf ranks as lesson: pooled once; pick runs of two setups or more" in n
                   for n in notifications(app))
        workspace = app.context.workspace
        assert pool_names(workspace) == []

        # with a run of another setup they are a pool, and the two pooled once
        await pilot.press("space", "up", "space", "down", "space", "m")  # current, bm25, lesson: picked in that order
        await settle(pilot)
        pool = load_pool(workspace, pool_names(workspace)[0])
        assert pool.runs == ["bm25", "lesson"]  # the current setup is lesson's: one run, named, not two
        assert "current: tfidf ranks as lesson: pooled once" in notifications(app)

        await pilot.press("escape", "P")  # again, a pool kept now: the focus still starts where runs are picked
        await settle(pilot)
        assert app.screen.query_one("#pool-saved").display
        assert app.focused is app.screen.query_one("#pool-runs", SelectionList)
