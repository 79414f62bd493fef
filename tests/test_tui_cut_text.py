"""Text at 80x24 (issue 20, item 11): the footer shows each key whole, the setup line and the tabs' status
lines are cut after a whole word (with " …"), the help wraps its descriptions, the setup line keeps "top k",
and Compare shows chunk ids whole."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TabbedContent

from ranklens.tui.key_map import all_rows
from ranklens.tui.panes.compare import SAME
from ranklens.tui.widgets.footer import FittedFooter
from ranklens.tui.widgets.work_status import WorkStatus
from tests.support.app import running, screen_text, search, settle

SIZE = (80, 24)
TABS = ("1", "2", "3", "4", "5", "6")


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))


def cut_at_a_word(line: str) -> bool:
    """A line cut short ends after a whole word, then " …" (never "… chun…")."""
    line = line.rstrip()
    return not line.endswith("…") or line.endswith(" …")


def footer_keys_whole(app) -> None:  # noqa: ANN001
    footer = app.query_one(FittedFooter)
    palette = next(key for key in footer.children if key.has_class("-command-palette"))
    shown = [key for key in footer.children if key.display and key is not palette]
    assert shown, "the footer shows no key"
    for key in shown:  # none runs under the palette's key or past the edge
        assert key.region.right <= palette.region.x, (key.region, palette.region)


async def test_every_tab_at_80x24_shows_whole_keys_and_lines_cut_at_words() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await search(pilot, "ferie giorni")
        await pilot.press("escape", "s")  # BM25: the longest setup line of the lesson's scorers
        await settle(pilot)
        for tab in TABS:
            await pilot.press(tab)
            await settle(pilot)
            footer_keys_whole(app)
            rows = screen_text(app).splitlines()  # as drawn: the widgets' own text is not cut
            assert cut_at_a_word(rows[-2]), rows[-2]  # the setup line
            for status in app.query(WorkStatus):
                if status.is_on_screen:
                    region = status.region
                    shown = rows[region.y][region.x:region.right]
                    assert cut_at_a_word(shown), shown
            if app.query_one(TabbedContent).active == "compare":
                # no run saved yet: the hint says how to reach A and B, whole (it was cut before the pickers' key)
                assert SAME in screen_text(app)
        # k stays in view: it came last and 80 columns cut it
        assert " · top 5 · " in screen_text(app).splitlines()[-2]


async def test_the_help_wraps_its_descriptions_at_80x24() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "question_mark")
        await settle(pilot)
        table = app.screen.query_one("#help-keys")
        words = {word for row in all_rows(app, app.tabs) for word in row.description.split()}
        seen: set[str] = set()
        while True:  # page through the whole table, reading the screen
            seen.update(screen_text(app).split())
            if table.cursor_row == table.row_count - 1:
                break
            await pilot.press("pagedown")
            await pilot.pause()
        # every word of every description shows whole somewhere: none only as a piece cut at the edge
        assert words <= seen, sorted(words - seen)


async def test_compare_shows_chunk_ids_whole_at_80x24() -> None:
    from tests.test_tui_compare import choose, save_runs

    save_runs("studio-alfa", "bm25", "tfidf")
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "6")
        await settle(pilot)
        await choose(pilot, "bm25", "tfidf")
        pane = app.query_one("ComparePane")
        question = pane._questions[0]  # q04: lavoro_agile-0 ranks 4th under both ("lavoro_a…" was shown)
        rows = screen_text(app)
        for run in (pane.comparison.a.run, pane.comparison.b.run):
            for chunk, _ in run.rankings[question.id][:4]:  # the ranks 80x24 shows
                assert f" {chunk} " in rows, chunk


async def test_the_footer_keeps_its_keys_while_the_bindings_show_the_same() -> None:
    # Every focus move and every worker started or done asks the footer to recompose; making the same keys again
    # cost the TUI tests a third of their CPU. The keys stay unless what they show changed.
    async with running(size=SIZE) as pilot:
        app = pilot.app
        footer = app.query_one(FittedFooter)
        keys = list(footer.children)
        app.screen.refresh_bindings()
        await settle(pilot)
        assert list(footer.children) == keys
        footer_keys_whole(app)
        await pilot.press("escape", "2")  # another tab: other keys
        await settle(pilot)
        assert list(footer.children) != keys
        footer_keys_whole(app)
