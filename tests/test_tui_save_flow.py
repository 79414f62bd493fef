"""The one save flow (tui/saving.py) as the Prompt tab's ctrl+s and the Metrics tab's export use it: a file that
exists is replaced only on an explicit yes (n and Escape leave it byte for byte), a replaced file keeps its
permissions, a new one gets the umask's, no temporary file is left, and a hostile file name is shown literally."""
from __future__ import annotations

import csv
import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual import events

from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.panes.prompt import PromptPane
from ranklens.tui.widgets.confirm import Confirm
from ranklens.tui.widgets.path_prompt import PathPrompt
from tests.support.app import notifications, running, search, settle, until

OLD = b"keep me \x00\xff\n"  # not text a save would write: a partial write or a re-encoding would show
HOSTILE = "[bold red]out [reverse]x"  # markup in a file name (control characters never reach the path box)


@dataclass(frozen=True)
class Tab:
    key: str  # the tab's number
    save: str  # the key that saves
    written: str  # what the tab writes: "prompt" or "metrics"
    said: str  # the message once written, before the path


TABS = [Tab("5", "ctrl+s", "prompt", "prompt saved to"), Tab("2", "e", "metrics", "metrics exported to")]


async def opened_tab(pilot, tab: Tab) -> None:  # noqa: ANN001
    if tab.written == "prompt":
        await search(pilot, "ho cancellato un file per sbaglio")
    await pilot.press("escape", tab.key)
    await settle(pilot)


def expected(app, tab: Tab) -> str:  # noqa: ANN001
    """The text the tab writes, read from the pane (a CSV's first column for the metrics)."""
    if tab.written == "prompt":
        return app.query_one(PromptPane).prompt
    return ",".join(r.scorer for r in app.query_one(MetricsPane).result.scorers)


def written(path: Path, tab: Tab) -> str:
    text = path.read_text(encoding="utf-8")
    if tab.written == "prompt":
        return text
    return ",".join(row["scorer"] for row in csv.DictReader(io.StringIO(text)))


async def ask_to_save(pilot, tab: Tab, path: Path) -> None:  # noqa: ANN001
    await pilot.press(tab.save)
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    await pilot.press("ctrl+a", "ctrl+k")
    pilot.app.screen.query_one("#path-input").post_message(events.Paste(str(path)))
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("tab", TABS, ids=lambda tab: tab.written)
async def test_a_new_file_is_written_at_once_an_existing_one_replaced_only_on_yes_and_right_completes_a_folder(
        tab: Tab, tmp_path: Path) -> None:
    new, old, reports = tmp_path / "new", tmp_path / "old", tmp_path / "reports"
    for folder in (new, old, reports):
        folder.mkdir()
    async with running(size=(100, 30)) as pilot:
        app = pilot.app
        await opened_tab(pilot, tab)

        # a new file: written without a question, with the umask's mode
        target = new / "new.csv"
        umask = os.umask(0)
        os.umask(umask)
        await ask_to_save(pilot, tab, target)
        assert not isinstance(app.screen, Confirm)
        assert written(target, tab) == expected(app, tab)
        assert notifications(app)[-1] == f"{tab.said} {target}"
        assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # not the temporary file's 0600

        # an existing file: n and Escape leave it byte for byte; y replaces it, keeping its mode
        target = old / f"{HOSTILE}.csv"
        target.write_bytes(OLD)
        target.chmod(0o640)
        for answer in ("n", "escape"):
            await ask_to_save(pilot, tab, target)
            assert isinstance(app.screen, Confirm)
            question = app.screen.query_one(".dialog-title").render()
            assert str(question) == f"{old}/[bold red]out [reverse]x.csv exists. Overwrite it?"
            await pilot.press(answer)
            await settle(pilot)
            assert not isinstance(app.screen, Confirm)
            assert target.read_bytes() == OLD and stat.S_IMODE(target.stat().st_mode) == 0o640
        await ask_to_save(pilot, tab, target)
        await pilot.press("y")
        await settle(pilot)
        assert written(target, tab) == expected(app, tab) != ""
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        assert [p.name for p in old.iterdir()] == [target.name]  # no temporary file left
        assert notifications(app)[-1] == f"{tab.said} {old}/[bold red]out [reverse]x.csv"

        # Right completes a folder in the dialog; Escape hands the keys back to the tab
        await pilot.press(tab.save)
        await pilot.pause()
        box = app.screen.query_one("#path-input")
        await pilot.press("ctrl+a", "ctrl+k")
        box.post_message(events.Paste(str(tmp_path / "rep")))
        await until(pilot, lambda: bool(box._suggestion))  # the folder is listed in a thread
        await pilot.press("right")
        await pilot.pause()
        assert box.value == f"{reports}/"
        assert "→ completes a path" in str(app.screen.query(".dialog-hint").first().render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PathPrompt)
