"""Judging in the Search tab (issue 12): keys write the workspace's qrels, undo restores them, the Metrics tab
measures the judgment at once; S saves a run of every question with its setup sidecar."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.measuring.trec import read_run
from ranklens.engine.workspace.store import Workspace
from ranklens.tui.app import make_app
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.widgets.lists import KeyTable
from tests.support.app import name_rater, notifications, opened, running, screen_text, search, settle, until

SIZE = (100, 30)
# studio-alfa's first question without an answer; TF-IDF ranks trasferte-2 then accessi-1 for it
UNANSWERED = "qual è la politica sulle auto aziendali elettriche"
SEED_MRR = 707 / 900  # TF-IDF's MRR over the 15 answerable questions: the seed's 0.786, as ranks 1/r sum to 11.783


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("LOGNAME", "ada")  # the login name the rater dialog offers


def detail_text(app) -> str:  # noqa: ANN001
    from io import StringIO

    from rich.console import Console

    console = Console(width=200, record=True, file=StringIO())
    console.print(app.query_one("#detail-body").content)
    return " ".join(console.export_text().split())


def grade_cells(pane: SearchPane) -> list[str]:
    table = pane.query_one("#results", KeyTable)
    return [table.get_row_at(r)[1].plain for r in range(table.row_count)]


def tfidf(app) -> tuple[int, float]:  # noqa: ANN001
    """The Metrics tab's TF-IDF row: questions measured and MRR."""
    result = app.query_one(MetricsPane).result
    evaluation = next(r.evaluation for r in result.scorers if r.scorer == "tfidf")
    return result.question_count, evaluation.metrics["mrr"]


async def test_grading_writes_qrels_undo_restores_them_and_metrics_follow() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")  # out of the query box, which has the focus at start
        await settle(pilot)
        assert tfidf(app) == (15, pytest.approx(SEED_MRR))
        await pilot.press("1")
        pane = await search(pilot, UNANSWERED)
        await pilot.press("escape", "J")  # leave the box; judge mode puts the focus on the results
        assert pane.judging and app.focused is pane.query_one("#results")
        assert grade_cells(pane) == ["·"] * 5  # nothing judged yet
        await pilot.press("j", "3")  # the second result: perfect
        await name_rater(pilot)  # the session's first judgment asks who judges: Enter takes the login name
        workspace = app.context.workspace
        assert workspace.qrels_path.read_text() == "u1 0 accessi-1 3\n"  # the corpus' own id for the question
        assert grade_cells(pane) == ["·", "3", "·", "·", "·"]
        assert "judged 1/5" in str(pane.query_one("#results").border_title)
        await pilot.press("0")  # the cursor moved on: the third result is not relevant
        await settle(pilot)
        assert workspace.judgments() == {"u1": {"accessi-1": 3, "trasferte-1": 0}}
        chunks = {c.id: c for c in app.context.corpus.chunks}  # each judgment records the text its chunk covers
        assert workspace.spans() == {"u1": {i: chunks[i].text_span for i in ("accessi-1", "trasferte-1")}}
        assert grade_cells(pane) == ["·", "3", "0", "·", "·"]

        await pilot.press("o")  # judged only
        assert pane.query_one("#results", KeyTable).row_count == 2
        await pilot.press("o", "J", "2")  # all again, judge mode off: 2 is the Metrics tab again
        await settle(pilot)
        # u1 is answerable now, its relevant chunk at rank 2: MRR (15 x SEED_MRR + 1/2) / 16 = 0.7677
        assert tfidf(app) == (16, pytest.approx((15 * SEED_MRR + 0.5) / 16))

        await pilot.press("1", "J", "u", "u")  # both judgments taken back, latest first
        await settle(pilot)
        assert workspace.qrels_path.read_text() == ""
        assert grade_cells(pane) == ["·"] * 5
        assert [e.op for e in workspace.log()] == ["judge", "judge", "undo", "undo"]
        await pilot.press("J", "2")
        await settle(pilot)
        assert tfidf(app) == (15, pytest.approx(SEED_MRR))


