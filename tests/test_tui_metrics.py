"""The Metrics tab: seed 004's numbers on screen, Enter to search a question, threshold, cancellation."""
from __future__ import annotations

import asyncio
import json
import threading

import pytest
from textual.widgets import TabbedContent

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.tui.app import make_app
from ranklens.tui.charts import DotRow, dot_rows
from ranklens.tui.context import UseQuery
from ranklens.tui.panes import metrics
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.widgets.row_list import RowList
from ranklens.tui.widgets.work_status import WorkStatus
from tests.support.panes import PaneHarness, screen_text, settle, until
from tests.support.workers import endless

SEED_TFIDF_RANKS = [1, 4, 1, 3, 2, 1, 1, 1, 1, 1, 5, 1, 2, 1, 1]
WIDE = (120, 30)  # every metric column, hit rates as counts and fractions ("10/15 0.667")


def best_threshold_by_scikit_learn() -> str:
    """The threshold line worked out apart from ranklens: scikit-learn's TF-IDF top-1 cosine per question,
    then every midpoint between two top scores tried (answer when top >= t; ties go to the smallest t)."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    corpus = load_corpus("studio-alfa")
    vectorizer = TfidfVectorizer()
    matrix = vectorizer.fit_transform([c.text for c in corpus.chunks])
    top = {q.id: float((matrix @ vectorizer.transform([q.text]).T).max()) for q in corpus.questions}
    answerable = np.array([top[q.id] for q in corpus.answerable])
    unanswerable = np.array([top[q.id] for q in corpus.unanswerable])
    assert (answerable.size, unanswerable.size) == (15, 4)
    points = np.unique(np.concatenate([answerable, unanswerable]))
    candidates = (points[:-1] + points[1:]) / 2
    right = [int((answerable >= t).sum() + (unanswerable < t).sum()) for t in candidates]
    best = int(np.argmax(right))
    total = answerable.size + unanswerable.size
    return f"t={candidates[best]:.3f}: {right[best]}/{total} right ({right[best] / total:.3f})"


def row(app: PaneHarness, key: str) -> list[str]:
    return [cell.plain for cell in app.query_one("#metrics-scorers", KeyTable).get_row(key)]


def column(table: RowList, index: int) -> list[str]:
    return [table.row_cells(r)[index].plain.strip() for r in range(table.row_count)]


async def test_tfidf_row_shows_the_seed_numbers() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        tfidf = row(app, "tfidf")
        assert tfidf[0].strip() == "▸ TF-IDF"  # the app's scorer is marked
        assert tfidf[1] == "10/15 0.667"  # hit@1
        assert tfidf[2] == "13/15 0.867"  # hit@3
        assert tfidf[3] == "0.786"  # MRR
        assert [row(app, key)[0].strip() for key in ("bm25", "lsa", "fusion")] == [
            "BM25 lucene", "LSA 18 dims", "fusion bm25+lsa"]  # 100 dims clamped to 18 passages
        questions = app.query_one("#metrics-questions", RowList)
        assert questions.row_count == 15
        assert column(questions, 2) == [str(r) for r in SEED_TFIDF_RANKS]
        assert column(questions, 1)[:2] == ["ferie-0", "trasferte-1"]
        assert "0.786" in screen_text(app)


@pytest.mark.parametrize(("dims", "hit1", "hit3", "mrr"),
                         [(4, "4/15", "11/15", "0.521"), (8, "10/15", "13/15", "0.750")])
async def test_lsa_row_follows_the_setup_dims(dims: int, hit1: str, hit3: str, mrr: str) -> None:
    """Seed 004's LSA table: the Metrics tab reproduces it as the app's `d`/`D` keys change dims."""
    app = PaneHarness(MetricsPane, overrides={"dims": dims})
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        lsa = row(app, "lsa")
        assert lsa[0].strip() == f"LSA {dims} dims"
        assert (lsa[1].split()[0], lsa[2].split()[0], lsa[3]) == (hit1, hit3, mrr)


async def test_enter_on_a_question_asks_the_app_to_search_it() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.focused is app.query_one("#metrics-questions")
        await pilot.press("j", "down", "k")  # j/k move like the arrows
        await pilot.press("enter")
        await pilot.pause()
        used = [m for m in app.messages if isinstance(m, UseQuery)]
        assert [m.text for m in used] == ["tetto massimo per l'albergo in una grande città"]


async def test_threshold_chart_and_best_threshold() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        chart = app.query_one("#metrics-threshold", Chart)
        text = screen_text(app)
        assert best_threshold_by_scikit_learn() == "t=0.165: 16/19 right (0.842)"
        assert best_threshold_by_scikit_learn() in text
        assert "answerable 0.172…0.506 (median 0.320)" in text
        assert "unanswerable 0.302 0.157 0.295 0.183" in text
        assert chart.size.height == 5  # title, two rows of markers, axis, summary
        assert "○" in text and "●" in text


async def test_threshold_follows_the_current_scorer_and_a_changed_setup_reruns() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.change(scorer="bm25")
        await settle(pilot)
        assert row(app, "bm25")[0].startswith("▸ BM25")
        assert "threshold · BM25 lucene" in screen_text(app)


async def test_a_new_query_alone_does_not_rerun() -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        pane = app.query_one(MetricsPane)
        shown = pane.result
        app.change(query="come cambio la password")
        await settle(pilot)
        assert pane.result is shown
        assert not pane.is_working()


async def test_only_the_newest_context_is_shown() -> None:
    """Two changes in a row: the first run is cancelled and its result never shown."""
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(100, 30)) as pilot:
        app.change(scorer="lsa")
        app.change(scorer="bm25")
        await settle(pilot)
        pane = app.query_one(MetricsPane)
        assert pane.result is not None and pane.result.current == "bm25"


@pytest.fixture
def endless_measure(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Replace the evaluation with one that only reports progress until it is cancelled."""
    measure, stopped = endless("evaluating")
    monkeypatch.setattr(metrics, "measure", measure)
    return stopped


