"""Snapshots of the Metrics, Chunking and Index tabs at 80x24 and 120x36.

Each screen is taken after every worker has finished, with the cursor blink
off and the IVF timings hidden, so two runs give the same picture.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.panes import PaneHarness, settle
from tests.support.shared_builds import SHARED, shared_builds  # noqa: F401
from ranklens.tui.panes import index as index_module
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.panes.index import IndexPane
from ranklens.tui.panes.metrics import MetricsPane

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]
# One worker takes the module (make test's --dist loadgroup); the Index tab's two sizes share one sweep.
pytestmark = pytest.mark.xdist_group("pane-snapshots")
ANSWER = "entro cinque giorni dalla notifica di scarto"


@pytest.mark.parametrize("size", SIZES)
def test_metrics_tab(snap_compare, size: tuple[int, int]) -> None:
    """Four scorers on studio-alfa (TF-IDF: MRR 0.786, hit@1 10/15), the questions' ranks, the threshold."""
    assert snap_compare(PaneHarness(MetricsPane), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_chunking_tab(snap_compare, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """fatture at 20/8 with the answer whole in chunks 3 and 4, after a sweep (winner starred)."""
    # the sweep's cell counts chunks over e5-small's window only with the neural extra: hidden, one screen anywhere
    monkeypatch.setattr("ranklens.engine.chunking.model_window.e5_small_available", lambda: False)

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("j", "j", "j", "j")
        pilot.app.query_one("#chunk-find").value = ANSWER
        await pilot.press("r")
        await settle(pilot)

    app = PaneHarness(ChunkingPane, overrides={"size": 20, "overlap": 8})
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.fixture(scope="module")
def swept() -> dict[str, Any]:
    return {}


@pytest.fixture
def sweeps_once(monkeypatch: pytest.MonkeyPatch, swept: dict[str, Any]) -> None:
    """The tab's sweeps (an HNSW graph and an IVF index over the 20,000 synthetic vectors) made once for both
    sizes: the picture is what differs; the sweeps' numbers are checked in test_ivf and test_hnsw."""
    real = index_module.run_sweeps

    def run_sweeps(*args: Any) -> Any:
        context, *asked, progress = args
        key = repr(asked)
        if key not in swept:
            swept[key] = real(context, *asked, progress)
        return swept[key]

    monkeypatch.setattr(index_module, "run_sweeps", run_sweeps)


@SHARED  # the indexes test_tui_index and test_hnsw build over the synthetic set, built once in one worker
@pytest.mark.usefixtures("shared_builds")
@pytest.mark.parametrize("size", SIZES)
def test_index_tab(snap_compare, size: tuple[int, int], sweeps_once: None) -> None:
    """The synthetic set: seed 004's IVF table, HNSW's ef_search ladder (timings hidden) and one plot of both."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.query_one(IndexPane).show_timings = False
        await pilot.press("x", "r")
        await settle(pilot)

    assert snap_compare(PaneHarness(IndexPane), terminal_size=size, run_before=run_before)


def test_chunking_tab_hostile_text(snap_compare, tmp_path) -> None:
    """Markup, ANSI/OSC escapes and backslashes in a document and its title are drawn as text."""
    text = "[bold]not bold[/] \x1b[31mred\x1b[0m \x1b]0;title\x07 [TODO] a\\b " * 3
    corpus = tmp_path / "hostile.jsonl"
    corpus.write_text(json.dumps({"_id": "d1", "title": "[red]evil[/]", "text": text}) + "\n", encoding="utf-8")

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press(*["z"] * 9)  # 10-word chunks, overlap 9: every word starts a chunk
        await settle(pilot)

    app = PaneHarness(ChunkingPane, corpus=str(corpus))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
