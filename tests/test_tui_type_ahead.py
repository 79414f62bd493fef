"""Keys typed while a box opens belong to that box or wait; they never run as shortcuts (issue 32, section 5).

A burst of keys (type-ahead, a paste without bracketed paste, keys queued while a worker held the GIL) is
posted to the app at once, before it handles any: what a fast typist's terminal delivers. At 80x24.
"""
from __future__ import annotations

import pytest
from textual import events
from textual.app import App

from ranklens.tui.panes.search import SearchPane
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.widgets.path_prompt import PathPrompt
from ranklens.tui.widgets.query_box import QueryBox
from tests.support.app import running, search, settle, until

SIZE = (80, 24)
UNANSWERED = "qual è la politica sulle auto aziendali elettriche"  # studio-alfa: no question asks it


@pytest.fixture(autouse=True)
def _login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGNAME", "ada")  # the name the rater dialog offers


def key(character: str) -> events.Key:
    names = {"/": "slash", " ": "space", "\r": "enter", "\b": "backspace"}
    return events.Key(names.get(character, character), character)


def burst(app: App, text: str) -> None:
    """``text`` typed faster than the app handles keys: every key queued before the first is handled."""
    for character in text:
        app.post_message(key(character))


async def test_a_fast_slash_and_query_types_the_query_and_runs_no_shortcut() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        for tab in ("1", "2"):  # from the Search tab's results, and from another tab
            await pilot.press("escape", tab)
            await settle(pilot)
            setup, questions = app.context.setup, len(app.context.corpus.questions)
            box = app.query_one(QueryBox)
            box.value = ""
            burst(app, "/transonic flutter")  # s: scorer, t: stemming, n: a saved question, ...
            await settle(pilot)
            assert isinstance(app.focused, QueryBox) and box.value == "transonic flutter"
            assert app.context.setup == setup and len(app.context.corpus.questions) == questions
            assert app.context.query == "transonic flutter"


async def test_keys_typed_as_a_dialog_opens_go_into_its_box() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape")
        setup = app.context.setup
        burst(app, "Smine")  # S asks for the run's name: "mine" typed before the dialog is there
        await until(pilot, lambda: isinstance(app.screen, PathPrompt))
        await settle(pilot)
        assert app.screen.query_one("#path-input").value == "tfidfmine"  # after the name offered, as typed
        assert app.context.setup == setup
        await pilot.press("escape")


def grades(pane: SearchPane) -> list[str]:
    table = pane.query_one("#results", KeyTable)
    return [table.get_row_at(row)[1].plain for row in range(table.row_count)]


async def test_grades_typed_fast_wait_for_the_raters_name_and_all_count() -> None:
    # The first grade asks who judges: the grades typed after it opened one dialog each, or went into the name
    # ("root201"). Now they wait for the name and are applied in order, as the same rater's.
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, UNANSWERED)
        await pilot.press("escape", "J")
        burst(app, "201")
        await until(pilot, lambda: isinstance(app.screen, PathPrompt))
        await settle(pilot)
        name = app.screen.query_one("#path-input")
        assert name.value == "ada"  # the login name offered, no digit in it
        burst(app, "\b\b\bbea\r")  # typed once the dialog shows: the name's
        await until(pilot, lambda: not isinstance(app.screen, PathPrompt))
        await settle(pilot)
        assert len(app.screen_stack) == 1  # one dialog, not one per grade
        workspace = app.context.workspace
        top = [row.hit.chunk.id for row in pane._rows[:3]]
        assert workspace.judgments() == {"u1": dict(zip(top, (2, 0, 1)))}  # the corpus' question asking it
        assert {entry.rater for entry in workspace.log()} == {"bea"}
        assert grades(pane)[:3] == ["2", "0", "1"]


async def test_grades_typed_before_the_raters_dialog_shows_are_not_its_name() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, UNANSWERED)
        await pilot.press("escape", "J")
        early = [key("0"), key("1")]  # typed right after the first grade, before the dialog could be seen ...
        await pilot.press("2")
        await until(pilot, lambda: isinstance(app.screen, PathPrompt))
        await settle(pilot)
        for event in early:  # ... and handled only once it is up (a worker held the GIL meanwhile)
            app.post_message(event)
        await settle(pilot)
        assert app.screen.query_one("#path-input").value == "ada"
        await pilot.press("enter")
        await until(pilot, lambda: grades(pane)[:3] == ["2", "0", "1"])
        assert [entry.rater for entry in app.context.workspace.log()] == ["ada"] * 3
