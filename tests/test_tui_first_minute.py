"""What a new user sees in the first minute: every key answers, the status line tells the truth, a failed
open says so and how to go on, stale tables never show (issue 10)."""
from __future__ import annotations

import threading
import time

import pytest

from ranklens.engine.errors import Cancelled
from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.workspace.store import Workspace
from ranklens.tui import corpus_opening
from ranklens.tui.app import make_app
from ranklens.tui.panes import metrics as metrics_module
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.widgets.result_detail import ResultDetail
from ranklens.tui.widgets.setup_line import SetupLine
from tests.support.app import notifications, opened, running, screen_text, search, settle, setup_line
from tests.support.panes import PaneHarness
from tests.support.panes import settle as settle_pane

SIZE = (80, 24)


async def test_a_key_for_a_setting_of_another_scorer_says_so() -> None:
    app = make_app("studio-alfa", cursor_blink=False)  # TF-IDF, the lesson's default
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape", "right_square_bracket")
        await settle(pilot)
        assert app.context.setup.k1 == 1.3
        said = notifications(app)[-1]
        assert "BM25 k1 1.3" in said and "applies to BM25" in said and "TF-IDF" in said
        await pilot.press("v")
        await settle(pilot)
        assert "applies to BM25" in notifications(app)[-1]


