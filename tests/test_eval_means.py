"""eval's metrics are means over every answerable question, the never-retrieved ones included (as 0).

Three questions worked out by hand: one whose only relevant chunk ranks first, one whose relevant
chunk ranks 12th (in no top 10), and one whose relevant chunks are no chunk of this chunking (an
answer span cut by chunking), which ``evaluate`` is handed with nothing relevant.
"""
from __future__ import annotations

import numpy as np
import pytest

from ranklens.engine.measuring.metrics import QuestionScores, evaluate

N = 18
SCORES = np.linspace(1.0, 0.1, N)  # chunk i ranks i + 1


def test_never_retrieved_questions_count_as_zero_in_every_mean() -> None:
    evaluation = evaluate([
        QuestionScores("first", "t", SCORES, np.array([0])),
        QuestionScores("twelfth", "t", SCORES, np.array([11])),
        QuestionScores("cut", "t", SCORES, np.array([], dtype=int)),
    ])
    assert [r.rank for r in evaluation.per_question] == [1, 12, None]
    assert evaluation.metrics == pytest.approx({
        "hit@1": 1 / 3, "hit@3": 1 / 3, "mrr": (1 + 1 / 12) / 3, "ndcg@10": 1 / 3, "recall@10": 1 / 3,
        "span_recall@10": 0, "span_precision@10": 0, "span_iou@10": 0})  # no relevant text was handed in


def test_a_question_with_nothing_relevant_still_weighs() -> None:
    only = evaluate([QuestionScores("first", "t", SCORES, np.array([0]))]).metrics
    with_cut = evaluate([QuestionScores("first", "t", SCORES, np.array([0])),
                         QuestionScores("cut", "t", SCORES, np.array([], dtype=int))]).metrics
    assert only["ndcg@10"] == 1.0 and with_cut["ndcg@10"] == pytest.approx(0.5)
