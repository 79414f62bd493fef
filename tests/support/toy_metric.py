"""An eval metric written the way a plug-in author would: its value in one module, registered by one line.

Precision at 3: the share of a question's top 3 chunks that are relevant, averaged over the questions.
"""
from __future__ import annotations

from ranklens.engine.measuring.metric_table import EvalMetric, Ranked


def precision_at_3(question: Ranked) -> float:
    return int((question.gains[:3] > 0).sum()) / 3


METRIC = EvalMetric("p@3", "P@3", "the share of the top 3 chunks that are relevant", precision_at_3, k=3)
