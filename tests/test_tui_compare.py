"""The Compare tab (issue 12): two saved runs measured side by side, as `ranklens compare` measures them; the
questions by |Δ|; the selected question's rankings with moves; why? under B's setup; hostile text stays literal."""
from __future__ import annotations

import contextlib
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Select, Static

from ranklens.cli.main import main
from ranklens.engine.comparing.two_runs import run_depth, setup_run
from ranklens.engine.corpus import Question
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.workspace.store import Workspace
from ranklens.tui.app import make_app
from ranklens.tui.panes.compare import ComparePane
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.widgets.fitted_line import FittedLine
from ranklens.tui.widgets.work_status import WorkStatus
from tests.support.app import notifications, opened, running, screen_text, settle, until
from tests.support.cli import run_cli
from tests.support.hostile import HOSTILE_IDS, HOSTILE_TEXTS

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))


def save_runs(corpus_name: str, *scorers: str, questions: list[Question] | None = None) -> Workspace:
    """Runs of ``scorers`` saved under their names, as S (and `ranklens run --save`) save them."""
    corpus = load_corpus(corpus_name)
    workspace = Workspace.for_corpus(corpus)
    if questions:
        workspace.add_questions(questions)
        for question in questions:
            for ident, grade in question.relevant.items():
                workspace.judge(question.id, ident, grade)
    applied, _ = workspace.apply(corpus)
    workbench = Workbench(applied)
    for scorer in scorers:
        run, meta, _ = setup_run(workbench, run_depth(setup_for(applied, {"scorer": scorer})), scorer)
        workspace.save_run(scorer, run, meta)
    return workspace


def rendered(app, selector: str) -> str:  # noqa: ANN001
    from io import StringIO

    from rich.console import Console

    console = Console(width=200, record=True, file=StringIO())
    console.print(app.query_one(selector, Static).content)
    return "\n".join(" ".join(line.split()) for line in console.export_text().splitlines())  # spaces collapsed


async def choose(pilot, a: str, b: str) -> None:  # noqa: ANN001
    app = pilot.app
    app.query_one("#compare-a", Select).value = a
    app.query_one("#compare-b", Select).value = b
    await settle(pilot)


async def test_two_saved_runs_measured_as_the_command_line_measures_them(capsys: pytest.CaptureFixture[str]) -> None:
    save_runs("studio-alfa", "bm25", "tfidf")
    expected = run_cli(capsys, "compare", "studio-alfa", "bm25", "tfidf", "--json").json
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "6")
        await settle(pilot)
        await choose(pilot, "bm25", "tfidf")
        pane = app.query_one(ComparePane)
        shown = {row.name: row for row in pane.comparison.rows}
        for name, cli in expected["metrics"].items():
            assert (shown[name].a, shown[name].b, shown[name].p_ttest, shown[name].p_randomization) == pytest.approx(
                (cli["a"], cli["b"], cli["p_ttest"], cli["p_randomization"]))
        measures = rendered(app, "#compare-measures")
        # pinned: BM25 against TF-IDF on studio-alfa's 15 answerable questions, seed 42, 10,000 sign flips
        assert "nDCG@10 0.8290 0.8386 +0.0096 0.2320 0.4967 [+0.000, +0.027]" in measures
        assert "MRR@10 0.7744 0.7856 +0.0111 0.2377 0.4967 [+0.000, +0.031]" in measures
        assert "B vs A on nDCG@10: 2 wins, 13 ties, 0 losses · 15 questions" in measures
        assert (expected["wins"], expected["ties"], expected["losses"]) == (2, 13, 0)
        # the questions by |Δ|: q04 moved most (first relevant chunk 5 -> 3), then q11 (6 -> 5)
        table = pane.query_one("#compare-questions", KeyTable)
        first = [cell.plain.strip() for cell in table.get_row_at(0)]
        assert first[:2] == ["+0.113", "5→3"] and first[2].startswith("ho perso il cellulare")
        rankings = rendered(app, "#compare-detail-body")
        assert "nDCG@10 0.387 → 0.500 · first relevant 5 → 3" in rankings
        assert "✓ 5 accessi-2 ↑2" in rankings and "✓ 3 accessi-2 =" not in rankings
        await pilot.press("y")
        await settle(pilot)
        why = rendered(app, "#compare-detail-body")
        assert why.startswith("why? accessi-2 ranks 3 of 18")  # under B's setup, TF-IDF
        assert "the top result is accessi-1" in why


