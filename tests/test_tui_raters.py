"""Who judges in the TUI (tui/rater.py): asked once a session at the first judgment, prefilled with the name
given last (else the login name), written with every judgment, named in judge mode's title."""
from __future__ import annotations

import json

import pytest

from tests.support.app import name_rater, notifications, running, screen_text, search, settle, until

SIZE = (100, 30)
UNANSWERED = "qual è la politica sulle auto aziendali elettriche"


@pytest.fixture(autouse=True)
def _login_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGNAME", "ada")


def logged_raters(app) -> list[str]:  # noqa: ANN001
    path = app.context.workspace.log_path
    return [json.loads(line)["rater"] for line in path.read_text().splitlines()] if path.exists() else []


async def asked_at(pilot, key: str) -> str:  # noqa: ANN001
    """Search, judge mode, ``key`` (a grade or u): the dialog asking who judges opens; the name it offers."""
    await search(pilot, UNANSWERED)
    await pilot.press("escape", "J", key)
    await until(pilot, lambda: bool(pilot.app.screen.query("#path-input")))
    return pilot.app.screen.query_one("#path-input").value


async def test_the_first_judgment_asks_once_and_every_judgment_carries_the_name() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        assert await asked_at(pilot, "3") == "ada"  # the login name
        assert "Who is judging?" in screen_text(app)
        await name_rater(pilot, "bea [b]x[/b]")  # markup in a name is text
        assert logged_raters(app) == ["bea [b]x[/b]"]
        assert "judging as bea [b]x[/b] this session" in notifications(app)
        assert "JUDGE MODE (alt+digit: tabs) · as bea" in screen_text(app)  # the rest cut at 100 columns
        # kept as text: the title's markup escapes the name's brackets
        assert str(app.query_one("#results").border_title).endswith("· as bea \\[b]x\\[/b]")
        await pilot.press("1", "u")  # no dialog again: graded and taken back as bea
        await settle(pilot)
        assert not app.screen.query("#path-input")
        assert logged_raters(app) == ["bea [b]x[/b]"] * 3
        assert app.context.workspace.judgments() == {"u1": {"trasferte-2": 3}}


async def test_escape_judges_nothing_and_asks_again_next_time() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await asked_at(pilot, "2")
        await pilot.press("escape")
        await settle(pilot)
        assert "nothing judged: judging asks who judges first" in notifications(app)
        assert not app.context.workspace.log_path.exists()
        assert app.query_one("#results").cursor_row == 0  # back on the result the dropped grade was for
        await pilot.press("2")
        await name_rater(pilot)
        assert logged_raters(app) == ["ada"]
        assert app.context.workspace.judgments() == {"u1": {"trasferte-2": 2}}  # the first result's, as asked
        assert app.query_one("#results").cursor_row == 1


async def test_the_next_session_offers_the_name_given_last() -> None:
    async with running(size=SIZE) as pilot:
        await asked_at(pilot, "2")
        await name_rater(pilot, "bea")
    async with running(size=SIZE) as pilot:
        app = pilot.app
        assert await asked_at(pilot, "u") == "bea"  # an undo asks too: it takes back the rater's own
        await name_rater(pilot, "cy")
        assert "no judgment of cy's to undo" in notifications(app)
        assert app.context.workspace.judgments() == {"u1": {"trasferte-2": 2}}  # bea's stays
