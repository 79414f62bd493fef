"""The Index tab: seed 004's IVF table and HNSW on the synthetic set, the corpus' own vectors, bad input."""
from __future__ import annotations

import asyncio
import importlib.util
import sys

import pytest

from tests.support.panes import PaneHarness, settle, until
from tests.support.shared_builds import SHARED, shared_builds  # noqa: F401
from ranklens.tui.app import make_app
from ranklens.tui.charts import Curve, curve_plot
from ranklens.tui.panes.index import IndexPane
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.lists import KeyTable

needs_usearch = pytest.mark.skipif(importlib.util.find_spec("usearch") is None,
                                   reason="usearch is not installed: pip install 'ranklens[hnsw]'")
HNSW_LADDER = ["ef_search 10", "ef_search 16", "ef_search 32", "ef_search 64", "ef_search 128", "ef_search 256",
               "ef_search 512"]


def table_rows(app: PaneHarness) -> list[list[str]]:
    table = app.query_one("#ivf-table", KeyTable)
    return [[cell.plain for cell in table.get_row_at(r)] for r in range(table.row_count)]


def settings(app: PaneHarness) -> list[str]:
    """Each row's setting, after the index its group belongs to."""
    kind, named = "", []
    for row in table_rows(app):
        kind = row[0].split()[-1] if row[0] else kind
        named.append(f"{kind} {row[1]}".strip())
    return named


def status(app: PaneHarness) -> str:
    return str(app.query_one("#work-message").render())


def chart(app: PaneHarness) -> str:
    return str(app.query_one("#ivf-chart", Chart).render())


@needs_usearch
@SHARED
@pytest.mark.usefixtures("shared_builds")
async def test_the_synthetic_set_gives_the_seed_numbers_and_hnsw_beside_them() -> None:
    """IVF at n_probe 1 and all 100 cells: seed 004's first and last rows; HNSW at ef_search 16 and 64,
    whose graph (built on one thread) is the same every run. k-means and the graph take seconds."""
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        app.query_one("#ivf-probes").value = "1, 100"
        app.query_one("#hnsw-ef").value = "64 16"
        await pilot.press("r")
        await settle(pilot)
        rows = table_rows(app)
        assert [r[:4] for r in rows] == [
            ["◆ exact", "", "20000", "1.000"],
            ["● ivf", "n_probe 1", "360", "0.505"], ["", "n_probe 100", "20100", "1.000"],
            ["▲ hnsw", "ef_search 16", "503", "0.661"], ["", "ef_search 64", "1305", "0.900"]]
        assert rows[1][6] == "5.3" and rows[3][6] == "8.1" and rows[2][6] == ""  # memory, once per index
        assert app.query_one("#ivf-cells").value == "100"  # the defaults for the synthetic set, shown
        assert (app.query_one("#hnsw-m").value, app.query_one("#hnsw-efc").value) == ("16", "128")
        assert "20,000 vectors × 64 dims, 200 queries · ivf cells 100 · hnsw M 16, ef_construction 128" in status(app)
        drawn = chart(app)
        assert "recall@10 vs ms/query (log)" in drawn and all(mark in drawn for mark in "◆●▲")
        assert "◆ exact ● ivf ▲ hnsw" in drawn


@needs_usearch
async def test_the_corpus_lsa_vectors_with_default_settings() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.focused is app.query_one("#ivf-table")  # keys go to the tab, not a text box
        assert "LSA" in str(app.query_one("#ivf-source").render())
        await pilot.press("r")
        await settle(pilot)
        # 18 passages: sqrt(18) rounds to 4 cells, probed 1, 2 and 4 at a time; HNSW's whole ladder
        assert settings(app) == ["exact", "ivf n_probe 1", "ivf n_probe 2", "ivf n_probe 4",
                                 *(f"hnsw {s}" for s in HNSW_LADDER)]
        assert table_rows(app)[-1][3] == "1.000"  # ef_search 512 on 18 vectors: every one of them
        assert app.query_one("#ivf-cells").value == "4"
        assert "18 vectors × 18 dims, 19 queries · ivf cells 4 · hnsw M 16" in status(app)
        assert "poorly trained" in str(app.query_one("#ivf-notes").render())


@needs_usearch
async def test_the_boxes_set_every_index_and_enter_runs() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.query_one("#ivf-cells").value = "3"
        app.query_one("#ivf-probes").value = "3,1"
        app.query_one("#hnsw-m").value = "4"
        app.query_one("#hnsw-efc").value = "20"
        box = app.query_one("#hnsw-ef")
        box.value = "32,8"
        box.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert settings(app) == ["exact", "ivf n_probe 1", "ivf n_probe 3", "hnsw ef_search 8", "hnsw ef_search 32"]
        assert app.query_one("#ivf-cells").value == "3" and app.query_one("#hnsw-ef").value == "8,32"
        assert "ivf cells 3 · hnsw M 4, ef_construction 20" in status(app)


BAD_BOXES = [
    ({"#ivf-cells": "50"}, "larger than the number of vectors (18)"),
    ({"#ivf-cells": "4", "#ivf-probes": "9"}, "9 is not between 1 and the number of cells (4)"),
    ({"#hnsw-m": "1"}, "M: '1' is not a whole number of at least 2"),
    ({"#hnsw-efc": "0"}, "ef_constr: '0' is not a whole number of at least 1"),
]


