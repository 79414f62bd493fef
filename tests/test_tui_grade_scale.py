"""The digits that grade in the Search tab's judge mode follow the corpus' scale (issue 32, section 5): on a
corpus whose qrels grade up to 4 (Cranfield's scale), 4 grades; on the lesson corpus (0-3) it grades nothing.
Judge mode's footer says the scale (it read "0-3" on a corpus whose ranklens.toml declares max_grade 4), and a
digit above it says the scale in a notification (it did nothing). Oracle: the workspace's judgments as the engine
reads them back, the screen's last line at 80x24 and the notifications shown."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app import name_rater, notifications, running, screen_text, search, settle
from tests.support.files import beir_folder

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def graded_to_four(folder: Path) -> str:
    records = [{"_id": f"c{i}", "title": "", "text": text} for i, text in
               enumerate(["shock waves on swept wings", "heat transfer in slabs", "boundary layer on a plate"])]
    queries = [{"_id": "q1", "text": "swept wings"}, {"_id": "q2", "text": "heat slabs"}]
    return str(beir_folder(folder, records, queries, "q1\tc0\t4\nq2\tc1\t1\n"))


async def test_four_grades_on_a_corpus_graded_to_four(tmp_path: Path) -> None:
    async with running(graded_to_four(tmp_path / "graded"), size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, "boundary layer")
        await pilot.press("escape", "J", "4")
        await name_rater(pilot)
        top = pane._rows[0].hit.chunk.id
        assert app.context.workspace.max_grade == 4
        assert app.context.workspace.judgments() == {"w1": {top: 4}}


async def test_four_grades_nothing_on_a_corpus_graded_to_three() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await search(pilot, "rimborso taxi aeroporto")
        await pilot.press("escape", "J", "4")
        await settle(pilot)
        assert app.context.workspace.max_grade == 3
        assert not app.context.workspace.log_path.exists()
        assert app.query_one("#tabs").active == "search"  # judge mode's digits never switch tabs


def declared_to_four(folder: Path) -> str:
    """A corpus whose qrels grade 0-1 and whose ranklens.toml declares the scale 0-4."""
    corpus = beir_folder(folder, [{"_id": "c0", "title": "", "text": "shock waves on swept wings"}],
                         [{"_id": "q1", "text": "swept wings"}], "q1\tc0\t1\n")
    (corpus / "ranklens.toml").write_text("max_grade = 4\n", encoding="utf-8")
    return str(corpus)


@pytest.mark.parametrize("declared, top", [(False, 3), (True, 4)])
async def test_judge_modes_footer_says_the_scale_and_a_digit_above_it_says_so(tmp_path: Path, declared: bool,
                                                                               top: int) -> None:
    corpus = declared_to_four(tmp_path / "declared") if declared else "studio-alfa"
    async with running(corpus, size=SIZE) as pilot:
        app = pilot.app
        assert app.context.workspace.max_grade == top
        await search(pilot, "swept wings" if declared else "rimborso taxi aeroporto")
        await pilot.press("escape", "J")
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1].replace("▏", " ") + " "
        assert f" 0-{top} grade " in footer, footer
        above = str(top + 1)
        await pilot.press(above)
        await settle(pilot)
        assert f"{above} is no grade of this corpus: its scale is 0-{top}" in notifications(app)
        assert not app.context.workspace.log_path.exists()  # nothing judged
        assert app.query_one("#tabs").active == "search"  # the digit never switched tabs either
