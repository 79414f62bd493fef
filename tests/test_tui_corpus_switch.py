"""Opening another corpus from the palette (issue 20, item 5): what each tab held for the old corpus (the
Metrics filter, the Chunking find box and sweep verdict) goes, and the focus leaves the boxes it emptied."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from tests.support.app import running, screen_text, settle, until

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))


async def open_from_palette(pilot, name: str) -> None:  # noqa: ANN001
    """ctrl+p, the corpus' command typed, Enter: as a user opens a bundled corpus."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*f"open corpus {name}")
    await pilot.pause(0.3)
    await pilot.press("enter")
    await until(pilot, lambda: app.context.corpus.name == name)
    await settle(pilot)


async def test_a_new_corpus_starts_without_the_old_ones_filter_find_box_and_sweep() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "3", "r")  # the chunk sweep of studio-alfa
        await settle(pilot)
        assert "wins for" in screen_text(app)
        await pilot.press("f", *"giorni di")  # the focus stays in the find box
        await settle(pilot)
        await pilot.press("escape", "2", "f", *"zzz")  # the Metrics filter, the focus in it
        await settle(pilot)
        assert "0 of 15 match" in screen_text(app)

        await open_from_palette(pilot, "battery")
        metrics = screen_text(app)
        assert "battery" in metrics and "zzz" not in metrics and "match" not in metrics
        assert "filter · Escape keeps it" not in metrics  # the box is closed
        assert not isinstance(app.focused, Input)  # the focus left the emptied box: the tab's keys work
        await pilot.press("3")
        await settle(pilot)
        chunking = screen_text(app)
        assert app.query_one("#chunk-find", Input).value == ""
        assert "not in this text" not in chunking and "giorni di" not in chunking
        assert "wins for" not in chunking and "r sweeps chunkers, sizes and overlaps" in chunking
