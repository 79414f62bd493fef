"""The Metrics tab with a cross-encoder set through the palette: the numbers it shows and exports are those of
``ranklens eval --rerank --json`` for the same setup.

A tiny CrossEncoder is built here (tests/support/tiny_models.py); the command line's reranked evaluation is
itself checked against ``CrossEncoder.predict`` in tests/test_neural_rerank.py.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("sentence_transformers", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.tui.metric_text import metric_columns, metric_text  # noqa: E402
from ranklens.tui.panes.metrics import MetricsPane  # noqa: E402
from ranklens.tui.widgets.lists import KeyTable  # noqa: E402
from ranklens.tui.widgets.row_list import RowList  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.support.app import open_path, running, settle  # noqa: E402
from tests.support.cli import run_cli  # noqa: E402

TOP = 3


@pytest.fixture(scope="module")
def reranker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.cross_encoder(tmp_path_factory.mktemp("models") / "reranker")


async def export(pilot, path: Path) -> None:  # noqa: ANN001
    await pilot.press("e")
    await pilot.pause()
    await pilot.press("ctrl+a", "ctrl+k")  # the dialog offers the last file
    await open_path(pilot, path)


async def test_the_tab_shows_and_exports_what_eval_rerank_reports(reranker: Path, capsys, tmp_path: Path) -> None:
    cli = run_cli(capsys, "eval", "studio-alfa", "--scorer", "bm25", "--rerank", str(reranker),
                  "--rerank-top", str(TOP), "--json").json
    assert cli["rerank"]["metrics"] != cli["metrics"], "the tiny model reorders the top"
    async with running(size=(120, 36), overrides={"scorer": "bm25", "rerank_top": TOP}) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        await settle(pilot)
        pane = app.query_one(MetricsPane)
        assert pane.reranked is None
        await pilot.press("ctrl+p", *"Set reranker")  # as a user sets one
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await open_path(pilot, reranker)  # the dialog is empty: no reranker yet
        assert pane.reranked is not None
        shown = pane.reranked.reranking.evaluation
        assert shown.metrics == pytest.approx(cli["rerank"]["metrics"], abs=1e-12)
        table = app.query_one("#metrics-scorers", KeyTable)
        cells = [cell.plain for cell in table.get_row("rerank")]
        assert cells[0].strip() == f"↳ rerank reranker top {TOP}"  # under its first stage, BM25's row
        assert cells[1:] == [metric_text(shown, key) for _, key in metric_columns()]
        first = next(r.evaluation for r in pane.result.scorers if r.scorer == "bm25")
        assert first.metrics == pytest.approx(cli["metrics"], abs=1e-12)  # the first stage: eval's too
        questions = app.query_one("#metrics-questions", RowList)
        ranks = [questions.row_cells(n)[-1].plain.strip() for n in range(questions.row_count)]
        assert ranks == [str(q["full_rank"]) if q["full_rank"] is not None else "miss"
                         for q in cli["rerank"]["per_question"]]

        await export(pilot, tmp_path / "metrics.json")
        exported = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))["rerank"]
        assert (exported["scorer"], exported["reranker"], exported["rerank_top"]) == ("bm25", str(reranker), TOP)
        assert exported["metrics"] == pytest.approx(cli["rerank"]["metrics"], abs=1e-12)
        assert exported["per_question"] == cli["rerank"]["per_question"]
        await export(pilot, tmp_path / "metrics.csv")
        rows = (tmp_path / "metrics.csv").read_text(encoding="utf-8").splitlines()
        assert rows[-1].startswith(f"rerank,BM25 lucene → rerank reranker top {TOP},")