async def test_a_key_for_the_active_scorer_needs_no_hint() -> None:
    app = make_app("studio-alfa", {"scorer": "bm25"}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape", "right_square_bracket")
        await settle(pilot)
        assert "k1=1.3" in setup_line(app)
        assert not any("applies to" in n for n in notifications(app))


async def test_the_setup_line_shows_the_lsa_dimensions_that_run() -> None:
    app = make_app("studio-alfa", {"scorer": "lsa"}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert "LSA 18 dims" in setup_line(app)
        clamped = len([n for n in notifications(app) if "clamped" in n])
        await pilot.press("escape", "d")  # steps down from what runs (18), not from the 100 asked for
        await settle(pilot)
        assert "LSA 16 dims" in setup_line(app)
        await pilot.press("D", "D")  # 24, then 32: both above what the corpus allows
        await settle(pilot)
        assert "LSA 18 dims" in setup_line(app)
        # the corpus allows 18: one toast says so, however many times the key asks for more
        assert len([n for n in notifications(app) if "clamped" in n and "18" in n]) == clamped + 1


async def test_an_error_from_a_failed_open_leaves_the_status_line_with_the_next_search() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        app.switch_corpus("no-such-corpus-here")
        await settle(pilot)
        assert "not found" in setup_line(app)
        await search(pilot, "password")
        assert "not found" not in setup_line(app)
        assert setup_line(app).startswith("studio-alfa")


async def test_a_failed_first_open_says_what_failed_and_how_to_go_on() -> None:
    app = make_app("frobnicate", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Opening the corpus" not in text
        assert "frobnicate" in text and "ctrl+o" in text


@pytest.mark.parametrize(("tab", "key"), [("2", "r"), ("3", "r"), ("4", "r")])
async def test_after_a_failed_first_open_every_tab_says_why_and_its_keys_answer(tab: str, key: str) -> None:
    app = make_app("frobnicate", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape", tab)
        await settle(pilot)
        text = screen_text(app)
        assert "corpus not found: frobnicate" in text  # the tab's own status line, not its key hints
        await pilot.press(key)
        await settle(pilot)
        assert "no corpus is open yet: ctrl+o opens one" in notifications(app)


async def test_a_cancelled_first_open_says_so(monkeypatch) -> None:  # noqa: ANN001
    def cancelled(spec, progress):  # noqa: ANN001
        raise Cancelled()

    monkeypatch.setattr("ranklens.engine.corpus.loaders.load_corpus", cancelled)
    long_spec = "corpora/" + "a-long-folder-name/" * 6 + "zipf-1000000.beir300"  # wider than the screen
    app = make_app(long_spec, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail = str(app.query_one(ResultDetail).query_one("#detail-body").render())
        assert "Opening the corpus" not in detail and "cancelled" in detail
        assert "cancelled: opening" in screen_text(app)  # on the setup line, before the long name it cuts


async def test_one_toast_for_a_key_pressed_twice_at_a_limit() -> None:
    app = make_app("studio-alfa", {"k": 1}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape", "minus", "minus")
        await pilot.pause()
        said = notifications(app)
        assert app.context.setup.k == 1
        at_limit = [n for n in said if "k must be at least 1" in n]
        assert len(at_limit) == 1 and len(said) == len(set(said)), said


@pytest.mark.parametrize(("count", "chunks", "questions"), [(1, "1 chunk ·", "1 question ·"),
                                                         (2, "2 chunks ·", "2 questions ·")])
def test_one_chunk_and_one_question_are_singular(tmp_path, count: int, chunks: str, questions: str) -> None:  # noqa: ANN001
    # The words the setup line and the Metrics tab's status make (SetupLine.show, Judged.describe), without an app.
    corpus = tmp_path / "tiny"
    corpus.mkdir()
    (corpus / "corpus.jsonl").write_text("".join(f'{{"_id": "a{i}", "text": "a chunk about cats"}}\n'
                                                 for i in range(count)))
    (corpus / "queries.jsonl").write_text("".join(f'{{"_id": "q{i}", "text": "cats"}}\n' for i in range(count)))
    (corpus / "qrels").mkdir()
    (corpus / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" +
                                               "".join(f"q{i}\ta{i}\t1\n" for i in range(count)))
    loaded = load_corpus(corpus)
    line = SetupLine()
    line.show(loaded.name, len(loaded.chunks), "BM25")
    assert chunks in line.text
    assert judged_corpus(loaded, Workspace.for_corpus(loaded)).describe().startswith(questions)


async def test_metrics_never_shows_the_previous_corpus_table(monkeypatch) -> None:  # noqa: ANN001
    async with running(size=(100, 30)) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        await settle(pilot)
        table = app.query_one("#metrics-questions")
        assert table.row_count == 15
        gate = threading.Event()
        real = metrics_module.measure

        def held(context, progress):  # noqa: ANN001
            while not gate.wait(0.02):
                progress(0, 1, "held by the test")
            return real(context, progress)

        monkeypatch.setattr(metrics_module, "measure", held)
        app.switch_corpus("battery")
        deadline = time.monotonic() + 30
        while app.context.corpus.name != "battery":
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
        await pilot.pause()
        assert table.row_count == 0  # the studio-alfa table is gone while battery is measured
        gate.set()
        await settle(pilot)
        assert table.row_count == len(app.context.corpus.answerable)


async def test_the_tui_reads_the_index_cache_as_the_cli_does(monkeypatch) -> None:  # noqa: ANN001
    from ranklens.engine.storage.cache import IndexCache

    monkeypatch.setattr(corpus_opening, "CACHE_MIN_CHUNKS", 1)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        workbench = app.context.workbench
        assert isinstance(workbench.cache, IndexCache)
    loaded = []
    real = IndexCache.load

    def load(self, key, analyzer):  # noqa: ANN001
        found = real(self, key, analyzer)
        loaded.append(found is not None)
        return found

    monkeypatch.setattr(IndexCache, "load", load)
    again = make_app("studio-alfa", cursor_blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await opened(pilot)
    assert loaded and loaded[0]  # the second run read what the first one saved



async def test_stop_words_and_stemming_keys_use_the_corpus_language(tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "a.txt").write_text("La garantía de la batería dura dos años y cubre los defectos de fábrica.")
    (tmp_path / "b.txt").write_text("Para pedir una reparación hay que llamar al servicio técnico de la tienda.")
    app = make_app(str(tmp_path), cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        assert "es (detected)" in setup_line(app)
        await pilot.press("escape", "w", "t")
        await settle(pilot)
        assert (app.context.setup.stopwords, app.context.setup.stem) == ("es", "es")


async def test_the_setup_line_names_a_declared_language_and_one_k() -> None:
    app = make_app("studio-alfa", {"scorer": "fusion"}, cursor_blink=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await opened(pilot)
        line = setup_line(app)
        assert " it " in line + " " and "detected" not in line
        assert "top 5" in line and "k=5" not in line  # fusion's RRF k=60 is the only k


async def test_the_query_box_example_is_one_of_the_corpus_questions() -> None:
    from ranklens.tui.widgets.query_box import QueryBox

    app = PaneHarness(SearchPane, corpus="battery")  # the box's words: the Search tab alone
    async with app.run_test(size=SIZE) as pilot:
        await settle_pane(pilot)
        first = app.context.corpus.questions[0].text
        assert first in app.query_one(QueryBox).placeholder
        assert "password" not in app.query_one(QueryBox).placeholder


async def test_at_80x24_the_explanation_and_long_snippets_show() -> None:
    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        await search(pilot, "ho cancellato un file per sbaglio")
        text = screen_text(app)
        assert "contrib" in text and "total" in text  # the explanation is above the fold
        rows = [line for line in text.splitlines() if line.startswith("│") and "0." in line and "…" in line]
        snippet = max(len(part) for line in rows for part in line.split("  "))
        assert snippet >= 36, rows
