"""Setting changes can be undone and redone, and reset to the corpus' defaults (issue 10, expected and missing)."""
from __future__ import annotations

from tests.support.app import running, settle

SIZE = (100, 30)


async def test_undo_redo_and_reset_of_settings() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "right_square_bracket", "s")
        await settle(pilot)
        setup = lambda: app.context.setup  # noqa: E731
        assert (setup().k1, setup().scorer) == (1.3, "bm25")
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert (setup().k1, setup().scorer) == (1.3, "tfidf")
        assert any("undone" in n.message and "scorer" in n.message for n in app._notifications)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert setup().k1 == 1.2
        await pilot.press("ctrl+z")  # nothing left: says so
        await pilot.pause()
        assert any("nothing to undo" in n.message for n in app._notifications)
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert setup().k1 == 1.3
        await pilot.press("a", "R")  # fold accents on, then back to what the corpus says
        await settle(pilot)
        assert (setup().k1, setup().fold_accents, setup().scorer) == (1.2, False, "tfidf")
        assert any("reset" in n.message for n in app._notifications)
        await pilot.press("ctrl+z")  # a reset is undone like any change
        await settle(pilot)
        assert (setup().k1, setup().fold_accents) == (1.3, True)
