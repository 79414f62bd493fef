"""The TUI counts judgments by the one rule (issue 20, engine/judging/counted.py): after one judgment of the user's the
Metrics tab's numbers are ``ranklens eval``'s with the same workspace; "Count my judgments" off (M, or the
palette) they are ``--no-workspace``'s, the corpus' own. The Metrics and Compare tabs say which they used."""
from __future__ import annotations

import pytest
from textual.pilot import Pilot

from ranklens.tui.panes.compare import ComparePane
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.widgets.fitted_line import FittedLine
from ranklens.tui.widgets.work_status import WorkStatus
from tests.support.app import name_rater, notifications, running, search, settle
from tests.support.cli import run_cli

SIZE = (80, 24)
Q02 = "tetto massimo per l'albergo in una grande città"  # studio-alfa's q02: TF-IDF ranks its answer 4th
LESSON_NDCG = 0.839  # studio-alfa's TF-IDF nDCG@10 on the corpus' own judgments (the lesson's number)


def tfidf_ndcg(pilot: Pilot) -> float:
    result = pilot.app.query_one(MetricsPane).result
    return next(r.evaluation for r in result.scorers if r.scorer == "tfidf").metrics["ndcg@10"]


def status(pilot: Pilot, pane: type) -> str:
    """The pane's status line, whole (the screen cuts it to the width)."""
    return pilot.app.query_one(pane).query_one(WorkStatus).query_one("#work-message", FittedLine).text


def cli_ndcg(capsys: pytest.CaptureFixture[str], *options: str) -> tuple[float, dict]:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "tfidf", "--json", *options)
    assert run.status == 0, run.err
    return run.json["metrics"]["ndcg@10"], run.json["judgments"]


async def test_metrics_count_what_the_command_line_counts_and_the_toggle_leaves_mine_out(
        capsys: pytest.CaptureFixture[str]) -> None:
    shown: dict[str, tuple[float, str]] = {}  # the Metrics tab's TF-IDF nDCG@10 and status line, by toggle
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await search(pilot, Q02)
        await pilot.press("escape", "J", "3")  # judge mode: the first result, which the corpus does not judge, perfect
        await name_rater(pilot)
        judged = app.context.workspace.judgments()
        assert list(judged) == ["q02"] and list(judged["q02"].values()) == [3]
        await pilot.press("J", "2")  # judge mode off: 2 is the Metrics tab
        await settle(pilot)
        shown["on"] = tfidf_ndcg(pilot), status(pilot, MetricsPane)

        await pilot.press("M")
        await settle(pilot)
        shown["off"] = tfidf_ndcg(pilot), status(pilot, MetricsPane)
        assert "Count my judgments: off · the corpus' judgments only, as --no-workspace" in notifications(app)

        # The palette turns it on again, and says which way it is now.
        command = next(c for c in app.palette_commands() if c.name.startswith("Count my judgments"))
        assert command.help.endswith("key M · now off")
        await command.run()
        await settle(pilot)
        shown["again"] = tfidf_ndcg(pilot), status(pilot, MetricsPane)

    # The command line, after the app (which holds standard output while it runs), on the same workspace:
    # this test's XDG data folder.
    counted, judgments = cli_ndcg(capsys)
    assert judgments["own_judgments"] == 1
    assert counted != pytest.approx(LESSON_NDCG, abs=5e-4)  # the judgment moves the number
    own, judgments = cli_ndcg(capsys, "--no-workspace")
    assert judgments["source"] == "corpus" and own == pytest.approx(LESSON_NDCG, abs=5e-4)

    assert shown["on"][0] == pytest.approx(counted, abs=1e-12)
    assert shown["on"][1].startswith("15 questions · 1 judgment of yours, ")
    assert shown["off"][0] == pytest.approx(own, abs=1e-12)
    assert shown["off"][1].startswith("15 questions · the corpus' judgments only, ")
    assert shown["again"] == shown["on"]


async def test_compare_says_which_judgments_its_measures_count() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "S")  # a run of the setup, saved: A is it, B the current setup
        await pilot.press("enter")
        await settle(pilot)
        await app.action_show_tab("compare")
        await settle(pilot)
        assert status(pilot, ComparePane).startswith("15 questions · 0 judgments of yours")
        await pilot.press("M")
        await settle(pilot)
        assert status(pilot, ComparePane).startswith("15 questions · the corpus' judgments only")