async def test_escape_cancels_the_evaluation_and_r_runs_it_again(endless_measure: threading.Event,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause(0.1)
        pane = app.query_one(MetricsPane)
        assert pane.is_working()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        assert endless_measure.wait(2), "the worker thread did not stop"
        await pilot.pause()
        assert "cancelled" in str(app.query_one(WorkStatus).query_one("#work-message").render())
        monkeypatch.undo()
        await pilot.press("r")
        await settle(pilot)
        assert row(app, "tfidf")[3] == "0.786"


async def test_a_corpus_without_questions_says_so(tmp_path) -> None:
    (tmp_path / "note.txt").write_text("Una nota senza domande.", encoding="utf-8")
    app = PaneHarness(MetricsPane, corpus=str(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert "has no questions with an answer" in screen_text(app)
        assert not app.query_one("#metrics-questions").is_on_screen


async def test_hostile_questions_and_ids_are_shown_literally(tmp_path) -> None:
    rows = [{"_id": "[b]d1[/b]", "title": "[red]doc[/]", "text": "[bold]alpha beta[/] \x1b[31mgamma\x1b[0m"},
            {"_id": "d2", "text": "delta epsilon"}]
    questions = [{"_id": "q[1]", "text": "[red]alpha[/] \x1b]0;owned\x07 beta", "answer": "alpha beta"},
                 {"_id": "u1", "text": "[i]zeta[/i]"}]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    app = PaneHarness(MetricsPane, corpus=str(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "[red]alpha[/] ␛]0;owned␇ beta" in text
        assert "[b]d1[/b]" in text  # the gold chunk's id
        assert "\x1b" not in text and "\x07" not in text


async def test_in_the_app_tab_2_shows_the_seed_numbers_and_enter_searches_the_question() -> None:
    async with asyncio.timeout(90):  # an app that never starts fails here instead of hanging
        app = make_app("studio-alfa", cursor_blink=False)
        async with app.run_test(size=WIDE) as pilot:
            await until(pilot, lambda: app.context is not None)
            await pilot.press("escape", "2")  # leave the query box, open Metrics
            pane = app.query_one(MetricsPane)
            await until(pilot, lambda: pane.result is not None)
            assert [cell.plain for cell in app.query_one("#metrics-scorers", KeyTable).get_row("tfidf")][1:4] == [
                "10/15 0.667", "13/15 0.867", "0.786"]
            assert app.focused is app.query_one("#metrics-questions")
            await pilot.press("j", "enter")
            await until(pilot, lambda: app.context.query == "tetto massimo per l'albergo in una grande città")
            assert app.query_one(TabbedContent).active == "search"


def test_dot_rows_keep_every_question_and_the_width() -> None:
    rows = [DotRow("answerable", [0.1, 0.5, 0.5, 0.9], "$success"), DotRow("unanswerable", [0.3], "$error", "○")]
    lines = [line.plain for line in dot_rows(rows, 40, mark=0.4, mark_label="t=")]
    assert len(lines) == 3 and all(len(line) == 40 for line in lines)
    # two questions in one cell show as ◉ (a digit would read as a stray number)
    assert lines[0].count("●") == 2 and "◉" in lines[0]
    assert lines[1].count("○") == 1
    column = lines[2].index("▲")
    assert lines[0][column] == lines[1][column] == "│"  # the threshold crosses both rows
    assert "▲ t=0.400" in lines[2]
