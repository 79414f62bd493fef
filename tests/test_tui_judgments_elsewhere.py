"""Judgments given outside the app (another terminal, the command line) reach its tabs without a key, ``r`` reads
them again at once, and a result's grade and its ✓ always come from the same judgments: those the numbers count
(issue 32, section 5). At 80x24; the command line runs as its own process, as in another terminal."""
from __future__ import annotations

import asyncio
import subprocess
import sys

from textual.pilot import Pilot

from ranklens.tui.panes.search import SearchPane
from ranklens.tui.widgets.lists import KeyTable
from tests.support.app import name_rater, notifications, running, screen_text, search, settle, until

SIZE = (80, 24)
Q01 = "quanti giorni di anticipo per chiedere le ferie"  # studio-alfa's q01: ferie-0, its relevant chunk, ranks 1st


def first_row(pane: SearchPane) -> tuple[str, str]:
    """The first result's rank cell (✓ for a chunk counted relevant) and grade cell."""
    rank, grade, *_ = pane.query_one("#results", KeyTable).get_row_at(0)
    return rank.plain.strip(), grade.plain


async def judge_elsewhere(*argv: str) -> None:
    """``ranklens judgments studio-alfa *argv`` as another process (the test's XDG data folder: one workspace)."""
    done = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "ranklens.cli", "judgments", "studio-alfa",
                                                    *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


async def test_r_reads_the_judgments_again_and_one_given_on_the_command_line_reaches_the_tabs_without_a_key() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, Q01)
        await pilot.press("escape", "r")
        await settle(pilot)
        assert "judgments read again: 15 questions · 0 judgments of yours" in notifications(app)
        assert first_row(pane) == ("✓1", "1")  # the corpus' own judgment
        generation = app.context.generation

        await judge_elsewhere("--judge", "q01", "ferie-0", "0", "--rater", "bea")
        # no key pressed: the app sees the log change and judges the corpus again
        await until(pilot, lambda: first_row(pane) == ("1", "0"))
        assert app.context.generation > generation and app.context.judged.own_judgments == 1
        assert "results · judged 1/5" in screen_text(app)
        await pilot.press("2")  # the Metrics tab counts it too
        await settle(pilot)
        assert "1 judgment of yours" in screen_text(app)


async def grade_first_result(pilot: Pilot, grade: str) -> SearchPane:
    pane = await search(pilot, Q01)
    await pilot.press("escape", "J", grade)
    await name_rater(pilot)
    await pilot.press("J")
    await settle(pilot)
    return pane


async def test_a_grade_and_its_check_mark_agree_whether_my_judgments_count_or_not() -> None:
    # The ✓ came from the judgments counted, the grade from the workspace: with "Count my judgments" off a
    # relevant chunk the user judged 0 showed grade 0 beside "✓ relevant".
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await grade_first_result(pilot, "0")
        assert first_row(pane) == ("1", "0")  # counted: not relevant, no ✓
        await pilot.press("M")
        await settle(pilot)
        assert first_row(pane) == ("✓1", "1")  # the corpus' judgment alone, as the numbers count it
        assert app.context.judged.workspace is None
