"""Reranking in the Search tab (issue 11): the results are the reranker's order with its scores, and the
detail pane says each result's first-stage rank and score beside the reranker's.

A tiny CrossEncoder is built here; the expected order comes from ``rerank_search``, itself checked against
``CrossEncoder.predict`` in tests/test_neural_rerank.py.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

from io import StringIO  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("sentence_transformers", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from rich.console import Console  # noqa: E402

from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.neural.rerank import rerank_search  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from ranklens.tui.app import make_app  # noqa: E402
from ranklens.tui.widgets.lists import KeyTable  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.support.app import opened, search, settle  # noqa: E402

QUERY = "ho cancellato un file per sbaglio"
TOP = 3


@pytest.fixture(scope="module")
def reranker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.cross_encoder(tmp_path_factory.mktemp("models") / "reranker")


def detail_text(app) -> str:  # noqa: ANN001
    console = Console(width=300, record=True, file=StringIO())
    console.print(app.query_one("#detail-body").content)
    return " ".join(console.export_text().split())


async def test_search_shows_the_reranked_order_and_both_scores(reranker: Path) -> None:
    overrides = {"scorer": "bm25", "rerank": str(reranker), "rerank_top": TOP, "k": 5}
    workbench = Workbench(load_corpus("studio-alfa"))
    expected = rerank_search(workbench.retriever(setup_for(workbench.corpus, overrides)), QUERY).hits
    assert [h.first_rank for h in expected[:TOP]] != list(range(1, TOP + 1)), "the tiny model reorders the top"

    app = make_app("studio-alfa", overrides, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        pane = await search(pilot, QUERY)
        table = pane.query_one("#results", KeyTable)
        assert [row.hit.chunk.id for row in pane._rows] == [h.chunk.id for h in expected]
        shown_scores = [table.get_row_at(r)[2].plain for r in range(table.row_count)]
        assert shown_scores == [f"{h.rerank_score if h.rerank_score is not None else h.first_score:.3f}"
                                for h in expected]
        await settle(pilot)
        top = expected[0]
        assert (f"#1 rerank score {top.rerank_score:.4f} (first stage #{top.first_rank}, "
                f"score {top.first_score:.4f}; explained below)") in detail_text(app)
        await pilot.press("escape", "j", "j", "j")  # the fourth result: below the reranked top 3
        await settle(pilot)
        fourth = expected[3]
        assert fourth.rerank_score is None
        assert (f"#4 first stage #{fourth.first_rank}, score {fourth.first_score:.4f} (below the reranked top)"
                in detail_text(app))
