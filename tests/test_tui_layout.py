"""Layout from 80x24 down to 60x20, and the Index tab's words (issue 10)."""
from __future__ import annotations

from ranklens.tui.app import make_app
from ranklens.tui.panes.index import IndexPane
from tests.support.app import opened, running, screen_text, settle
from tests.support.panes import PaneHarness
from tests.support.panes import settle as settle_pane


async def _index_sweep(app, pilot) -> str:  # noqa: ANN001
    await opened(pilot)
    await pilot.press("escape", "4")
    await settle(pilot)
    app.query_one(IndexPane).show_timings = False
    await pilot.press("r")
    await settle(pilot)
    return screen_text(app)


async def test_the_index_tab_speaks_plainly_about_a_tiny_corpus() -> None:
    app = PaneHarness(IndexPane, corpus="battery")  # the tab's words: the tab alone
    async with app.run_test(size=(100, 30)) as pilot:
        await settle_pane(pilot)
        app.query_one(IndexPane).show_timings = False
        await pilot.press("r")
        await settle_pane(pilot)
        text = screen_text(app)
        assert "seed" not in text and "--" not in text
        assert "1 query ·" in text and "1 queries" not in text
        notes = " ".join(str(app.query_one("#ivf-notes").render()).split())
        assert "more than exact search" in notes  # a share above 100% is explained, not just shown


async def test_the_ivf_chart_is_drawn_at_60x20() -> None:
    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await _index_sweep(app, pilot)
        chart = app.query_one("#ivf-chart")
        assert chart.size.width >= 20 and chart.size.height >= 5
        assert chart.region.bottom <= 20 - 2  # on screen, above the setup line and the footer
        assert "t: time" in screen_text(app)  # the x axis' line is on screen


async def test_every_metric_column_shows_at_60x20() -> None:
    async with running(size=(60, 20)) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        await settle(pilot)
        text = screen_text(app)
        for header in ("hit@1", "hit@3", "MRR", "nDCG@10", "recall@10"):
            assert header in text, text


async def test_the_tab_bar_fits_at_60_columns_while_typing() -> None:
    from tests.support.app import screen_text as text_of

    async with running(size=(60, 20)) as pilot:
        app = pilot.app
        bar = text_of(app).splitlines()[0]
        assert "Prompt" in bar and "alt+1-6" in text_of(app).splitlines()[-1]
