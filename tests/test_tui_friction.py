"""The smaller frictions of issue 10: the save dialog, list keys, sentence chunking, the threshold chart,
the palette's Enter, a cancelled evaluation."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from textual import events

from ranklens.tui.charts import DotRow, dot_rows
from ranklens.tui.panes import metrics as metrics_module
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.panes.prompt import DEFAULT_FILE, PromptPane
from ranklens.tui.widgets.path_prompt import PathPrompt
from tests.support.app import notifications, running, search, settle

SIZE = (100, 30)


async def _save_dialog(pilot) -> PathPrompt:  # noqa: ANN001
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    return pilot.app.screen


async def test_the_save_dialog_starts_at_home_then_remembers_and_writes_a_normal_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir(), elsewhere.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(elsewhere)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await search(pilot, "password")
        await pilot.press("escape", "5")
        await settle(pilot)
        dialog = await _save_dialog(pilot)
        box = dialog.query_one("#path-input")
        assert box.value == f"~/{DEFAULT_FILE}"  # not the current folder, which may be anyone's
        target = tmp_path / "kept.txt"
        await pilot.press("ctrl+a", "ctrl+k")
        box.post_message(events.Paste(str(target)))
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert target.read_text(encoding="utf-8") == app.query_one(PromptPane).prompt
        umask = os.umask(0)
        os.umask(umask)
        assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # like any file the user makes, not 0600
        dialog = await _save_dialog(pilot)
        assert dialog.query_one("#path-input").value == str(target)  # the last path, remembered
        await pilot.press("escape")


async def test_g_and_G_go_to_the_ends_of_a_list() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        await settle(pilot)
        table = app.query_one("#metrics-questions")
        assert app.focused is table
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0


async def test_switching_to_sentences_says_what_the_numbers_now_count() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "3")
        await settle(pilot)
        pane = app.query_one(ChunkingPane)
        assert pane.window.chunker == "words"
        await pilot.press("c")
        await settle(pilot)
        assert pane.window.chunker == "sentences"
        # size still counts words (whole sentences packed up to it); the overlap now counts sentences:
        # 20 words of overlap must not silently become 20 sentences
        assert (pane.window.size, pane.window.overlap) == (100, 1)
        said = notifications(app)[-1]
        assert "overlap 1 sentence" in said and "was 20 words" in said
        await pilot.press("c")  # recursive: 100 words are not 100 characters, its own defaults
        await settle(pilot)
        assert (pane.window.chunker, pane.window.size, pane.window.overlap) == ("recursive", 1000, 200)
        assert "1000 characters (was 100 words)" in notifications(app)[-1]
        await pilot.press("c", "c", "c")  # markdown, tokens, and words again
        await settle(pilot)
        assert (pane.window.chunker, pane.window.overlap) == ("words", 20)
        assert "overlap 20 words" in notifications(app)[-1]


def test_the_threshold_chart_keeps_a_gap_after_the_label_and_marks_overlaps() -> None:
    rows = [DotRow("answerable", [0.0, 0.0, 0.5], "$success"), DotRow("unanswerable", [0.2], "$error")]
    lines = [line.plain for line in dot_rows(rows, 40, 0.3, "t=")]
    label_width = len("unanswerable")
    for line in lines[:2]:
        assert line[label_width:label_width + 2] == "  "  # a clear gap, never a point against the label
    assert not any(c.isdigit() for c in lines[0][label_width:])  # two questions at 0: a mark, not a "2"
    assert "◉" in lines[0]
    assert lines[-1].split()[0] == "0.000"  # the axis starts at its minimum, labelled


def test_the_threshold_axis_labels_its_minimum_even_when_the_mark_is_near_it() -> None:
    rows = [DotRow("answerable", [0.3, 0.5], "$success"), DotRow("unanswerable", [0.2], "$error")]
    lines = [line.plain for line in dot_rows(rows, 40, 0.21, "t=")]
    assert lines[-1].split()[0] == "0.200" and "0.500" in lines[-1]


async def test_a_cancelled_evaluation_keeps_the_scorers_it_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    reached, gate = threading.Event(), threading.Event()

    def held(context, progress):  # noqa: ANN001
        from ranklens.engine.experiments.scorers import compare_scorers

        calls = []

        def checkpoint() -> None:  # runs before each scorer: at the second, the first is done
            calls.append(1)
            if len(calls) == 2:
                reached.set()
                gate.wait(10)

        return compare_scorers(context.workbench, context.setup, progress=progress, checkpoint=checkpoint)

    monkeypatch.setattr(metrics_module, "measure", held)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        while not reached.is_set():
            await pilot.pause(0.05)
        await pilot.press("escape")  # cancel
        gate.set()
        await settle(pilot)
        pane = app.query_one(MetricsPane)
        assert pane.result is not None and not pane.result.complete
        # held before the second scorer: TF-IDF (first in the registry) had finished, and it stays, with its numbers
        assert [r.scorer for r in pane.result.scorers] == ["tfidf"]
        assert f"{pane.result.scorers[0].evaluation.metrics['mrr']:.3f}" == "0.786"  # seed 004
        assert app.query_one("#metrics-scorers").row_count == 1


async def test_enter_right_after_typing_in_the_palette_runs_what_was_typed() -> None:
    from textual.widgets import TabbedContent

    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "ctrl+p")
        await pilot.pause()
        # As a fast typist sends them: every key queued at once, Enter before the list has caught up.
        for character in "prompt tab":
            app.post_message(events.Key("space" if character == " " else character, character))
        app.post_message(events.Key("enter", "\r"))
        for _ in range(40):
            await pilot.pause(0.05)
            if app.query_one(TabbedContent).active == "prompt":
                break
        await pilot.press("enter")  # the first Enter may only highlight the match, as Textual's palette does
        await settle(pilot)
        assert app.query_one(TabbedContent).active == "prompt"
