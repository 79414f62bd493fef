"""A corpus of hostile text: markup, escape sequences, bidi and invisible characters, a 100,000-character
line. It opens, searches and shows in every tab, literally, and nothing raw reaches the terminal."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui_support import HOSTILE_TEXTS, opened, screen_text, search, settle, write_hostile_corpus
from tui.app import TABS, make_app
from tui.context import UseQuery
from tui.panes.metrics import MetricsPane
from tui.panes.search import SearchPane
from tui.panes.prompt import PromptPane
from tui.widgets_lists import KeyTree

SIZE = (100, 30)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return write_hostile_corpus(tmp_path / "hostile")


def assert_nothing_raw(text: str) -> None:
    """No control character (ESC, BEL, ...) and no bidi override survives onto the screen."""
    assert not any(ord(c) < 0x20 and c != "\n" for c in text), repr(text[:200])
    assert "\u202e" not in text and "\u200b" not in text


async def test_hostile_corpus_in_every_tab(hostile: Path) -> None:
    app = make_app(str(hostile), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        pane = await search(pilot, "bold red link todo")
        assert len(pane._rows) == app.context.setup.k
        text = screen_text(app)
        assert "[bold]x" in text and "[TODO] a" in text  # shown literally, not as markup
        assert "␛[31mred" in text  # the escape made visible
        assert_nothing_raw(text)

        tree = app.query_one("#documents", KeyTree)
        tree.focus()
        for _ in range(len(HOSTILE_TEXTS) + 1):  # every document, opened, and its chunk shown
            await pilot.press("j", "space", "j")
            await settle(pilot)
            assert_nothing_raw(screen_text(app))

        for tab in ("metrics", "chunking", "index", "prompt"):
            await pilot.press(str(list(TABS).index(tab) + 1))
            await settle(pilot)
            assert app.query_one("#tabs").active == tab
            assert_nothing_raw(screen_text(app))
        # the prompt itself keeps the text exact: only the screen shows it made safe
        retriever = app.context.workbench.retriever(app.context.setup)
        assert app.query_one(PromptPane).prompt == retriever.prompt("bold red link todo")
        assert "\x1b" in app.query_one(PromptPane).prompt
        await pilot.press("f1")
        await settle(pilot)
        assert_nothing_raw(screen_text(app))
        assert app.is_running


async def test_hostile_query(hostile: Path) -> None:
    app = make_app(str(hostile), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        app.query_one(MetricsPane).post_message(UseQuery("[bold]red[/] \x1b]0;pwned\x07 \u202eevil [link=x]"))
        await settle(pilot)
        text = screen_text(app)
        assert "[bold]red[/] ␛]0;pwned␇ ⟨U+202E⟩evil [link=x]" in text
        assert app.context.query == app.query_one(SearchPane).shown_query == app.query_one("#query").value
        assert_nothing_raw(screen_text(app))
        for tab in ("2", "3", "4", "5"):
            await pilot.press("escape", tab)
            await settle(pilot)
            assert_nothing_raw(screen_text(app))


def test_hostile_snapshot(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    """The Search tab on the hostile corpus: every piece of markup and escape shown as text."""
    folder = write_hostile_corpus(tmp_path / "hostile")

    async def ask(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await search(pilot, "bold red")

    assert snap_compare(make_app(str(folder), cursor_blink=False), terminal_size=(100, 30), run_before=ask)
