"""Bad input in the app: corpora that cannot be opened, settings the engine refuses, a thousand keystrokes.

Each ends in a notification that names the problem (the file, the line, the
setting), the app keeps running, and whatever was open stays open.
"""
from __future__ import annotations

import asyncio
import random
from pathlib import Path
from collections.abc import Callable

import pytest
from textual import events
from textual.widgets import TabbedContent

from tests.support.app import notifications, open_path, opened, running, search, settle
from tests.support.files import DOCS, beir_folder, deny_open, text_folder
from ranklens.tui.app import RanklensApp, make_app
from ranklens.tui.context import ChangeSetup
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.panes.search import DEBOUNCE_S, SearchPane
from ranklens.tui.widgets.query_box import QueryBox

SIZE = (100, 30)
# A bad corpus: where it is, and what the message must say about it.
BadCorpus = Callable[[Path, pytest.MonkeyPatch], tuple[Path, list[str]]]


def missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    return tmp_path / "nowhere", ["corpus not found", str(tmp_path / "nowhere")]


def unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    folder = beir_folder(tmp_path / "locked", DOCS)
    deny_open(monkeypatch, folder / "corpus.jsonl")
    return folder, [str(folder / "corpus.jsonl"), "Permission denied"]


def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    folder = text_folder(tmp_path / "empty", {})
    return folder, [f"no documents in {folder}"]


def malformed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    folder = beir_folder(tmp_path / "broken", DOCS)
    with (folder / "corpus.jsonl").open("a", encoding="utf-8") as corpus:
        corpus.write('{"_id": "c", "text": oops}\n')
    return folder, [f"{folder / 'corpus.jsonl'}:3", "not valid JSON"]


BAD_CORPORA = [pytest.param(case, id=case.__name__) for case in (missing, unreadable, empty, malformed)]


def assert_told(app: RanklensApp, needles: list[str]) -> None:
    assert any(all(needle in message for needle in needles) for message in notifications(app)), notifications(app)


@pytest.mark.parametrize("bad", BAD_CORPORA)
async def test_a_bad_corpus_on_the_command_line(bad: BadCorpus, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path, needles = bad(tmp_path, monkeypatch)
    app = make_app(str(path), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.context is None
        assert_told(app, needles)
        await pilot.press("escape", "s", "2")  # keys still work with nothing open
        await settle(pilot)
        assert app.query_one(TabbedContent).active == "metrics"
        assert app.is_running


async def test_a_bad_corpus_or_a_loader_bug_from_the_palette_keeps_the_open_one(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(spec: str, progress: object = None) -> None:
        raise RuntimeError("unforeseen")

    async with running(size=SIZE) as pilot:
        app = pilot.app
        workbench = app.context.workbench
        for case in (missing, unreadable, empty, malformed):
            path, needles = case(tmp_path / case.__name__, monkeypatch)
            commands = {command.name: command for command in app.palette_commands()}
            commands["Open corpus from a path…"].run()
            await open_path(pilot, path)
            assert_told(app, needles)
            assert app.context.workbench is workbench  # the open corpus stays
        # a loader's bug is a message, not the end of the app
        monkeypatch.setattr("ranklens.engine.corpus.loaders.load_corpus", broken)
        app.switch_corpus("battery")
        await settle(pilot)
        assert_told(app, ["cannot open battery", "RuntimeError: unforeseen"])
        assert app.context.corpus.name == "studio-alfa" and app.is_running
        pane = await search(pilot, "password")
        assert pane.shown_query == "password" and pane._rows


# Each setting one step from its bound: k at its least, BM25's b at its most, the overlap one short of the size.
AT_THE_BOUNDS = {"k": 1, "scorer": "bm25", "b": 1.0, "size": 3, "overlap": 2}


async def test_a_refused_setting_keeps_the_setup() -> None:
    app = make_app("studio-alfa", AT_THE_BOUNDS, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        before = app.context
        for key, field, needle in (("minus", "k", "k must be at least 1"),
                                   ("right_curly_bracket", "b", "b must be between 0 and 1")):
            await pilot.press("escape", key)
            await settle(pilot)
            assert_told(app, [needle])
            assert app.context is before and getattr(app.context.setup, field) == AT_THE_BOUNDS[field]

        # overlap as large as the size, on the Chunking tab
        await pilot.press("escape", "3")
        await settle(pilot)
        pane = app.query_one(ChunkingPane)
        await pilot.press("O")  # overlap 3 = size: the tab says no and keeps its window
        await settle(pilot)
        assert (pane.window.size, pane.window.overlap) == (3, 2)
        assert_told(app, ["overlap stays between 0 and size - 1 (2)"])
        pane.post_message(ChangeSetup({"size": 3, "overlap": 3}, reason="chunking words 3/3"))
        await settle(pilot)  # the engine refuses it too, should it come from elsewhere
        assert_told(app, ["overlap 3 must be smaller than size 3"])
        assert "chunking words 3/3" not in notifications(app)
        assert app.context is before


async def test_a_thousand_fast_keystrokes_leave_the_results_of_the_final_text() -> None:
    """Keys arrive as from a terminal, a few milliseconds apart, with a pause past the debounce
    now and then so that searches start (and are overtaken) while typing goes on."""
    rng = random.Random(5)
    words = ["password", " backup", " ferie", " fattura", " cellulare", " codici", " rimborso"]
    keys: list[str] = []
    while len(keys) < 1_000:
        keys.extend(rng.choice(words))
        keys.extend(["backspace"] * rng.randint(0, 4))
    keys = keys[:1_000]
    async with running(size=SIZE, pauses=1) as pilot:  # the users' pause: typing overtakes searches
        app = pilot.app
        expected = ""
        for n, key in enumerate(keys):
            expected = expected[:-1] if key == "backspace" else expected + key
            app.post_message(events.Key("space" if key == " " else key, None if key == "backspace" else key))
            await asyncio.sleep(DEBOUNCE_S + 0.05 if n % 100 == 99 else 0.002)
        await settle(pilot)
        pane = app.query_one(SearchPane)
        assert app.query_one(QueryBox).value == expected == app.context.query == pane.shown_query
        engine = app.context.workbench.retriever(app.context.setup).search(expected)
        assert [row.hit.chunk.id for row in pane._rows] == [hit.chunk.id for hit in engine.hits]
        await pilot.press("escape", "5")  # the Prompt tab: one prompt to build, where Metrics measures every scorer
        assert app.query_one(TabbedContent).active == "prompt"
