"""Snapshots of the app shell, the Search tab and the Prompt tab at 80x24 and 120x36.

Deterministic: the cursor does not blink (make_app(cursor_blink=False)), every
worker has finished before the picture is taken, and these screens show no
timings. Regenerate with ``pytest tests/test_tui_snapshots.py --snapshot-update``
and look at the report before accepting a change.
"""
from __future__ import annotations

import pytest

from tests.support.app import opened, running, search, settle
from ranklens.tui.app import make_app

SIZES = [(80, 24), (120, 36)]
QUESTION = "come cambio la password"


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x36"])
def test_shell(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The Search tab as it opens: documents, an empty query box, the hint."""
    assert snap_compare(make_app("studio-alfa", cursor_blink=False), terminal_size=size, run_before=opened)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x36"])
def test_search_after_a_query(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    async def ask(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await search(pilot, QUESTION)

    assert snap_compare(make_app("studio-alfa", cursor_blink=False), terminal_size=size, run_before=ask)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x36"])
def test_search_bm25_second_result(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    """BM25 on the setup line, the cursor on the second result and its explanation."""
    async def ask(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await search(pilot, "ho perso il cellulare con i codici")
        await pilot.press("escape", "s", "j")
        await settle(pilot)

    assert snap_compare(make_app("studio-alfa", cursor_blink=False), terminal_size=size, run_before=ask)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x36"])
def test_prompt_tab(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    async def ask(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await search(pilot, "ho cancellato un file per sbaglio")
        await pilot.press("escape", "5")
        await settle(pilot)

    assert snap_compare(make_app("studio-alfa", {"k": 2}, cursor_blink=False), terminal_size=size, run_before=ask)


def test_help_screen(snap_compare) -> None:  # noqa: ANN001
    async def open_help(pilot) -> None:  # noqa: ANN001
        await opened(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(make_app("studio-alfa", cursor_blink=False), terminal_size=(80, 24), run_before=open_help)


async def test_the_snapshot_query_shows_scikit_learns_ranking() -> None:
    """The numbers in the search snapshots, worked out apart from ranklens: scikit-learn's TF-IDF cosines."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.tui.widgets.lists import KeyTable

    corpus = load_corpus("studio-alfa")
    vectorizer = TfidfVectorizer()
    cosines = (vectorizer.fit_transform([c.text for c in corpus.chunks]) @ vectorizer.transform([QUESTION]).T)
    cosines = cosines.toarray().ravel()
    async with running(size=(120, 36)) as pilot:
        app = pilot.app
        await search(pilot, QUESTION)
        best = np.argsort(-cosines, kind="stable")[:app.context.setup.k]
        table = app.query_one("#results", KeyTable)
        shown = [[cell.plain for cell in table.get_row_at(r)] for r in range(table.row_count)]
        assert [row[2] for row in shown] == [f"{cosines[i]:.3f}" for i in best]
        assert [row[3] for row in shown] == [corpus.document(corpus.chunks[i].doc_id).title for i in best]