async def test_a_new_query_is_saved_as_a_question_when_graded() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, "rimborso taxi aeroporto")
        await pilot.press("escape", "J", "2")
        await name_rater(pilot)
        workspace = app.context.workspace
        assert [(q.id, q.text) for q in workspace.questions()] == [("w1", "rimborso taxi aeroporto")]
        top = pane._rows[0].hit.chunk.id
        assert workspace.judgments() == {"w1": {top: 2}}
        assert "saved the query as question w1" in notifications(app)
        assert grade_cells(pane)[0] == "2"
        # the question counts in the app's corpus, without a new workbench cache
        assert app.context.workbench.corpus.questions[-1].relevant == {top: 2}


async def save_run_as(pilot, name: str) -> None:  # noqa: ANN001
    """S, then ``name`` in the dialog and Enter, as a user saves a run."""
    app = pilot.app
    await opened(pilot)
    await pilot.press("escape", "S")
    await until(pilot, lambda: app.screen.query("#path-input"))
    app.screen.query_one("#path-input").value = name
    await pilot.press("enter")
    await settle(pilot)


async def test_save_run_refuses_a_bad_name_and_writes_the_run_and_its_sidecar() -> None:
    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await save_run_as(pilot, "../x")
        assert any("run name '../x'" in n for n in notifications(app))
        assert not Workspace.for_corpus(app.context.corpus).runs_dir.exists()

        await save_run_as(pilot, "mine")
        workspace = app.context.workspace
        assert workspace.run_names() == ["mine"]
        meta = json.loads((workspace.runs_dir / "mine.json").read_text())
        assert (meta["setup"]["scorer"], meta["k"], meta["questions"], meta["judged"]) == ("tfidf", 100, 19, 15)
        assert meta["metrics"]["MRR@10"] == pytest.approx(SEED_MRR)
        # the run holds what search ranks, 100 deep, for every question
        corpus = load_corpus("studio-alfa")
        retriever = Workbench(corpus).retriever(setup_for(corpus, {"k": 100}))
        run = read_run(workspace.runs_dir / "mine.run")
        assert len(run.rankings) == 19
        for question in corpus.questions:
            assert [doc for doc, _ in run.rankings[question.id]] == [h.chunk.id for h in
                                                                     retriever.search(question.text).hits]
        assert any(n.startswith("run mine saved: 19 questions") for n in notifications(app))


async def test_saving_over_a_half_saved_or_saved_run_asks_and_replaces_it_only_on_yes() -> None:
    from ranklens.tui.widgets.confirm import Confirm

    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        await save_run_as(pilot, "mine")  # TF-IDF, the corpus' own scorer
        workspace = app.context.workspace
        (workspace.runs_dir / "mine.json").unlink()  # as a save killed between the run and its sidecar leaves it
        assert workspace.run_names() == []
        await save_run_as(pilot, "mine")
        assert isinstance(app.screen, Confirm)
        assert "Run mine is half-saved (a save of it was interrupted). Replace it?" in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        assert workspace.run_names() == ["mine"]

        sidecar = workspace.runs_dir / "mine.json"
        before = (workspace.runs_dir / "mine.run").read_bytes(), sidecar.read_bytes()
        await pilot.press("s")  # BM25 now
        await settle(pilot)
        for answer_key in ("n", "escape"):
            await save_run_as(pilot, "mine")
            assert isinstance(app.screen, Confirm)
            assert "A run named mine is saved already. Replace it?" in screen_text(app)
            await pilot.press(answer_key)
            await settle(pilot)
            assert ((workspace.runs_dir / "mine.run").read_bytes(), sidecar.read_bytes()) == before
            assert "run mine kept as it was" in notifications(app)
        await save_run_as(pilot, "mine")
        await pilot.press("y")
        await settle(pilot)
        assert json.loads(sidecar.read_text())["setup"]["scorer"] == "bm25"
        assert any(n.startswith("run mine replaced: 19 questions") for n in notifications(app))


