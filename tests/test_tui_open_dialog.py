"""The Open dialog completes paths and offers the corpora opened lately (issue 10, expected and missing)."""
from __future__ import annotations

from pathlib import Path

from textual import events

from ranklens.tui.app import make_app
from ranklens.tui.widgets.path_prompt import PathPrompt
from tests.support.app import open_path, opened, running, until

SIZE = (100, 30)


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "a.txt").write_text("the only chunk about cats")
    return folder


async def test_the_open_dialog_completes_a_path_and_remembers_what_was_opened(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "cats-corpus")
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        box = app.screen.query_one("#path-input")
        box.post_message(events.Paste(str(tmp_path / "cats-")))
        await until(pilot, lambda: bool(box._suggestion))  # the folder is listed in a thread
        assert box._suggestion == str(folder) + "/"
        await pilot.press("right")  # accepts the completion
        assert box.value == str(folder) + "/"
        await pilot.press("enter")
        await until(pilot, lambda: app.context.corpus.name == "cats-corpus")
    again = make_app("studio-alfa", cursor_blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape", "ctrl+o")
        await pilot.pause()
        assert str(folder) in str(again.screen.query_one("#path-recent").render())
        await pilot.press("escape")
        await pilot.press("ctrl+o")
        await pilot.pause()
        await open_path(pilot, folder)
        assert again.context.corpus.name == "cats-corpus"
