"""A reranker that cannot load leaves the Search tab's first-stage results on screen and says why, once
(issue 32, section 5). e5-small is a bi-encoder: named as a reranker it is refused before anything loads,
with or without the neural extra. At 80x24."""
from __future__ import annotations

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.tui.app import make_app
from ranklens.tui.widgets.query_box import QueryBox
from tests.support.app import notifications, opened, screen_text, search

QUERIES = ("ho cancellato un file per sbaglio", "come cambio la password")


def first_stage(query: str) -> list[str]:
    corpus = load_corpus("studio-alfa")
    return [hit.chunk.id for hit in Workbench(corpus).retriever(setup_for(corpus)).search(query).hits]


async def test_a_reranker_that_cannot_load_leaves_the_first_stage_and_says_why() -> None:
    app = make_app("studio-alfa", {"rerank": "e5-small"}, cursor_blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        for query in QUERIES:
            app.query_one(QueryBox).value = ""
            pane = await search(pilot, query)
            assert [row.hit.chunk.id for row in pane._rows] == first_stage(query)  # not a blank table
            assert all(row.reread is None for row in pane._rows)  # shown as first-stage scores, no rerank column
            assert "first stage only: the reranker cannot load" in screen_text(app)
        told = [n for n in notifications(app) if "e5-small" in n]
        assert len(told) == 1, notifications(app)  # once, not at every search
        assert "is a bi-encoder" in told[0] and "--scorer dense --model e5-small" in told[0]
        assert told[0].endswith("the first stage's results, not reranked")
        assert "hf download e5-small" not in told[0]  # no such repository