async def test_the_current_setup_against_a_saved_run() -> None:
    save_runs("studio-alfa", "tfidf")
    app = make_app("studio-alfa", {"scorer": "bm25"}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape", "6")
        await settle(pilot)
        # by default A is a saved run and B the current setup
        assert (app.query_one("#compare-a", Select).value, app.query_one("#compare-b", Select).value) == (
            "tfidf", "@current")
        assert "nDCG@10 0.8386 0.8290 -0.0096 0.2320 0.4967" in rendered(app, "#compare-measures")
        # Which judgments the measures count comes first (issue 20); the randomization's seed follows it.
        assert "15 questions · 0 judgments of yours" in screen_text(app)
        line = app.query_one(ComparePane).query_one(WorkStatus).query_one("#work-message", FittedLine).text
        assert line.startswith("15 questions · 0 judgments of yours · randomization: 10,000 sign flips, seed 42")


@contextlib.asynccontextmanager
async def comparing(questions: list[Question]) -> AsyncIterator[Pilot]:
    """The Compare tab at 200x50, BM25 against TF-IDF, their runs saved with ``questions`` added and judged."""
    save_runs("studio-alfa", "bm25", "tfidf", questions=questions)
    async with running(size=(200, 50)) as pilot:
        await pilot.press("escape", "6")
        await settle(pilot)
        await choose(pilot, "bm25", "tfidf")
        yield pilot


async def test_hostile_question_text_stays_literal() -> None:
    corpus = load_corpus("studio-alfa")
    hostile = [Question(f"h{i}", text, {corpus.chunks[i].id: 1}) for i, text in enumerate(HOSTILE_TEXTS[:3])]
    async with comparing(hostile) as pilot:
        app = pilot.app
        table = app.query_one("#compare-questions", KeyTable)
        texts = [table.get_row_at(r)[2].plain for r in range(table.row_count)]
        assert "[bold]x and [/] and [TODO] a" in texts
        assert "[link=http://x]y[/link] back\\slash \\[bold] [/bold]" in texts
        assert any(t.startswith("ansi ␛[31mred␛[0m") for t in texts)
        # its row brought into view (it sits at the table's foot, cut off when the layout gives the table a line
        # less), then drawn by the next refresh: waited for, not assumed
        row = texts.index("[bold]x and [/] and [TODO] a")
        table.move_cursor(row=row)
        await until(pilot, lambda: "[bold]x and [/] and [TODO] a" in screen_text(app))
        assert "\x1b" not in screen_text(app)
        await settle(pilot)
        assert "h0: [bold]x and [/] and [TODO] a" in rendered(app, "#compare-detail-body")


async def test_hostile_question_ids_stay_literal_in_the_why_title() -> None:
    corpus = load_corpus("studio-alfa")
    # The corpus' own questions and judgments under hostile ids, so that why? has a relevant chunk to explain.
    hostile = [Question(ident, question.text, question.relevant)
               for ident, question in zip(HOSTILE_IDS, corpus.answerable)]
    async with comparing(hostile) as pilot:
        app = pilot.app
        pane = app.query_one(ComparePane)
        table = pane.query_one("#compare-questions", KeyTable)
        rows = [q.id for q in pane._questions]
        for ident in HOSTILE_IDS:
            table.focus()
            table.move_cursor(row=rows.index(ident))
            await pilot.press("y")
            await settle(pilot)
            assert f"why? ({ident})" in screen_text(app)  # the border's title, literally


def test_compare_tab_snapshot(snap_compare) -> None:  # noqa: ANN001
    """BM25 against TF-IDF at 80x24: the table, the questions by |Δ| and q04's rankings all on screen."""
    save_runs("studio-alfa", "bm25", "tfidf")

    async def show(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await pilot.press("escape", "6")
        await settle(pilot)
        await choose(pilot, "bm25", "tfidf")
        # the filled table and q04's rankings are drawn by a later refresh: waited for, not assumed
        await until(pilot, lambda: all(part in screen_text(pilot.app) for part in ("+0.113", "q04: ho perso")))
        await pilot.pause()

    assert snap_compare(make_app("studio-alfa", cursor_blink=False), terminal_size=(80, 24), run_before=show)


async def comparing_with(pilot, a: str, b: str, more: str) -> ComparePane:  # noqa: ANN001
    """The Compare tab, ``a`` against ``b``, then ``more`` added from the keyboard."""
    await pilot.press("escape", "6")
    await settle(pilot)
    await choose(pilot, a, b)
    pane = pilot.app.query_one(ComparePane)
    assert pane.many is None and "p Holm" not in screen_text(pilot.app)
    await add_run(pilot, more)
    return pane


async def add_run(pilot, name: str) -> None:  # noqa: ANN001
    """Pick ``name`` in the third box from the keyboard, as a user adds a run: focus it, open it, choose."""
    app = pilot.app
    more = app.query_one("#compare-more", Select)
    more.focus()
    await pilot.press("enter")
    position = [value for _, value in more._options].index(name)  # the blank prompt is option 0
    await pilot.press(*["down"] * position, "enter")
    await settle(pilot)


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    """BM25, TF-IDF and the fusion saved once for the module (a folder for XDG_DATA_HOME), with `ranklens compare`'s
    JSON for the three and for BM25 against TF-IDF: the runs and the 10,000 sign flips computed once."""
    folder = tmp_path_factory.mktemp("three-runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(folder))
        save_runs("studio-alfa", "bm25", "tfidf", "fusion")
        compared = []
        for runs in (["bm25", "tfidf", "fusion"], ["bm25", "tfidf"]):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert main(["compare", "studio-alfa", *runs, "--json"]) == 0
            compared.append(json.loads(out.getvalue()))
    return folder, compared[0], compared[1]


async def test_more_runs_are_each_tested_against_a_with_holm(three_runs: tuple[Path, dict, dict],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """At 80x24, then at 140x45 (the same app resized: its numbers computed once)."""
    folder, expected, pair = three_runs
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))  # the app only reads the saved runs
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await comparing_with(pilot, "bm25", "tfidf", "fusion")
        many = pane.many
        assert many is not None and [r.side.label for r in many.runs] == ["tfidf", "fusion"]
        assert app.query_one("#compare-more", Select).is_blank()  # the box is free for one more
        for run, cli in zip(many.runs, expected["runs"]):
            for name, numbers in cli["metrics"].items():
                row = run.row(name)
                assert (row.b, row.a, row.p_ttest, row.p_randomization, run.adjusted[name]) == pytest.approx(
                    (numbers["mean"], numbers["baseline"], numbers["p_ttest"], numbers["p_randomization"],
                     numbers["p_holm"]))
        ndcg = expected["runs"][1]["metrics"]["nDCG@10"]
        for size in (SIZE, (140, 45)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            measures = rendered(app, "#compare-measures")
            assert measures.startswith("nDCG@10 mean Δ p t-test p rand. p Holm")
            assert f"C fusion {ndcg['mean']:.4f} {ndcg['delta']:+.4f}" in measures
            assert f"{float(ndcg['p_holm']):.4f} [{ndcg['ci95'][0]:+.3f}, {ndcg['ci95'][1]:+.3f}]" in measures
            assert tuple(app.size) == size
            assert "p Holm: p rand. corrected over 2 runs · measure 1 of 5 (m)" in screen_text(app), size
        # the questions below stay B against A
        assert [q.b for q in pane.comparison.questions] == [q["b"] for q in pair["per_question"]]
        table = pane.query_one("#compare-questions", KeyTable)
        table.focus()
        await pilot.press("m")
        assert rendered(app, "#compare-measures").startswith("MRR@10 mean")
        # a run compared already is said, not added twice
        await add_run(pilot, "bm25")
        assert "bm25 is compared already" in notifications(app) and len(pane.many.runs) == 2
        table.focus()
        await pilot.press("x")  # drops fusion: two runs again, their own table
        await settle(pilot)
        assert pane.many is None and rendered(app, "#compare-measures").startswith("measure A B Δ")
        assert app.query_one("#compare-more", Select).prompt == "+ run"
        assert not pane.check_action("next_measure", ()) and not pane.check_action("drop_run", ())


def test_compare_tab_with_three_runs_snapshot(snap_compare) -> None:  # noqa: ANN001
    """BM25 (A) against TF-IDF and fusion at 80x24: the runs' table with Holm p-values, the questions below."""
    save_runs("studio-alfa", "bm25", "tfidf", "fusion")

    async def show(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await comparing_with(pilot, "bm25", "tfidf", "fusion")
        pilot.app.query_one("#compare-questions").focus()
        await until(pilot, lambda: all(part in screen_text(pilot.app) for part in ("C fusion", "q04: ho perso")))
        await pilot.pause()

    assert snap_compare(make_app("studio-alfa", cursor_blink=False), terminal_size=(80, 24), run_before=show)


async def test_the_saved_runs_are_listed_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    save_runs("studio-alfa", "tfidf")
    listed_in: list[threading.Thread] = []
    run_names = Workspace.run_names

    def recorded(self: Workspace, *args, **kwargs) -> list[str]:  # noqa: ANN002, ANN003
        listed_in.append(threading.current_thread())
        return run_names(self, *args, **kwargs)

    monkeypatch.setattr(Workspace, "run_names", recorded)
    async with running(size=SIZE) as pilot:
        await pilot.press("escape", "6")
        await settle(pilot)
        assert pilot.app.query_one("#compare-a", Select).value == "tfidf"  # the saved run, offered
    assert listed_in and threading.main_thread() not in listed_in
