"""The Metrics tab tunes a fusion on `u` (issues 11 and 12): the sweep of weight, method and normalisation
in a worker, its report the CLI's own lines, the cross-validated gain on the status line; cancellable;
a clear word when the scorer is not a fusion."""
from __future__ import annotations


import pytest
from textual.widgets import Static

from ranklens.engine.experiments.weights import fusion_sweep, grid_lines, verdict_lines
from ranklens.tui.key_map import all_rows
from ranklens.tui.panes import metrics
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.tabs import TABS
from ranklens.tui.widgets.work_status import WorkStatus
from tests.support.app import notifications, running
from tests.support.panes import PaneHarness, screen_text, settle, until
from tests.support.workers import endless

FUSION = {"scorer": "fusion", "fuse": ("bm25", "tfidf")}


def status(app: PaneHarness) -> str:
    return str(app.query_one(WorkStatus).query_one("#work-message").render())


async def test_u_shows_the_sweep_of_the_current_fusion_and_u_goes_back() -> None:
    app = PaneHarness(MetricsPane, overrides=FUSION)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.query_one(MetricsPane)
        await pilot.press("u")
        await until(pilot, lambda: pane.has_class("-tuned"))
        direct = fusion_sweep(app.workbench.retriever(app.context.setup))
        assert str(app.query_one("#metrics-sweep-text", Static).render()) == "\n".join(
            [*verdict_lines(direct), "", *grid_lines(direct)])
        assert status(app) == "held out: tuned fusion 0.837, best single 0.839, gain -0.002 (p=0.33) · u back"
        assert app.focused is app.query_one("#metrics-sweep")
        assert not app.query_one("#metrics-questions").is_on_screen
        assert "tuned fusion 0.837 · best single scorer 0.839" in screen_text(app)
        await pilot.press("u")
        await pilot.pause()
        assert not pane.has_class("-tuned") and app.focused is app.query_one("#metrics-questions")
        assert status(app).startswith("15 questions, 4 scorers; r re-runs")


async def test_a_new_setup_takes_the_old_sweep_away() -> None:
    app = PaneHarness(MetricsPane, overrides=FUSION)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        pane = app.query_one(MetricsPane)
        assert pane.has_class("-tuned")
        app.change(rrf_k=10)
        await settle(pilot)
        assert not pane.has_class("-tuned") and "tuned fusion" not in screen_text(app)


async def test_u_under_a_single_scorer_says_what_it_needs() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await pilot.pause()
        assert notifications(app) == ["the sweep tunes a fusion, and the scorer is TF-IDF: s switches scorers"]
        assert not app.query_one(MetricsPane).is_working()


async def test_escape_cancels_the_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    sweep, stopped = endless("sweeping")
    app = PaneHarness(MetricsPane, overrides=FUSION)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(metrics, "tune", sweep)
        await pilot.press("u")
        await pilot.pause(0.1)
        assert "50% sweeping … (Escape cancels)" in screen_text(app)
        await pilot.press("escape")
        assert stopped.wait(5), "the sweep's thread did not stop"
        await settle(pilot)
        assert "cancelled" in status(app) and not app.query_one(MetricsPane).has_class("-tuned")


async def test_u_is_the_metrics_tab_own_key() -> None:
    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        await app.build_all_tabs()
        rows = [row for row in all_rows(app, TABS) if row.keys == "u" and row.where in ("Everywhere", "Metrics")]
        assert [(row.where, row.action) for row in rows] == [("Metrics", "tune")]
