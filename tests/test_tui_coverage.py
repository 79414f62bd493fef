"""The Compare tab warns under the measures when a side's top 10 is less than 80 % judged, as `compare` does,
and says nothing for a fully judged pair."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

from ranklens.tui.panes.compare import ComparePane
from tests.support.app import running, screen_text, settle
from tests.support.cli import run_cli
from tests.support.coverage import judged_corpus

WARNING = "a difference may come from unjudged chunks"


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.mark.parametrize("fully", [False, True])
async def test_the_compare_tab_warns_when_the_runs_top_10_is_sparsely_judged(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, fully: bool) -> None:
    corpus = judged_corpus(tmp_path / ("full" if fully else "sparse"), fully)
    for scorer in ("bm25", "tfidf"):
        assert run_cli(capsys, "run", str(corpus), "--scorer", scorer, "--save", scorer).status == 0
    said = run_cli(capsys, "compare", str(corpus), "bm25", "tfidf", "--json").json["coverage"]["warning"]
    async with running(str(corpus), size=(120, 30)) as pilot:  # the warning on one line
        app = pilot.app
        await pilot.press("escape", "6")
        await settle(pilot)
        app.query_one("#compare-a", Select).value = "bm25"
        app.query_one("#compare-b", Select).value = "tfidf"
        await settle(pilot)
        assert app.query_one(ComparePane).comparison is not None
        measures = screen_text(app)
        if fully:
            assert said is None and WARNING not in measures
        else:
            assert said.startswith("A's top 10 is 10 % judged, B's 10 %")
            assert f"⚠ {said}" in measures
