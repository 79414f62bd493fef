"""The Metrics tab with a reranker in the setup: the reranked ranking beside the first stage, reranked in a
worker that reports, stops on Escape, is not redone needlessly, and fails in one line.

The reranker here is a stand-in loaded in place of a model (shorter chunks first): what is pinned is that
the tab shows ``evaluate_reranked``'s numbers. With a real cross-encoder, against ``ranklens eval --rerank``:
tests/test_neural_metrics_rerank.py.
"""
from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.neural import rerank as engine_rerank
from ranklens.engine.neural.models import Reranker
from ranklens.engine.neural.rerank import evaluate_reranked
from ranklens.tui.metric_text import metric_columns, metric_text
from ranklens.tui.panes import metrics
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.widgets.fitted_line import FittedLine
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.widgets.row_list import RowList
from ranklens.tui.widgets.work_status import WorkStatus
from tests.support.app import notifications
from tests.support.panes import PaneHarness, screen_text, settle

SIZE = (120, 36)
NAME = "shortest-first"


class ShortestFirst:
    """A reranker's predict: the shorter the chunk, the higher the score; ``gate`` holds every call until set."""

    def __init__(self) -> None:
        self.calls = 0
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls += 1
        self.gate.wait(10)
        return -np.array([len(text) for _, text in pairs], dtype=np.float64)


