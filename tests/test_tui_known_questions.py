"""Searching a known question marks its relevant chunks (✓); the words analysis dropped are named (issue 10,
expected and missing)."""
from __future__ import annotations

from textual.widgets import TabbedContent

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.tui.app import make_app
from ranklens.tui.panes.search import SearchPane
from tests.support.app import opened, running, search, settle

SIZE = (100, 30)


def rank_cells(app) -> list[str]:  # noqa: ANN001
    table = app.query_one("#results")
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_a_question_sent_from_metrics_marks_its_gold_chunk() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        await settle(pilot)
        await pilot.press("enter")  # the first question: searched on the Search tab
        await settle(pilot)
        assert app.query_one(TabbedContent).active == "search"
        corpus = load_corpus("studio-alfa")
        retriever = Workbench(corpus).retriever(setup_for(corpus))
        question = corpus.answerable[0]
        gold = retriever.relevant(question)
        hits = retriever.search(question.text).hits
        expected = [f"✓{h.rank}" if h.index in gold else str(h.rank) for h in hits]
        assert rank_cells(app) == expected and any(cell.startswith("✓") for cell in expected)
        assert "relevant in the top" in str(app.query_one("#results").border_subtitle)


async def test_a_new_question_has_no_marks_and_dropped_words_are_named() -> None:
    app = make_app("studio-alfa", {"stopwords": "it"}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await search(pilot, "la password xyzzy")
        assert not any(cell.startswith("✓") for cell in rank_cells(app))
        subtitle = str(app.query_one("#results").border_subtitle)
        assert "not in the corpus: xyzzy" in subtitle and "stop words: la" in subtitle
        assert app.query_one(SearchPane).shown_query == "la password xyzzy"
