"""The Chunking tab's lab: the sweep drawn as a heat map, one chunker at a time, the cell under the cursor in full,
Enter makes a cell the setup. Snapshots at 80x24 and 120x36.

The chunks over e5-small's window are counted only with the neural extra: these tests hide it (the model is
"not counted"), so the screens are the same wherever they run.
"""
from __future__ import annotations

import asyncio
import threading

import pytest

from ranklens.engine.experiments.chunking import ChunkSweep, lab_key
from ranklens.engine.measuring.metric_table import NDCG
from ranklens.tui.context import ChangeSetup
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.widgets.chunk_grid import ChunkGrid
from tests.support.panes import PaneHarness, screen_text, settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]


@pytest.fixture(autouse=True)
def no_token_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ranklens.engine.chunking.model_window.e5_small_available", lambda: False)


async def swept(pilot) -> tuple[ChunkingPane, ChunkGrid, ChunkSweep]:  # noqa: ANN001
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    pane = pilot.app.query_one(ChunkingPane)
    assert pane.sweep is not None and pane.sweep.complete
    return pane, pilot.app.query_one("#chunk-sweep", ChunkGrid), pane.sweep


@pytest.mark.parametrize("size", SIZES)
def test_the_heat_map(snap_compare, size: tuple[int, int]) -> None:
    """studio-alfa's lab: words' map with the winner starred, then the cursor one size up (its cell in full)."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await swept(pilot)
        await pilot.press("up", "right")
        await settle(pilot)

    assert snap_compare(PaneHarness(ChunkingPane), terminal_size=size, run_before=run_before)


def test_the_heat_map_of_the_next_chunker(snap_compare) -> None:
    """c on the map: recursive's sizes in characters; the setup's chunking (words 40/10) named under the cell."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await swept(pilot)
        await pilot.press("c")
        await settle(pilot)

    app = PaneHarness(ChunkingPane, overrides={"size": 40, "overlap": 10})
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_the_map_numbers_each_cell_and_names_the_winner_by_ndcg() -> None:
    app = PaneHarness(ChunkingPane)
    async with app.run_test(size=(80, 24)) as pilot:
        _, grid, sweep = await swept(pilot)
        assert sweep.chunkers == ("words", "recursive") and len(sweep.cells) == 16
        keys = [lab_key(c.evaluation) for c in sweep.cells]
        assert sweep.winner == keys.index(max(keys))
        assert grid.has_focus and grid.chunker == sweep.cells[sweep.winner].window.chunker
        shown = {grid.index_at(r, c): grid.get_cell_at((r, c)).plain
                 for r in range(grid.row_count) for c in range(len(grid.columns))}
        for index, text in shown.items():
            cell = sweep.cells[index]
            assert f"{cell.evaluation.metrics[NDCG]:.3f}" in text  # the number, not the colour alone
            assert text.startswith("★") == (index == sweep.winner)
        await pilot.press("down" if grid.cursor_row == 0 else "up")
        await settle(pilot)
        index = grid.index_at(*grid.cursor_coordinate)
        detail = str(app.query_one("#chunk-cell").render())
        cell = sweep.cells[index]
        assert cell.window.label in detail and f"nDCG@10 {cell.evaluation.metrics[NDCG]:.3f}" in detail
        assert f"{cell.chunks:,} chunks" in detail and "over e5-small's window: not counted" in detail
        assert app.query_one(ChunkingPane).preview.window == cell.window  # moving previews the chunking


async def test_enter_on_a_cell_of_the_next_chunker_makes_it_the_setup() -> None:
    app = PaneHarness(ChunkingPane)
    async with app.run_test(size=(80, 24)) as pilot:
        pane, grid, sweep = await swept(pilot)
        before = grid.chunker
        await pilot.press("c")
        await settle(pilot)
        assert grid.chunker != before and grid.cursor_coordinate == (0, 0)
        await pilot.press("down", "right", "enter")
        await settle(pilot)
        cell = sweep.cells[grid.index_at(1, 1)]
        assert cell.window.chunker == grid.chunker
        changes = [m.changes for m in app.messages if isinstance(m, ChangeSetup)]
        assert changes == [{"size": cell.window.size, "overlap": cell.window.overlap, "chunker": grid.chunker}]
        setup = app.context.setup
        assert (setup.chunker, setup.size, setup.overlap) == (grid.chunker, cell.window.size, cell.window.overlap)
        assert pane.preview.window == cell.window and pane.sweep is sweep  # the same scorer: the sweep stands
        assert "against the corpus' passages" in screen_text(app)  # what its p-values were tested against


async def test_escape_stops_the_sweep_and_the_map_keeps_the_cells_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """The third chunking never finishes until Escape: the map then shows the two measured, the winner among them."""
    from ranklens.engine.experiments import chunking

    reached = threading.Event()
    real = chunking.chunk_sweep

    def third_hangs(workbench, setup, windows, progress, checkpoint):  # noqa: ANN001, ANN202
        def report(done: int, total: int, label: str) -> None:
            progress(done, total, label)
            while label.startswith(windows[2].label):  # reports until Escape makes ``progress`` raise
                reached.set()
                threading.Event().wait(0.01)
                progress(done, total, label)

        return real(workbench, setup, windows, report, checkpoint)

    monkeypatch.setattr(chunking, "chunk_sweep", third_hangs)
    app = PaneHarness(ChunkingPane)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        assert await asyncio.to_thread(reached.wait, 10), "the sweep never reached its third chunking"
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await settle(pilot)
        pane = app.query_one(ChunkingPane)
        sweep = pane.sweep
        assert sweep is not None and not sweep.complete and len(sweep.cells) == 2
        assert [c.window.label for c in sweep.cells] == ["words 20/0", "words 20/5"]
        grid = app.query_one("#chunk-sweep", ChunkGrid)
        assert grid.row_count == 1 and "(stopped)" in screen_text(app)
