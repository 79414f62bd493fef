"""The app's collector policy (tui/heap.py): what finished work built is frozen, and handed back."""
from __future__ import annotations

import gc

from ranklens.engine.work.progress import no_progress
from tests.support.app import opened, until
from ranklens.tui.app import make_app
from ranklens.tui.panes.base import stage


def test_each_stage_freezes_what_the_earlier_ones_built() -> None:
    gc.unfreeze()
    stage(no_progress, 1, 2, "second")
    assert gc.get_freeze_count() > 0
    gc.unfreeze()


async def test_the_app_freezes_its_corpus_and_hands_everything_back() -> None:
    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test() as pilot:
        await opened(pilot)
        assert gc.get_freeze_count() > 0  # the corpus, once opened
        app.switch_corpus("battery")
        await until(pilot, lambda: app.context.corpus.name == "battery")
        assert gc.get_freeze_count() == 0  # studio-alfa went: its cycles may be collected
    assert gc.get_freeze_count() == 0  # the app is gone: the heap is the process's again