async def test_why_explains_the_relevant_chunk_the_results_miss() -> None:
    # q11's relevant chunk (copie-2) ranks 5th under TF-IDF: with k = 3 the results miss it
    app = make_app("studio-alfa", {"k": 3}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        pane = await search(pilot, "con quale frequenza si verifica che i backup funzionino")
        assert "copie-2" not in [row.hit.chunk.id for row in pane._rows]
        await pilot.press("escape", "y")
        await settle(pilot)
        text = detail_text(app)
        assert text.startswith("why? copie-2 ranks 5 of 18 with score")
        assert "(k = 3: not shown); the top result is" in text
        assert "this chunk, #5: copie-2" in text and "the top result, #1:" in text


async def test_hostile_queries_are_saved_and_shown_literally() -> None:
    from ranklens.engine.text.visible import clean
    from tests.support.hostile import HOSTILE_TEXTS

    async with running(size=SIZE) as pilot:
        app = pilot.app
        for text in HOSTILE_TEXTS[:3]:
            pane = await search(pilot, text + " password")
            await pilot.press("escape", "J", "1")
            if text == HOSTILE_TEXTS[0]:
                await name_rater(pilot)
            await pilot.press("J")
            await settle(pilot)
            assert grade_cells(pane)[0] == "1"
            await pilot.press("y")
            await settle(pilot)
            assert "\x1b" not in detail_text(app) and "\x1b" not in screen_text(app)
        saved = [q.text for q in app.context.workspace.questions()]
        # stored as the query box holds them: markup as typed, control characters made visible
        assert saved == [clean(text, keep_newlines=False) + " password" for text in HOSTILE_TEXTS[:3]]
        assert saved[2].startswith("ansi ␛[31mred␛[0m")
        assert "31mred␛[0m title ␛]0;title␇" in screen_text(app)  # the query box, literal
        # the Metrics tab measures them: three more answerable questions
        await pilot.press("2")
        await settle(pilot)
        assert tfidf(app)[0] == 18


async def test_in_judge_mode_digits_grade_and_alt_digits_switch_tabs_as_the_screen_says() -> None:
    # 2 graded the row where a user meant to reach Metrics, and the 80-column footer, cut at "y why",
    # never said that alt+digit switched tabs meanwhile.
    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        pane = await search(pilot, UNANSWERED)
        await pilot.press("escape")
        tabs_line, footer = screen_text(app).splitlines()[0], screen_text(app).splitlines()[-1]
        assert "1 Search" in tabs_line and " 1-6 tabs " in footer
        await pilot.press("3")  # outside judge mode a digit switches tabs and judges nothing
        await settle(pilot)
        assert app.query_one("#tabs").active == "chunking"
        assert not app.context.workspace.log_path.exists()
        await pilot.press("1")
        await settle(pilot)
        assert app.focused is pane.query_one("#results")
        await pilot.press("J")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert "1 Search" not in lines[0] and "Metrics" in lines[0]  # the digits no longer name the tabs
        assert "JUDGE MODE (alt+digit: tabs)" in screen_text(app)
        footer = lines[-1].replace("▏", " ") + " "
        for key in ("J judge", "0-3 grade", "u undo", "o judged only", "alt+1-6 tabs", "? help", "^p Palette"):
            assert f" {key} " in footer, footer  # each whole, none cut by the edge

        await pilot.press("2")  # grades, as the footer says
        await name_rater(pilot)
        assert app.query_one("#tabs").active == "search" and grade_cells(pane)[0] == "2"

        # Judged only: the state came after the key hints, which 80 columns cut: the hidden rows went unexplained.
        await pilot.press("o")
        await settle(pilot)
        assert pane.query_one("#results", KeyTable).row_count == 1
        assert "results · judged 1/5 · JUDGE MODE · judged only" in screen_text(app)  # the rater, last, is cut
        await pilot.press("o")
        await settle(pilot)
        assert "results · judged 1/5 · JUDGE MODE (alt+digit: tabs)" in screen_text(app)

        await pilot.press("alt+2")  # switches tabs, as the footer says
        await settle(pilot)
        assert app.query_one("#tabs").active == "metrics"
        assert "1 Search" in screen_text(app).splitlines()[0]  # on Metrics the digits are the tabs' again
        await pilot.press("1", "J", "2")  # back, judge mode off: 2 is Metrics again
        await settle(pilot)
        assert app.query_one("#tabs").active == "metrics"
        assert app.context.workspace.judgments() == {"u1": {pane._rows[0].hit.chunk.id: 2}}
