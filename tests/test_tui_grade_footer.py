"""Judge mode's footer says the open corpus' grade scale, and a digit above it says the scale.

On a corpus whose ranklens.toml declares ``max_grade = 4`` the footer read "0-3 grade" and 5 did nothing;
on the lesson corpus (0-3) 4 did nothing either. Oracle: the screen's last line at 80x24, the notifications
shown, and the workspace's judgment log (none written by a digit off the scale).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app import notifications, running, screen_text, search, settle
from tests.support.files import beir_folder

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def declared_to_four(folder: Path) -> str:
    """A BEIR folder graded 0-1 by its qrels, whose ranklens.toml declares the scale 0-4."""
    records = [{"_id": f"c{i}", "title": "", "text": text} for i, text in
               enumerate(["shock waves on swept wings", "heat transfer in slabs", "boundary layer on a plate"])]
    queries = [{"_id": "q1", "text": "swept wings"}, {"_id": "q2", "text": "heat slabs"}]
    corpus = beir_folder(folder, records, queries, "q1\tc0\t1\nq2\tc1\t1\n")
    (corpus / "ranklens.toml").write_text("max_grade = 4\n", encoding="utf-8")
    return str(corpus)


def footer(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-1].replace("▏", " ") + " "


@pytest.mark.parametrize("corpus, top", [(None, 3), ("declared", 4)])
async def test_judge_modes_footer_says_the_scale_and_a_digit_above_it_says_so(tmp_path: Path, corpus: str | None,
                                                                               top: int) -> None:
    name = declared_to_four(tmp_path / "graded") if corpus else "studio-alfa"
    async with running(name, size=SIZE) as pilot:
        app = pilot.app
        assert app.context.workspace.max_grade == top
        await search(pilot, "swept wings boundary" if corpus else "rimborso taxi aeroporto")
        await pilot.press("escape", "J")
        await settle(pilot)
        assert f" 0-{top} grade " in footer(app), footer(app)
        above = str(top + 1)
        await pilot.press(above)
        await settle(pilot)
        assert f"{above} is no grade of this corpus: its scale is 0-{top}" in notifications(app)
        assert not app.context.workspace.log_path.exists()  # nothing judged
        assert app.query_one("#tabs").active == "search"  # the digit never switched tabs either
