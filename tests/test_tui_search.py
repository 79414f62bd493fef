"""The Search tab: type a question, see the gold passage; stale results never shown; the explanation."""
from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Retriever, Workbench, setup_for
from ranklens.tui.app import make_app
from ranklens.tui.panes import search as search_module
from ranklens.tui.panes.search import DEBOUNCE_S, HINT, SearchPane
from ranklens.tui.widgets.lists import KeyTable, KeyTree
from ranklens.tui.widgets.query_box import QueryBox
from tests.support.app import opened, running, screen_text, search, settle, until

SIZE = (100, 30)


def shown_ids(pane: SearchPane) -> list[str]:
    """The chunk ids in the results table, read from the table itself."""
    table = pane.query_one("#results", KeyTable)
    return [pane._rows[int(key.value) - 1].hit.chunk.id for key in table.rows]


def detail_text(app) -> str:  # noqa: ANN001
    body = app.query_one("#detail-body", Static)
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(body.content)
    return console.export_text()


async def test_gold_passage_ranked_first() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app.focused, QueryBox)  # the query box has focus at start
        pane = await search(pilot, "come cambio la password")
        assert pane.shown_query == "come cambio la password"
        assert shown_ids(pane)[0] == "accessi-0"
        table = pane.query_one("#results", KeyTable)
        assert table.row_count == app.context.setup.k


async def test_enter_searches_at_once() -> None:
    # With a debounce of an hour, only Enter can start the search the test waits for.
    async with running(size=SIZE, pauses=3600 / DEBOUNCE_S) as pilot:
        app = pilot.app
        pane = app.query_one(SearchPane)
        app.query_one(QueryBox).value = "ho cancellato un file per sbaglio"
        await pilot.press("enter")
        await until(pilot, lambda: pane.shown_query == "ho cancellato un file per sbaglio", timeout=30)
        assert shown_ids(pane)[0] == "copie-1"


async def poll(pilot: Pilot, condition: Callable[[], bool], timeout: float = 30) -> None:
    """Let the app run until ``condition()`` holds, without waiting for workers (one is held on purpose)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"condition still false after {timeout}s"
        await pilot.pause(0.02)


async def test_stale_results_are_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """An older search that finishes last must not replace a newer one's results."""
    started, release = threading.Event(), threading.Event()
    original = Retriever.search

    def search_held_for_the_first_word(self, text, k=None):  # noqa: ANN001, ANN202
        if text == "come" and not started.is_set():
            started.set()
            release.wait(timeout=60)  # held until the newer search has shown its results
        return original(self, text, k)

    monkeypatch.setattr(Retriever, "search", search_held_for_the_first_word)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = app.query_one(SearchPane)
        box = app.query_one(QueryBox)
        try:
            await pilot.press(*"come")
            await poll(pilot, started.is_set)  # the search for "come" is running, and held
            await pilot.press(*" cambio la password")
            await poll(pilot, lambda: pane.shown_query == "come cambio la password")
        finally:
            release.set()  # the older search now finishes last
        await settle(pilot)
        assert pane.shown_query == box.value == "come cambio la password"
        assert shown_ids(pane)[0] == "accessi-0"


async def test_typing_fast_shows_the_last_query() -> None:
    async with running(size=SIZE, pauses=1) as pilot:  # the app's debounce: some prefixes fall to it
        app = pilot.app
        pane = app.query_one(SearchPane)
        for text in ("ferie", " backup", " fattura", " password"):
            await pilot.press(*text)
            await pilot.pause(0.2)  # often past the debounce: prefixes start searches of their own
        await settle(pilot)
        assert pane.shown_query == app.query_one(QueryBox).value == app.context.query == "ferie backup fattura password"
        corpus = load_corpus("studio-alfa")
        expected = Workbench(corpus).retriever(setup_for(corpus)).search("ferie backup fattura password")
        assert shown_ids(pane) == [h.chunk.id for h in expected.hits]


async def test_empty_query_and_unknown_terms_show_a_note() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        assert HINT in detail_text(app)
        pane = await search(pilot, "zzzz qqqq")
        assert shown_ids(pane) == []
        assert "none of the query's terms occurs in the corpus" in detail_text(app)
        await pilot.press("ctrl+a", "ctrl+k", *"!!")  # punctuation only: no terms after analysis
        await settle(pilot)
        assert "no query terms after analysis" in detail_text(app)


async def test_detail_explains_the_selected_result() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, "come cambio la password")
        first = pane._rows[0].hit
        text = detail_text(app)
        assert "accessi-0" in text and "total" in text
        assert f"{first.score:.3f}" in text.split("total", 1)[1]  # the total equals the score
        assert "password" in text and "idf" in text
        await pilot.press("escape", "j")  # leave the box, move down the results with j
        await settle(pilot)
        assert pane.query_one("#results", KeyTable).cursor_row == 1
        assert pane._rows[1].hit.chunk.id in detail_text(app)
        await pilot.press("k")
        await settle(pilot)
        assert "accessi-0" in detail_text(app)