@pytest.fixture
def predict(monkeypatch: pytest.MonkeyPatch) -> ShortestFirst:
    predict = ShortestFirst()

    def load(name: str) -> Reranker:
        return Reranker(name, name, predict)

    monkeypatch.setattr(engine_rerank, "load_reranker", load)
    return predict


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scorers' measurements started, by the setup's scorer."""
    runs: list[str] = []
    measure = metrics.measure

    def counted(context, progress):  # noqa: ANN001, ANN202
        runs.append(context.setup.scorer)
        return measure(context, progress)

    monkeypatch.setattr(metrics, "measure", counted)
    return runs


def table_rows(app: PaneHarness) -> dict[str, list[str]]:
    table = app.query_one("#metrics-scorers", KeyTable)
    return {str(key.value): [cell.plain for cell in table.get_row(key)] for key in table.rows}


async def polled(pilot, condition: Callable[[], bool]) -> None:  # noqa: ANN001
    """Wait for ``condition`` without waiting for the workers (a worker may wait for the test, or fail)."""
    for _ in range(1500):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition still false after 30 s")


def status(app: PaneHarness) -> str:
    return app.query_one(WorkStatus).query_one("#work-message", FittedLine).text  # whole, as said


async def test_the_reranked_row_and_ranks_are_evaluate_rerankeds(predict: ShortestFirst) -> None:
    app = PaneHarness(MetricsPane, overrides={"scorer": "bm25", "rerank": NAME, "rerank_top": 4})
    expected = evaluate_reranked(app.workbench.retriever(app.context.setup))
    assert expected.reranked.metrics["mrr"] != expected.first.metrics["mrr"], "the stand-in reorders the top"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = table_rows(app)
        assert list(rows) == ["tfidf", "bm25", "rerank", "lsa", "fusion"]  # under its first stage
        assert rows["rerank"][0].strip() == f"↳ rerank {NAME} top 4"  # its first stage is the row above
        assert rows["rerank"][1:] == [metric_text(expected.reranked, key) for _, key in metric_columns()]
        assert rows["bm25"][1:] == [metric_text(expected.first.evaluation, key) for _, key in metric_columns()]
        questions = app.query_one("#metrics-questions", RowList)
        assert questions.columns[-1].label == "rerank"
        shown = [questions.row_cells(n)[-1].plain.strip() for n in range(questions.row_count)]
        assert shown == [str(r.rank) if r.rank is not None else "miss" for r in expected.reranked.per_question]
        assert f"reranked by {NAME} in " in status(app)


async def test_only_the_reranker_changing_reranks_without_measuring_the_scorers_again(
        predict: ShortestFirst, measured: list[str]) -> None:
    app = PaneHarness(MetricsPane, overrides={"scorer": "tfidf"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        plain = table_rows(app)
        assert "rerank" not in plain and measured == ["tfidf"] and predict.calls == 0
        app.change(rerank=NAME)
        await settle(pilot)
        assert "rerank" in table_rows(app) and measured == ["tfidf"]
        reranked_calls = predict.calls
        assert reranked_calls == 15  # one call per question with an answer
        app.change(rerank=None)  # off: the row goes, nothing runs
        await settle(pilot)
        assert table_rows(app) == plain and not app.query_one(MetricsPane).is_working()
        app.change(rerank=NAME)  # on again: the ranking kept, not reranked
        await settle(pilot)
        assert "rerank" in table_rows(app) and predict.calls == reranked_calls and measured == ["tfidf"]
        app.change(rerank_top=2)  # another top: reranked again, the scorers still stand
        await settle(pilot)
        assert table_rows(app)["rerank"][0].strip().endswith("top 2")
        assert predict.calls == 2 * reranked_calls and measured == ["tfidf"]
        app.change(scorer="bm25")  # another first stage: everything again
        await settle(pilot)
        assert measured == ["tfidf", "bm25"] and predict.calls == 3 * reranked_calls


async def test_escape_stops_the_reranking_keeps_the_scorers_and_r_reranks_only(
        predict: ShortestFirst, measured: list[str]) -> None:
    app = PaneHarness(MetricsPane, overrides={"scorer": "tfidf"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        predict.gate.clear()  # the first question's reranking waits
        app.change(rerank=NAME)
        await polled(pilot, lambda: predict.calls > 0)  # not `until`: it waits for the workers, this one for us
        pane = app.query_one(MetricsPane)
        assert pane.is_working() and "reranking" in status(app)
        await pilot.press("escape")
        predict.gate.set()
        await settle(pilot)
        assert predict.calls == 1, "the reranking went on after Escape"
        assert "cancelled" in status(app)
        assert list(table_rows(app)) == ["tfidf", "bm25", "lsa", "fusion"]  # the first stage stands
        await pilot.press("r")  # what is missing: the reranking, not the scorers
        await settle(pilot)
        assert "rerank" in table_rows(app) and measured == ["tfidf"] and predict.calls == 16
        await pilot.press("r")  # nothing missing: everything again
        await settle(pilot)
        assert measured == ["tfidf", "tfidf"] and predict.calls == 31


async def test_a_long_reranker_name_is_cut_so_that_every_metric_fits_at_80_columns(predict: ShortestFirst) -> None:
    long_name = "cross-encoder/mmarco-mMiniLMv2-L12-H384-v1"
    app = PaneHarness(MetricsPane, overrides={"scorer": "fusion", "rerank": long_name})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one("#metrics-scorers", KeyTable)
        assert table.virtual_size.width <= table.size.width  # no column pushed out of sight
        label, *numbers = table_rows(app)["rerank"]
        assert label.strip().startswith("↳ rerank mmarco") and label.strip().endswith("…")
        lines = screen_text(app).splitlines()
        assert any(line.rstrip().endswith(numbers[-1]) and "rerank mmarco" in line for line in lines)


@pytest.mark.parametrize("case", ["unknown name", "neural extra missing"])
async def test_a_reranker_that_cannot_load_is_one_line_and_the_scorers_stand(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name, said = "no-such-reranker", "not in the local model cache"
    if importlib.util.find_spec("sentence_transformers") is None:  # the base install: the extra is missing anyway
        said = "needs the neural extra"
    if case == "neural extra missing":
        name, said = str(tmp_path), "needs the neural extra"
        monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # its import fails
    app = PaneHarness(MetricsPane, overrides={"scorer": "tfidf", "rerank": name})
    async with app.run_test(size=SIZE) as pilot:
        # settle would raise the worker's error; the notification arrives by message, after the status line
        await polled(pilot, lambda: "reranking failed" in status(app) and any(name in n for n in notifications(app)))
        assert list(table_rows(app)) == ["tfidf", "bm25", "lsa", "fusion"]
        assert table_rows(app)["tfidf"][3] == "0.786"  # seed 004's MRR: the first stage is whole
        assert status(app).startswith("15 questions, 4 scorers; r re-runs · reranking failed: ")
        assert said in status(app)  # why, after the notification has faded
        told = [n for n in notifications(app) if name in n]
        assert len(told) == 1 and said in told[0] and "\n" not in told[0], notifications(app)
        assert app.is_running
