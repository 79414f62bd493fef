"""The Index tab: seed 004's IVF table on the synthetic set, the corpus' own vectors, bad input."""
from __future__ import annotations

import asyncio

from tests.support.panes import PaneHarness, settle, until
from ranklens.tui.app import make_app
from ranklens.tui.charts import line_plot
from ranklens.tui.panes.index import IndexPane
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.lists import KeyTable


def table_rows(app: PaneHarness) -> list[list[str]]:
    table = app.query_one("#ivf-table", KeyTable)
    return [[cell.plain for cell in table.get_row_at(r)] for r in range(table.row_count)]


def status(app: PaneHarness) -> str:
    return str(app.query_one("#work-message").render())


async def test_the_synthetic_set_gives_the_seed_numbers() -> None:
    """n_probe 1 and all 100 cells: the first and last rows of seed 004's table (k-means takes seconds)."""
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        app.query_one("#ivf-probes").value = "1, 100"
        await pilot.press("r")
        await settle(pilot)
        rows = table_rows(app)
        assert [r[:4] for r in rows] == [["1", "360", "1.8%", "0.505"], ["100", "20100", "100.5%", "1.000"]]
        assert app.query_one("#ivf-cells").value == "100"  # the default for the synthetic set, shown
        assert "20,000 vectors × 64 dims, 200 queries, 100 cells" in status(app)
        assert "●" in str(app.query_one("#ivf-chart", Chart).render())


async def test_the_corpus_lsa_vectors_with_default_cells_and_probes() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.focused is app.query_one("#ivf-table")  # keys go to the tab, not a text box
        await pilot.press("r")
        await settle(pilot)
        rows = table_rows(app)
        # 18 passages: sqrt(18) rounds to 4 cells, probed 1, 2 and 4 at a time
        assert [r[0] for r in rows] == ["1", "2", "4"]
        assert app.query_one("#ivf-cells").value == "4"
        assert "18 vectors × 18 dims, 19 queries, 4 cells" in status(app)
        assert "poorly trained" in str(app.query_one("#ivf-notes").render())


async def test_the_boxes_set_cells_and_probes_and_enter_runs() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.query_one("#ivf-cells").value = "3"
        box = app.query_one("#ivf-probes")
        box.value = "3,1"
        box.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert [r[0] for r in table_rows(app)] == ["1", "3"]  # sorted, as the sweep reads best
        assert app.query_one("#ivf-cells").value == "3"


async def test_bad_input_is_a_message_not_a_crash() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.query_one("#ivf-cells").value = "50"
        await pilot.press("r")
        await settle(pilot)
        assert "larger than the number of vectors (18)" in status(app)
        app.query_one("#ivf-cells").value = "4"
        app.query_one("#ivf-probes").value = "9"
        await pilot.press("r")
        await settle(pilot)
        assert "9 is not between 1 and the number of cells (4)" in status(app)
        assert table_rows(app) == []


async def test_timings_can_be_hidden_for_snapshots() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.query_one(IndexPane).show_timings = False
        await pilot.press("r")
        await settle(pilot)
        assert {r[4] for r in table_rows(app)} == {"–"}


async def test_switching_source_clears_the_table_and_the_boxes() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert table_rows(app)
        await pilot.press("x")
        await pilot.pause()
        assert table_rows(app) == []
        assert app.query_one("#ivf-cells").value == "" and app.query_one("#ivf-probes").value == ""
        assert "synthetic" in str(app.query_one("#ivf-source").render())


async def test_in_the_app_tab_4_runs_the_sweep_on_the_corpus() -> None:
    async with asyncio.timeout(90):  # an app that never starts fails here instead of hanging
        app = make_app("studio-alfa", cursor_blink=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.context is not None)
            await pilot.press("escape", "4")
            assert app.focused is app.query_one("#ivf-table")
            await pilot.press("r")
            pane = app.query_one(IndexPane)
            await until(pilot, lambda: pane.result is not None)
            assert [r[0] for r in table_rows(app)] == ["1", "2", "4"]


def test_line_plot_places_points_on_a_fixed_grid() -> None:
    lines = [line.plain for line in line_plot([(0.0, 0.5), (1.0, 1.0)], 30, 6, 1.0, (0.5, 1.0), "share")]
    assert len(lines) == 7 and all(len(line) == 30 for line in lines)
    assert lines[0].startswith("1.00┤") and lines[0].endswith("●")  # (1.0, 1.0): top right
    assert lines[5].startswith("0.50┤●")  # (0.0, 0.5): bottom left
    assert "·" in "".join(lines[1:5])  # the segment between them
    assert lines[6].split() == ["0%", "share", "100%"]