async def test_bad_input_is_a_message_not_a_crash() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for boxes, message in BAD_BOXES:
            for box in ("#ivf-cells", "#ivf-probes", "#hnsw-m", "#hnsw-efc", "#hnsw-ef"):
                app.query_one(box).value = boxes.get(box, "")
            await pilot.press("r")
            await settle(pilot)
            assert message in status(app)
            assert table_rows(app) == []


async def test_timings_hidden_plot_recall_against_vectors_visited() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.query_one(IndexPane).show_timings = False
        await pilot.press("r")
        await settle(pilot)
        rows = table_rows(app)
        assert {r[4] for r in rows} == {"–"} and rows[0][5] == "–"
        assert "recall@10 vs vectors visited (log)" in chart(app)


async def test_t_switches_the_plot_between_time_and_vectors_visited() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert "vs ms/query" in chart(app) and " ms" in chart(app)
        await pilot.press("t")
        await pilot.pause()
        assert "vs vectors visited" in chart(app)
        await pilot.press("t")
        await pilot.pause()
        assert "vs ms/query" in chart(app)


async def test_t_before_any_sweep_answers_and_the_sweep_then_plots_that_axis() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [
            "the plot will show recall against vectors visited: r runs the sweeps"]
        await pilot.press("r")
        await settle(pilot)
        assert "recall@10 vs vectors visited (log)" in chart(app)


async def test_without_usearch_the_tab_says_how_to_get_hnsw(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "usearch", None)
    monkeypatch.setitem(sys.modules, "usearch.index", None)
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert settings(app) == ["exact", "ivf n_probe 1", "ivf n_probe 2", "ivf n_probe 4"]
        assert "HNSW needs usearch: pip install 'ranklens[hnsw]'" in str(app.query_one("#ivf-notes").render())


async def test_switching_source_clears_the_table_and_the_boxes() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert table_rows(app)
        await pilot.press("x")
        await pilot.pause()
        assert table_rows(app) == []
        assert all(app.query_one(box).value == "" for box in ("#ivf-cells", "#ivf-probes", "#hnsw-m", "#hnsw-efc",
                                                               "#hnsw-ef"))
        assert "synthetic" in str(app.query_one("#ivf-source").render())


async def test_in_the_app_tab_4_runs_the_sweeps_on_the_corpus() -> None:
    async with asyncio.timeout(90):  # an app that never starts fails here instead of hanging
        app = make_app("studio-alfa", cursor_blink=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.context is not None)
            await pilot.press("escape", "4")
            assert app.focused is app.query_one("#ivf-table")
            await pilot.press("r")
            pane = app.query_one(IndexPane)
            await until(pilot, lambda: pane.result is not None)
            assert settings(app)[:4] == ["exact", "ivf n_probe 1", "ivf n_probe 2", "ivf n_probe 4"]


@needs_usearch
async def test_at_80x24_the_plot_is_under_the_table_with_every_index_on_it() -> None:
    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.context is not None)
        await pilot.press("escape", "4")
        pane = app.query_one(IndexPane)
        pane.show_timings = False
        await pilot.press("r")
        await until(pilot, lambda: pane.result is not None)
        await settle(pilot)
        table, plot = app.query_one("#ivf-table"), app.query_one("#ivf-chart")
        assert plot.region.y >= table.region.bottom and plot.region.bottom <= 24 - 2
        assert plot.size.width >= 70 and plot.size.height >= 7
        drawn = chart(app)
        assert all(mark in drawn for mark in "◆●▲") and "t: time" in drawn


def test_curve_plot_places_points_on_a_log_grid() -> None:
    curves = [Curve("a", [(1.0, 0.5), (100.0, 1.0)], "bold", "●"), Curve("b", [(10.0, 1.0)], "bold", "◆")]
    lines = [line.plain for line in curve_plot(curves, 30, 6, (0.5, 1.0), "cost", "{:g}".format)]
    assert len(lines) == 7 and all(len(line) == 30 for line in lines)
    assert lines[0].startswith("1.00┤") and lines[0].endswith("●")  # (100, 1.0): top right
    assert lines[5].startswith("0.50┤●")  # (1, 0.5): bottom left
    # 10 is halfway between 1 and 100 on a log scale: column 12 of the 25-column plot
    assert lines[0][5:].index("◆") == 12
    assert "·" in "".join(lines[1:5])  # the segment of curve a
    over = curve_plot([Curve("c", [(100.0, 1.0)], "bold", "◆"), curves[0]], 30, 6, (0.5, 1.0))
    assert over[0].plain.endswith("◆")  # a single point on top of a curve's point, whatever the order
    assert lines[6].split() == ["1", "cost", "100"]


async def test_escape_cancels_a_sweep_and_r_runs_it_again() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("x", "r")  # the synthetic set: k-means on 20,000 vectors takes seconds
        await pilot.pause()
        assert app.query_one(IndexPane).is_working()
        await pilot.press("escape")
        await settle(pilot)
        assert "cancelled · r runs it again" in status(app) and table_rows(app) == []


def test_a_curve_is_joined_in_knob_order_even_where_time_steps_back() -> None:
    # knob order: (1, 0.5) -> (100, 0.75) -> (10, 1.0): the second segment runs right to left
    lines = [line.plain[5:] for line in curve_plot([Curve("a", [(1.0, 0.5), (100.0, 0.75), (10.0, 1.0)], "bold")],
                                                   30, 5, (0.5, 1.0))]
    assert lines[0].index("●") == 12 and lines[2].endswith("●") and lines[4].startswith("●")
    assert "·" in lines[1][13:24]  # between (10, 1.0) and (100, 0.75), drawn though 10 comes after 100
