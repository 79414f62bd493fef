"""The metric seam: "better" and every metric list read the metric table, and docs/cli.md's metric table is
the generated one. A toy metric registered first in "better" (P@3, ``tests/support/toy_metric.py``) is seen
by the chunk sweep's rule (nDCG@10 first, then "better"), its words on the command line and in the Chunking
tab."""
from __future__ import annotations

import dataclasses

import pytest

from ranklens.engine.measuring.metric_table import registered_metric
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.widgets.fitted_line import FittedLine
from tests.support.cli import run_cli
from tests.support.docs import CLI, METRICS_BEGIN, METRICS_END, current_table, metrics_table
from tests.support.panes import PaneHarness, settle
from tests.support.toy_metric import METRIC

RULE = "nDCG@10, then P@3, then MRR, then hit@1, then recall@10"  # the chunk sweep's: nDCG@10, then "better"


@pytest.fixture()
def p3_first():
    with registered_metric(dataclasses.replace(METRIC, better=-1)) as metric:
        yield metric


def best_by_hand(cells: list[dict]) -> int:
    """The winner by the rule written out: nDCG@10, P@3, then MRR, hit@1, recall@10; the first of equals."""
    keys = [tuple(round(c["metrics"][k], 9) for k in ("ndcg@10", "p@3", "mrr", "hit@1", "recall@10")) for c in cells]
    return keys.index(max(keys))


def test_the_metric_table_of_the_cli_docs_is_the_generated_one() -> None:
    assert current_table(CLI.read_text(encoding="utf-8"), METRICS_BEGIN, METRICS_END) == metrics_table(), (
        "docs/cli.md's metric table is out of date: run `python -m tests.support.docs`")


def test_a_registered_metric_is_a_row_of_the_generated_table(p3_first) -> None:
    assert "| `p@3` | P@3 | the share of the top 3 chunks that are relevant | 3 | a fraction | 0 |  |" in (
        metrics_table().splitlines())


def test_sweep_chunks_ranks_by_the_tables_rule(capsys, p3_first) -> None:
    data = run_cli(capsys, "sweep", "chunks", "studio-alfa", "--json").json
    best = data["cells"][best_by_hand(data["cells"])]
    assert data["best"] == {"size": best["size"], "overlap": best["overlap"], "chunker": best["chunker"]}
    assert f"★ best by {RULE}" in run_cli(capsys, "sweep", "chunks", "studio-alfa").out


async def test_the_chunking_tab_says_and_shows_the_tables_rule(p3_first) -> None:
    app = PaneHarness(ChunkingPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        sweep = app.query_one(ChunkingPane).sweep
        assert sweep is not None
        cells = [{"metrics": cell.evaluation.metrics} for cell in sweep.cells]
        assert sweep.winner == best_by_hand(cells)
        assert f"({RULE})" in app.query_one(ChunkingPane).query_one("#work-message", FittedLine).text
