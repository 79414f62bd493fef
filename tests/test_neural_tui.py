"""The TUI with a dense scorer: encoding shows chunks/s where the work runs, the Index tab sweeps the model's vectors.

The model is a tiny model2vec static model made here (tests/support/tiny_models.py).
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("model2vec", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.tui.panes.index import IndexPane  # noqa: E402
from ranklens.tui.widgets import work_status  # noqa: E402
from ranklens.tui.widgets.work_status import WorkStatus  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.support.panes import PaneHarness, settle  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.static_model(tmp_path_factory.mktemp("models") / "tiny-static")


async def test_the_index_tab_encodes_with_progress_and_sweeps_the_dense_vectors(model: Path, monkeypatch,
                                                                              tmp_path: Path) -> None:
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path))  # no embeddings from an earlier run
    monkeypatch.setattr(work_status, "UPDATE_EVERY_S", 0.0)  # every report reaches the line, however fast
    shown: list[str] = []
    say = WorkStatus._say
    monkeypatch.setattr(WorkStatus, "_say", lambda self, text: (shown.append(text), say(self, text))[1])
    app = PaneHarness(IndexPane, overrides={"scorer": "dense", "model": str(model)})
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "dense" in str(app.query_one("#ivf-source").render())
        await pilot.press("r")
        await settle(pilot)
        assert any(f"vectors: loading model {model}" in text for text in shown)
        assert any("vectors: encoding chunks (" in text and "chunks/s)" in text for text in shown), shown
        pane = app.query_one(IndexPane)
        assert pane.result is not None and pane.result[0].source == "studio-alfa dense tiny-static"
        assert pane.result[0].dims == 16 and pane.result[0].vectors == 18  # the model's vectors, not LSA's
