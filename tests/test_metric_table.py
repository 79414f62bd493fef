"""The table of eval's metrics: a metric added in one module plus one registration line is everywhere
(eval's JSON, the command line's table, the Metrics tab); the one nDCG; which MRR is cut."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.engine.measuring.measures import measure_run
from ranklens.engine.measuring.measures.ndcg import ndcg, ndcg_rows
from ranklens.engine.measuring.metric_table import eval_metrics, registered_metric
from ranklens.engine.measuring.metrics import QuestionScores, evaluate
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.widgets.lists import KeyTable
from tests.support.cli import run_cli
from tests.support.panes import PaneHarness, settle
from tests.support.toy_metric import METRIC

# Seed 004's TF-IDF ranks on studio-alfa; each question has one relevant passage, so 13 of them
# (rank <= 3) put one relevant chunk in their top 3: P@3 = 13 / (15 x 3).
SEED_TFIDF_RANKS = [1, 4, 1, 3, 2, 1, 1, 1, 1, 1, 5, 1, 2, 1, 1]
SEED_P3 = sum(1 for rank in SEED_TFIDF_RANKS if rank <= 3) / (3 * len(SEED_TFIDF_RANKS))


@pytest.fixture()
def p3():
    with registered_metric(METRIC) as metric:
        yield metric


EIGHT = ["hit@1", "hit@3", "mrr", "ndcg@10", "recall@10", "span_recall@10", "span_precision@10", "span_iou@10"]


def test_the_table_lists_eval_s_eight_in_their_json_order() -> None:
    assert [(m.key, m.header) for m in eval_metrics()] == [
        ("hit@1", "hit@1"), ("hit@3", "hit@3"), ("mrr", "MRR"), ("ndcg@10", "nDCG@10"), ("recall@10", "recall@10"),
        ("span_recall@10", "sRec@10"), ("span_precision@10", "sPrec@10"), ("span_iou@10", "IoU@10")]


def test_a_registered_metric_is_in_eval_s_json(capsys, p3) -> None:
    data = run_cli(capsys, "eval", "studio-alfa", "--json").json
    assert list(data["metrics"]) == [*EIGHT, "p@3"]
    assert data["metrics"]["p@3"] == pytest.approx(SEED_P3)
    assert f"{data['metrics']['mrr']:.3f}" == "0.786"  # the others unchanged
    assert list(data["per_question"][0]) == ["id", "text", "rank", "full_rank", "recall@10", "ndcg@10"]


def test_a_registered_metric_is_a_column_of_the_eval_table(capsys, p3) -> None:
    lines = run_cli(capsys, "eval", "studio-alfa").out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["hit@1"])
    assert lines[header].split() == ["hit@1", "hit@3", "MRR", "nDCG@10", "recall@10", "sRec@10", "sPrec@10",
                                     "IoU@10", "P@3"]
    # sPrec, IoU@10: Chroma's scores (tests/support/chroma_evaluation.py) over each question's retrieved chunks in
    # scikit-learn's TF-IDF top 10 (a score above 0: 5 questions retrieve 7 to 9 chunks), worked out apart: 0.1056
    assert lines[header + 1].split() == ["10/15", "13/15", "0.786", "0.839", "1.000", "1.000", "0.106", "0.106",
                                         f"{SEED_P3:.3f}"]
    assert lines[header].endswith("P@3") and lines[header + 1].endswith(f"{SEED_P3:.3f}")  # aligned under it


def test_a_registered_metric_is_a_column_of_compare_scorers(capsys, p3) -> None:
    out = run_cli(capsys, "compare-scorers", "studio-alfa").out
    assert out.splitlines()[1].split()[-1] == "P@3"
    assert run_cli(capsys, "compare-scorers", "studio-alfa", "--json").json["scorers"][0]["metrics"]["p@3"] == (
        pytest.approx(SEED_P3))


async def test_a_registered_metric_is_a_column_of_the_metrics_tab(p3) -> None:
    app = PaneHarness(MetricsPane)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = app.query_one("#metrics-scorers", KeyTable)
        assert [column.label.plain.strip() for column in table.columns.values()][-1] == "P@3"
        assert table.get_row("tfidf")[-1].plain.strip() == f"{SEED_P3:.3f}"


def test_eval_s_mrr_is_uncut_and_the_measure_mrr_at_10_is_cut() -> None:
    """A question whose one relevant chunk ranks 12th: eval's MRR counts 1/12, MRR@10 nothing."""
    scores = np.linspace(1.0, 0.0, 20)
    scores[[11, 0]] = scores[[0, 11]]  # chunk 0 now ranks 12th
    evaluation = evaluate([QuestionScores("q", "q", scores, np.array([0]))])
    assert evaluation.metrics["mrr"] == pytest.approx(1 / 12)
    ranked = [str(i) for i in np.argsort(-scores, kind="stable")]
    measured = measure_run({"q": ranked}, {"q": {"0": 1}}, "MRR@10 MRR").means
    assert measured == {"MRR@10": 0.0, "MRR": pytest.approx(1 / 12)}


def test_the_eval_tables_say_mrr_is_uncut(capsys) -> None:
    out = run_cli(capsys, "eval", "studio-alfa").out
    assert "MRR uncut: the full rank counts (runs' and compare's MRR@10 stop at 10)" in out


def test_the_two_evaluations_of_ndcg_agree_with_a_hand_computation() -> None:
    """The measures' nDCG (plain Python) and eval's and the fusion sweep's (ndcg_rows) are one definition."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(8, 30))
        judged = int(rng.integers(1, 8))
        relevant = {str(i): int(g) for i, g in zip(rng.choice(n, judged, replace=False), rng.integers(1, 4, judged))}
        ranked = [str(i) for i in rng.permutation(n)]
        k = int(rng.integers(1, 12))
        gains = [relevant.get(doc, 0) for doc in ranked]
        ideal = sorted(relevant.values(), reverse=True)
        by_hand = (sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))
                   / sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k])))
        rows = ndcg_rows(np.array([gains], dtype=float), np.array(list(relevant.values()), dtype=float), k)
        assert ndcg(ranked, relevant, k) == pytest.approx(by_hand, abs=1e-12)
        assert rows[0] == pytest.approx(by_hand, abs=1e-12)
