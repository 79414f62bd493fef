"""The judging queue over a pool (tui/pool_queue.py), driven by keys at 80x24: P opens it, space picks
runs, m makes the pool; 0-3 grade, s skips, u undoes; the progress line counts; a pool kept in the
workspace resumes in a new session; runs of two chunkings are refused. The pool itself is checked
against the workspace's files (engine/judging/pool.py is tested against the run files in test_pool.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import OptionList, SelectionList

from ranklens.cli.main import main
from ranklens.engine.judging.pool import load_pool, pool_names
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.workspace.store import Workspace
from ranklens.tui.pool_queue import PoolQueuePane, PoolQueueScreen
from ranklens.tui.widgets.footer import FittedFooter
from tests.support.app import notifications, running, screen_text, settle, until
from tests.support.judging_queue import open_queue, shown

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))


def save_run(name: str, *options: str) -> None:
    assert main(["run", "studio-alfa", "--save", name, *options]) == 0


def workspace(app) -> Workspace:  # noqa: ANN001
    return app.context.workspace


def pane(app) -> PoolQueuePane:  # noqa: ANN001
    return app.screen.query_one(PoolQueuePane)


async def make_pool(pilot, *downs: int) -> None:  # noqa: ANN001
    """Pick the current setup and the runs ``downs`` rows below it, and make the pool."""
    await pilot.press("space")  # nothing is picked for the user (tests/test_tui_pool_picker.py)
    row = 0
    for down in downs:
        await pilot.press(*["down"] * (down - row), "space")
        row = down
    await pilot.press("m")
    await settle(pilot)


async def test_grade_skip_undo_and_progress_as_the_rater_named_when_the_queue_opened(capsys) -> None:  # noqa: ANN001
    save_run("bm25", "--scorer", "bm25")
    capsys.readouterr()
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await open_queue(pilot, "ada")
        await make_pool(pilot, 1)
        name = pool_names(workspace(app))[0]
        pool = load_pool(workspace(app), name)
        assert pool.runs == ["current: tfidf", "bm25"]
        total = len(pool.pairs)
        assert f"0 of {total} judged" in shown(app, "progress")
        first, second, third = pool.pairs[:3]
        assert first.id in screen_text(app) and pool.questions[first.question] in shown(app, "question")
        assert "retrieved by " in shown(app, "ranks")

        await pilot.press("2")
        await settle(pilot)
        assert f"1 of {total} judged" in shown(app, "progress")
        assert workspace(app).judgments()[first.question][first.id] == 2
        chunk = next(c for c in app.context.corpus.chunks if c.id == first.id)
        assert workspace(app).spans()[first.question] == {first.id: chunk.text_span}  # the text judged, recorded
        assert app.context.judged.own_judgments == 1  # the app judged the corpus again: the tabs follow
        assert second.id in str(app.screen.query_one("#pool-chunk").border_title)

        await pilot.press("s")  # the second pair goes to the end of the queue
        await settle(pilot)
        assert third.id in str(app.screen.query_one("#pool-chunk").border_title)
        assert pane(app).left[-1] == second

        await pilot.press("0")
        await settle(pilot)
        assert workspace(app).judgments()[third.question][third.id] == 0  # judged not relevant: judged
        assert f"2 of {total} judged" in shown(app, "progress")

        await pilot.press("u")
        await until(pilot, lambda: f"1 of {total} judged" in shown(app, "progress"))
        assert third.id in str(app.screen.query_one("#pool-chunk").border_title)  # asked again, first
        assert third.id not in workspace(app).judgments().get(third.question, {})
        assert any("undone" in n for n in notifications(app))
        assert [entry.rater for entry in workspace(app).log()] == ["ada"] * 3  # 2, 0, and the undo

        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, PoolQueueScreen)


async def test_a_kept_pool_resumes_in_a_new_session(capsys) -> None:  # noqa: ANN001
    # A pool kept and its first two pairs judged, as a session of the queue leaves them, made here by the command
    # line: the queue making and judging a pool is the first test's.
    save_run("bm25", "--scorer", "bm25")
    assert main(["pool", "studio-alfa", "tfidf", "bm25", "--save", "kept"]) == 0
    ws = Workspace.for_corpus(load_corpus("studio-alfa"))
    pool = load_pool(ws, "kept")
    for pair, grade in zip(pool.pairs[:2], ("1", "3")):
        assert main(["judgments", "studio-alfa", "--judge", pair.question, pair.id, grade]) == 0
    capsys.readouterr()

    async with running(size=SIZE) as pilot:
        app = pilot.app
        await open_queue(pilot)
        saved = app.screen.query_one("#pool-saved", OptionList)
        await pilot.press("shift+tab")  # from the runs to pick, where the focus starts, up to the pools kept
        assert app.focused is saved
        assert f"2 of {len(pool.pairs)} judged" in str(saved.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await settle(pilot)
        assert f"2 of {len(pool.pairs)} judged" in shown(app, "progress")
        assert pane(app).left == pool.pairs[2:]  # the judged pairs are not asked again
        assert pool.pairs[2].id in str(app.screen.query_one("#pool-chunk").border_title)


async def test_one_run_or_runs_of_two_chunkings_are_refused_and_nothing_is_kept(capsys) -> None:  # noqa: ANN001
    save_run("small", "--scorer", "bm25", "--size", "20", "--overlap", "5")
    capsys.readouterr()
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await open_queue(pilot)
        await pilot.press("space")  # the current setup alone
        assert list(app.screen.query_one("#pool-runs", SelectionList).selected) == ["@current"]
        await pilot.press("m")
        await settle(pilot)
        assert any("pick two runs or more" in n for n in notifications(app))

        await pilot.press("down", "space", "m")  # and small
        await settle(pilot)
        assert any("'small'" in n and "chunk the corpus differently" in n for n in notifications(app))
        assert pool_names(workspace(app)) == []
        assert isinstance(app.screen, PoolQueueScreen) and not pane(app).judging


async def test_keys_in_the_queue_never_act_on_the_tabs_behind_it_whose_footer_waits_for_its_layout(
        capsys, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    # The tabs' footer, its keys recomposed while the queue covered it, measured them again after every refresh:
    # thousands of times a second for as long as the queue stayed open. Now at its screen's next layout, whole.
    save_run("bm25", "--scorer", "bm25")
    capsys.readouterr()
    fits: list[Screen | None] = []  # each fit's screen; None for a footer that has left its screen (the queue's)
    fit = FittedFooter.fit
    monkeypatch.setattr(FittedFooter, "fit",
                        lambda footer: (fits.append(footer.screen if footer.is_attached else None), fit(footer)))
    async with running(size=SIZE) as pilot:
        app = pilot.app
        behind = app.screen
        before, tab = app.session.context.setup, app.query_one("#tabs").active
        await open_queue(pilot)
        fits.clear()
        for _ in range(20):
            await pilot.pause()
        assert fits.count(behind) <= 1, fits.count(behind)
        await pilot.press("s", "2", "R", "M", "slash")  # the scorer, a tab, reset, my judgments, the query box
        await settle(pilot)
        assert isinstance(app.screen, PoolQueueScreen)
        assert app.session.context.setup == before and app.query_one("#tabs").active == tab
        assert "1-6 tabs" not in screen_text(app)  # the footer offers none of them
        await pilot.press("escape")
        await settle(pilot)
        footer = behind.query_one(FittedFooter)
        palette = next(key for key in footer.children if key.has_class("-command-palette"))
        shown = [key for key in footer.children if key.display and key is not palette]
        assert shown and all(key.region.right <= palette.region.x for key in shown)
        await pilot.press("s")  # back on the tabs, the same key changes the scorer
        await settle(pilot)
        assert app.session.context.setup.scorer != before.scorer
