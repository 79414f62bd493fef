"""The digits that grade in the Search tab's judge mode follow the corpus' scale (issue 32, section 5): on a
corpus whose qrels grade up to 4 (Cranfield's scale), 4 grades; on the lesson corpus (0-3) it grades nothing.
Oracle: the workspace's judgments as the engine reads them back."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app import name_rater, running, search, settle
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
