"""Without the neural extra (issue 20, item 7): s skips the dense scorer and says why, the palette says why on
the entries that need the extra before they are chosen, and a reranker typed anyway is refused with the first
stage's results left on screen. The suite runs without the extra, so this path is tested as it is."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from textual.command import CommandPalette

from ranklens.tui.panes.search import SearchPane
from ranklens.tui.setting_text import setting_title
from ranklens.tui.widgets.lists import KeyTable
from tests.support.app import answer, notifications, running, screen_text, search, settle, until

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is not None for m in ("model2vec", "sentence_transformers", "wordllama")),
    reason="the neural extra (or part of it) is installed: this is the path without it")
EXTRA = "needs the neural extra: pip install 'ranklens[neural]'"
QUERY = "ferie giorni"


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))


def rows(pane: SearchPane) -> int:
    return pane.query_one("#results", KeyTable).row_count


async def test_the_palette_says_why_before_a_reranker_typed_anyway_leaves_the_first_stage_and_s_skips_dense() -> None:
    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        pane = await search(pilot, QUERY)
        before = [pane._rows[i].hit.chunk.id for i in range(5)]
        helps = {command.name: command.help for command in app.palette_commands()}
        assert helps["Set reranker…"].startswith(f"unavailable: {EXTRA}")
        assert helps["Set dense model…"].startswith(f"unavailable: {EXTRA}")
        assert helps["Next scorer"].endswith(f"skips dense: {EXTRA}")
        assert not helps[f"Set {setting_title('rrf_k')}…"].startswith("unavailable")  # a setting that can run

        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"set reranker")
        await pilot.pause(0.3)
        assert "unavailable: needs the neural extra" in screen_text(app)  # said on the entry itself
        await pilot.press("enter")
        await answer(pilot, "cross-encoder/ms-marco-MiniLM-L-6-v2")
        await settle(pilot)
        assert app.context.setup.rerank is None
        assert f"the reranker {EXTRA}; the setup stays" in notifications(app)
        assert [pane._rows[i].hit.chunk.id for i in range(5)] == before and rows(pane) == 5
        assert not app.status.is_error

        # s steps past dense and says why
        await pilot.press("escape")
        seen = []
        for _ in range(5):  # tfidf -> bm25 -> lsa -> fusion -> (dense skipped) tfidf -> bm25
            await pilot.press("s")
            said = notifications(app)  # now: a toast fades after seconds, and settling may take that long
            await settle(pilot)
            seen.append(app.context.setup.scorer)
            assert rows(pane) == 5 and not app.status.is_error
            if seen[-1] == "tfidf":  # after fusion came dense
                assert f"skipped: dense {EXTRA}" in said, said
        assert seen == ["bm25", "lsa", "fusion", "tfidf", "bm25"]
