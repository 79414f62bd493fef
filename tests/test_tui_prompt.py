"""The Prompt tab: the exact prompt, copied with OSC 52, saved atomically and never over a file unasked."""
from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

import pytest
from textual import events

from ranklens.corpora import bundled_path
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.app import opened, running, search, settle
from tests.support.seeds import SEED_PROMPT
from ranklens.tui.app import make_app
from ranklens.tui.panes.prompt import DEFAULT_FILE, PromptPane
from ranklens.tui.widgets.confirm import Confirm
from ranklens.tui.widgets.path_prompt import PathPrompt

SIZE = (100, 30)
QUESTION = "ho cancellato un file per sbaglio"


def engine_prompt(corpus: str, question: str, overrides: dict) -> str:
    loaded = load_corpus(corpus)
    return Workbench(loaded).retriever(setup_for(loaded, overrides)).prompt(question)


async def show_prompt(pilot, question: str) -> PromptPane:  # noqa: ANN001
    await search(pilot, question)
    await pilot.press("escape", "5")
    await settle(pilot)
    return pilot.app.query_one(PromptPane)


async def test_prompt_is_the_engine_s_and_the_seed_s_and_follows_k() -> None:
    app = make_app("studio-alfa", {"k": 2}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        pane = await show_prompt(pilot, QUESTION)
        assert pane.prompt == engine_prompt("studio-alfa", QUESTION, {"k": 2}) == SEED_PROMPT
        assert pane.prompt_query == QUESTION
        await pilot.press("plus")
        await settle(pilot)
        assert pane.prompt == engine_prompt("studio-alfa", QUESTION, {"k": 3})
        assert "[3] (" in pane.prompt


async def test_copy_says_so_without_a_query_and_puts_the_prompt_on_the_clipboard() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "5", "c")
        assert app.clipboard == ""
        assert any("no prompt yet" in n.message for n in app._notifications)
        pane = await show_prompt(pilot, QUESTION)
        await pilot.press("c")
        assert app.clipboard == pane.prompt != ""


async def save(pilot, path: str | None = None) -> None:  # noqa: ANN001
    """ctrl+s, then accept the default path or paste another over it."""
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    if path is not None:
        await pilot.press("ctrl+a", "ctrl+k")
        pilot.app.screen.query_one("#path-input").post_message(events.Paste(path))
        await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)


async def test_save_writes_the_prompt_asks_before_overwriting_and_a_failed_save_leaves_the_old_file_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new file is written at the path offered; an existing one is replaced only on yes. The rename that would
    replace the file fails: the old file stays as it was, no temporary file is left, the message says why; a
    save that works keeps the old file's permissions. A missing folder is a message."""
    monkeypatch.setenv("HOME", str(tmp_path))  # the dialog offers ~/ranklens-prompt.txt
    real_replace = os.replace

    def disk_full(source: str, destination: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await show_prompt(pilot, QUESTION)
        await save(pilot)
        target = tmp_path / DEFAULT_FILE
        assert target.read_text(encoding="utf-8") == pane.prompt
        assert [p.name for p in tmp_path.iterdir()] == [DEFAULT_FILE]  # no temporary file left

        target.write_text("keep me", encoding="utf-8")
        await save(pilot)
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")
        await settle(pilot)
        assert target.read_text(encoding="utf-8") == "keep me"

        target.chmod(0o644)
        monkeypatch.setattr(os, "replace", disk_full)
        await save(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert target.read_text(encoding="utf-8") == "keep me"
        assert [p.name for p in tmp_path.iterdir()] == [DEFAULT_FILE]
        assert any("cannot write" in n.message and "No space left" in n.message for n in app._notifications)
        monkeypatch.setattr(os, "replace", real_replace)
        await save(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert target.read_text(encoding="utf-8") == pane.prompt
        assert stat.S_IMODE(target.stat().st_mode) == 0o644

        await save(pilot, str(tmp_path / "nope" / "prompt.txt"))
        assert any("no such folder" in n.message for n in app._notifications)
        assert app.is_running


async def test_save_never_writes_into_the_corpus_folder(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(bundled_path("studio-alfa"), folder)
    before = sorted(p.name for p in folder.rglob("*"))
    app = make_app(str(folder), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await show_prompt(pilot, QUESTION)
        await save(pilot, str(folder / "prompt.txt"))
        assert sorted(p.name for p in folder.rglob("*")) == before
        assert any("corpus folder" in n.message for n in app._notifications)


async def test_a_prompt_of_the_previous_setup_is_marked_until_the_new_one_arrives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from ranklens.tui.panes import prompt as prompt_module
    from tests.support.app import screen_text, setup_line
    from tests.support.workers import held

    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        pane = await show_prompt(pilot, QUESTION)
        old = pane.prompt
        job, release = held(prompt_module.build_prompt)
        monkeypatch.setattr(prompt_module, "build_prompt", job)
        await pilot.press("s")  # BM25: another top 5 in the prompt
        deadline = time.monotonic() + 30  # not settle(): it waits for the workers, and the build is held
        while "BM25" not in setup_line(app) or not pane.has_class("-recomputing"):
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
        assert pane.prompt == old and "the prompt below is the previous setup's · recomputing…" in screen_text(app)
        release.set()
        await settle(pilot)
        assert not pane.has_class("-recomputing") and "recomputing" not in screen_text(app)
        assert pane.prompt == engine_prompt("studio-alfa", QUESTION, {"scorer": "bm25"})
