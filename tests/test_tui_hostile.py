"""A corpus of hostile text: markup, escape sequences, bidi and invisible characters, a 100,000-character
line. It opens, searches and shows in every tab, literally, and nothing raw reaches the terminal."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.app import App
from textual.pilot import Pilot

from tests.support.app import opened, screen_text, search, settle
from tests.support.hostile import BIDI_OR_INVISIBLE, HOSTILE_TEXTS, RAW_CONTROL, write_hostile_corpus
from ranklens.tui.app import TABS, make_app
from ranklens.tui.context import UseQuery
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.panes.prompt import PromptPane
from ranklens.tui.widgets.lists import KeyTree

SIZE = (100, 30)
UNSAFE = re.compile(f"{RAW_CONTROL.pattern}|{BIDI_OR_INVISIBLE.pattern}")
# A folder name, an id and a question that are hostile too; the folder name reaches a notification
# through the warning about a qrels row naming an unknown id.
FOLDER = "evil [bold]\x1b]0;t\x07\u202e"
HOSTILE_ID = "[b]id\x1b[31m\u202eX"
QUESTION = "[link=http://x]red[/link] \x1b]52;c;ZXZpbA==\x07 [TODO] a"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    folder = write_hostile_corpus(tmp_path / FOLDER)
    with (folder / "corpus.jsonl").open("a", encoding="utf-8") as corpus:
        corpus.write(json.dumps({"_id": HOSTILE_ID, "title": "", "text": "red [TODO] a bold"}) + "\n")
    with (folder / "queries.jsonl").open("a", encoding="utf-8") as queries:
        queries.write(json.dumps({"_id": "q[3]\x1b[0m", "text": QUESTION}) + "\n")
    with (folder / "qrels" / "test.tsv").open("a", encoding="utf-8") as qrels:
        qrels.write(f"q[3]\x1b[0m\t{HOSTILE_ID}\t1\nq1\tnot-in-the-corpus\t1\n")
    return folder


def raw_segments(app: App) -> list[Segment]:
    """Segments on screen that would act on the terminal: control characters (ESC starts ANSI/OSC
    sequences, BEL ends them), bidi overrides and invisible characters, control codes, links."""
    return [segment for strip in app.screen._compositor.render_strips() for segment in strip
            if UNSAFE.search(segment.text) or segment.control or (segment.style and segment.style.link)]


def assert_nothing_raw(app: App) -> None:
    assert not raw_segments(app), raw_segments(app)[:5]


async def show_tab(pilot: Pilot, tab: str, *keys: str) -> str:
    """Switch to ``tab``, press ``keys`` there, let the work finish; the screen's text, checked raw-free."""
    await pilot.press("escape", str(list(TABS).index(tab) + 1), *keys)
    await settle(pilot)
    assert pilot.app.query_one("#tabs").active == tab
    assert_nothing_raw(pilot.app)
    return screen_text(pilot.app)


async def test_hostile_corpus_and_query_in_every_tab(hostile: Path) -> None:
    app = make_app(str(hostile), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        # notifications: the warning quotes the folder's name, made visible
        warning = next(n.message for n in app._notifications if "not in the corpus" in n.message)
        assert "evil [bold]␛]0;t␇⟨U+202E⟩" in warning
        assert_nothing_raw(app)

        pane = await search(pilot, "bold red link todo")
        assert len(pane._rows) == app.context.setup.k
        text = screen_text(app)
        assert "[bold]x" in text and "[TODO] a" in text  # shown literally, not as markup
        assert "␛[31mred" in text  # the escape made visible
        assert_nothing_raw(app)

        # the documents tree: every document (one titled only by its hostile id), opened, its chunk shown
        tree = app.query_one("#documents", KeyTree)
        assert "[b]id␛[31m⟨U+202E⟩X" in screen_text(app)
        tree.focus()
        for _ in range(len(HOSTILE_TEXTS) + 2):
            await pilot.press("j", "space", "j")
            await settle(pilot)
            assert_nothing_raw(app)

        # the per-question table: a hostile question, its hostile gold id
        text = await show_tab(pilot, "metrics")
        assert "[link=http://x]red[/link] ␛]52;c;ZXZpbA==␇" in text and "[b]id␛[31m" in text

        # the document list, the chunk map and the facts line
        text = await show_tab(pilot, "chunking")
        assert "[bold]x and [/]" in text and "and [TODO] a bold todo" in text

        # the IVF sweep on the corpus' LSA vectors, whose status names the corpus
        text = await show_tab(pilot, "index", "r")
        assert "recall@10" in text and "evil [bold]␛]0;t␇" in text

        # the prompt: shown made safe on screen, kept exact for the model
        text = await show_tab(pilot, "prompt")
        assert "hyperlink ␛]8;;http://x␛\\link" in text and "[TODO] a" in text
        retriever = app.context.workbench.retriever(app.context.setup)
        assert app.query_one(PromptPane).prompt == retriever.prompt("bold red link todo")
        assert "\x1b" in app.query_one(PromptPane).prompt

        # a hostile query sent from another tab: shown literally in the query box, then in every tab
        (await app.build_tab("metrics")).post_message(UseQuery("[bold]red[/] \x1b]0;pwned\x07 \u202eevil [link=x]"))
        await settle(pilot)
        text = screen_text(app)
        assert "[bold]red[/] ␛]0;pwned␇ ⟨U+202E⟩evil [link=x]" in text
        assert app.context.query == app.query_one(SearchPane).shown_query == app.query_one("#query").value
        assert_nothing_raw(app)
        for tab in ("2", "3", "4", "5"):
            await pilot.press("escape", tab)
            await settle(pilot)
            assert_nothing_raw(app)

        await pilot.press("f1")
        await settle(pilot)
        assert_nothing_raw(app)
        assert app.is_running


def test_hostile_snapshot(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    """The Search tab on the hostile corpus: every piece of markup and escape shown as text."""
    folder = write_hostile_corpus(tmp_path / "hostile")

    async def ask(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await search(pilot, "bold red")

    assert snap_compare(make_app(str(folder), cursor_blink=False), terminal_size=(100, 30), run_before=ask)