async def test_documents_tree_shows_a_chunk_in_its_document() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        tree = app.query_one("#documents", KeyTree)
        assert [str(node.label).split(" (")[0] for node in tree.root.children][:3] == ["ferie", "trasferte", "accessi"]
        tree.focus()
        # ferie (the cursor starts there), trasferte, accessi; open it; its first chunk
        await pilot.press("j", "j", "space", "j")
        await settle(pilot)
        text = detail_text(app)
        assert "chunk 0 (accessi-0) highlighted" in text
        assert "quattordici caratteri" in text and "smarrimento del telefono" in text  # the whole document


async def test_result_matches_the_engine() -> None:
    """What the tab shows is what the engine ranks, scores included."""
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus))
    expected = retriever.search("orari in cui devo rispondere ai messaggi")
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, "orari in cui devo rispondere ai messaggi")
        assert shown_ids(pane) == [h.chunk.id for h in expected.hits]
        assert f"{expected.hits[0].score:.3f}" in screen_text(app)


async def test_a_long_document_is_drawn_as_a_window_around_its_chunk(tmp_path) -> None:  # noqa: ANN001
    from ranklens.tui.widgets.document_tree import DOCUMENT_WINDOW

    folder = tmp_path / "long"
    folder.mkdir()
    words = [f"w{i:06d}" for i in range(30_000)]  # 7 characters and a space each: 240,000 characters
    (folder / "book.txt").write_text(" ".join(words), encoding="utf-8")
    app = make_app(str(folder), {"size": 5000, "overlap": 0}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        tree = app.query_one("#documents", KeyTree)
        tree.focus()
        await pilot.press("space", "j", "j", "j", "j")  # open the book; its fourth chunk (words 15000-19999)
        await settle(pilot)
        body = detail_text(app)
        assert "chunk 3 (book.txt#3) highlighted" in body
        start, end = 15_000 * 8, 20_000 * 8 - 1  # the chunk's characters: word 15000 to the end of word 19999
        lo = (start + end) // 2 - DOCUMENT_WINDOW // 2  # the window is centred on the chunk
        assert f"characters {lo:,}–{lo + DOCUMENT_WINDOW:,} of 239,999" in body
        assert "w017499" in body and "w000000" not in body and "w029999" not in body


async def test_a_failed_search_is_not_hidden_under_an_older_rows_explanation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows of an older setup stay on screen until the new search answers; moving over them then explains
    nothing, so a failure's note is what the detail pane ends with."""
    from ranklens.engine.errors import RanklensError

    started, release = threading.Event(), threading.Event()
    original = search_module.find

    def find_failing_under_k3(context, progress):  # noqa: ANN001, ANN202
        if context.setup.k != 3:
            return original(context, progress)
        started.set()
        release.wait(timeout=60)
        raise RanklensError("reranker 'gone': no such folder")

    monkeypatch.setattr(search_module, "find", find_failing_under_k3)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, "come cambio la password")
        await pilot.press("escape")
        try:
            assert app.apply_settings({"k": 3})
            await poll(pilot, started.is_set)  # the new search runs; the old rows are still shown
            await pilot.press("j")  # over an old row: no explanation starts
            await pilot.pause()
            assert "explain" not in pane._runs or pane._runs["explain"].generation < app.context.generation
        finally:
            release.set()
        await settle(pilot)
        assert pane.query_one("#results", KeyTable).row_count == 0
        assert "reranker 'gone': no such folder" in detail_text(app)
        assert "score" not in detail_text(app)


async def test_results_of_the_previous_scorer_are_marked_until_the_new_ones_arrive(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # On a large corpus the new scorer's search takes seconds: the setup line named BM25 meanwhile while
    # the table still showed TF-IDF's results and scores, unmarked.
    from tests.support.app import setup_line
    from tests.support.workers import held

    query = "ferie giorni"
    corpus = load_corpus("studio-alfa")
    scores = {scorer: [round(h.score, 3) for h in Workbench(corpus).retriever(
        setup_for(corpus, {"scorer": scorer})).search(query).hits] for scorer in ("tfidf", "bm25")}
    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        pane = await search(pilot, query)
        table = pane.query_one("#results", KeyTable)

        def shown_scores() -> list[float]:
            return [float(table.get_row_at(r)[2].plain) for r in range(table.row_count)]

        assert shown_scores() == scores["tfidf"]
        job, release = held(search_module.find)
        monkeypatch.setattr(search_module, "find", job)
        await pilot.press("escape", "s")
        deadline = time.monotonic() + 30  # not until(): it waits for the workers, and the search is held
        while "BM25" not in setup_line(app) or not any(w.name == "search" and w.is_running for w in pane.workers):
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
        await pilot.pause()
        assert pane.has_class("-recomputing")
        assert shown_scores() == scores["tfidf"]  # still the old results, and said to be
        assert "results of TF-IDF · recomputing for BM25 lucene…" in screen_text(app)
        release.set()
        await settle(pilot)
        assert not pane.has_class("-recomputing")
        assert shown_scores() == scores["bm25"]
        assert "recomputing" not in screen_text(app)
