"""The index seam: a kind registered with one line is usable by ``ann --index``, ``--ann`` and the Index tab.

The toy (``tests/support/toy_index.py``) declares its settings on itself only;
the flags here (``--scan-blocks``, ``--scan-visit``) are derived from them.
Oracles are hand counts on studio-alfa's 18 chunks and exact search's own ranking.
"""
from __future__ import annotations

import json

import pytest

from ranklens.engine.ann import knobs, registry
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.tui.panes.index import IndexPane
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.widgets.lists import KeyTable
from tests.support.cli import assert_error, run_cli
from tests.support.panes import PaneHarness, settle
from tests.support.toy_index import ScanIndex


@pytest.fixture
def scan_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    # the registration ends with the test
    monkeypatch.setattr(registry, "INDEX_KINDS", dict(registry.INDEX_KINDS))
    monkeypatch.setattr(knobs, "DECLARED", dict(knobs.DECLARED))
    registry.register_index(ScanIndex)


@pytest.mark.usefixtures("scan_registered")
def test_ann_sweeps_the_toy_with_the_flags_it_declares(capsys) -> None:
    run = run_cli(capsys, "ann", "studio-alfa", "--index", "exact,scan", "--scan-blocks", "3",
                  "--scan-visit", "1,3", "--json")
    assert run.status == 0, run.err
    scan = [row for row in json.loads(run.out)["rows"] if row["index"] == "scan"]
    assert [row["knob"] for row in scan] == [{"visit": 1}, {"visit": 3}]
    # 18 chunk vectors in 3 blocks of 6: visiting one block compares 6, all three compare 18 and find what exact finds
    assert [row["compared_mean"] for row in scan] == [6, 18]
    assert scan[-1]["recall@10"] == 1.0 and scan[0]["recall@10"] < 1.0


@pytest.mark.usefixtures("scan_registered")
def test_ann_help_lists_the_toys_settings(capsys) -> None:
    with pytest.raises(SystemExit):
        run_cli(capsys, "ann", "--help")
    shown = capsys.readouterr().out
    assert "--scan-blocks" in shown and "--scan-visit" in shown and "runs of rows the vectors are cut into" in shown


@pytest.mark.usefixtures("scan_registered")
@pytest.mark.parametrize("argv, needles", [
    (("--scan-blocks", "3"), ("--scan-blocks", "--index ...,scan")),
    (("--index", "scan", "--scan-blocks", "0"), ("--scan-blocks", "at least 1")),
    (("--index", "scan", "--scan-blocks", "2", "--scan-visit", "3"), ("--scan-visit", "at most the 2 blocks")),
])
def test_the_toys_bad_settings_name_its_flags(capsys, argv: tuple[str, ...], needles: tuple[str, ...]) -> None:
    assert_error(run_cli(capsys, "ann", "studio-alfa", *argv), *needles)


@pytest.mark.usefixtures("scan_registered")
def test_search_ranks_through_the_toy_with_ann(capsys) -> None:
    exact = run_cli(capsys, "search", "studio-alfa", "orari apertura studio", "--scorer", "lsa", "-k", "18", "--json")
    scan = run_cli(capsys, "search", "studio-alfa", "orari apertura studio", "--scorer", "lsa", "-k", "18",
                   "--ann", "scan", "--json")
    assert scan.status == 0, scan.err
    answer = json.loads(scan.out)
    assert "through scan" in answer["scorer"]
    # the toy's default: 4 blocks of ceil(18/4) = 5 chunks, a query visits the first: exact's ranking of those 5
    first_block = {chunk.id for chunk in load_corpus("studio-alfa").chunks[:5]}
    expected = [r["id"] for r in json.loads(exact.out)["results"] if r["id"] in first_block]
    assert [r["id"] for r in answer["results"]] == expected and len(expected) == 5


def test_an_unregistered_kind_is_refused_by_ann_and_search(capsys) -> None:
    assert_error(run_cli(capsys, "ann", "studio-alfa", "--index", "scan"), "scan")
    assert_error(run_cli(capsys, "search", "studio-alfa", "x", "--scorer", "lsa", "--ann", "scan"), "--ann", "scan")


@pytest.mark.usefixtures("scan_registered")
async def test_the_index_tab_has_the_toys_boxes_sweeps_it_and_u_ranks_through_it() -> None:
    app = PaneHarness(IndexPane)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        blocks, visit = app.query_one("#scan-blocks", TextBox), app.query_one("#scan-visit", TextBox)
        assert (blocks.border_title, visit.border_title) == ("blocks", "visit")
        assert blocks.region.width > 0 and visit.region.width > 0  # on screen at 80 columns, not squeezed out
        blocks.value, visit.value = "3", "1,3"
        await pilot.press("r")
        await settle(pilot)
        pane = app.query_one(IndexPane)
        assert pane.result is not None
        scan = next(sweep for sweep in pane.result if sweep.kind == "scan")
        # 18 chunk vectors in 3 blocks of 6: one block compares 6 and all three find exactly what exact finds
        assert [(row.value, row.compared_mean) for row in scan.rows] == [(1, 6), (3, 18)]
        assert scan.rows[-1].recall == 1.0 and scan.rows[0].recall < 1.0
        first = [sweep.kind for sweep in pane.result for _ in sweep.rows].index("scan")
        app.query_one("#ivf-table", KeyTable).move_cursor(row=first)
        await pilot.press("u")
        await settle(pilot)
        assert any(getattr(m, "changes", {}).get("ann") == "scan" for m in app.messages)
