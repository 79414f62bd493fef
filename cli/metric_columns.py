"""Eval's metrics as the command line's tables print them: a column per metric of the metric table.

The columns, their headers, which are counts ("10/15") and the notes under the tables
come from ``engine/measuring/metric_table.py``; ``eval``, ``eval --rerank``, ``compare-scorers`` and
``sweep chunks`` print them after their own first columns.
"""
from __future__ import annotations

from collections.abc import Mapping

from ranklens.cli.output import say
from ranklens.engine.measuring.metric_table import EvalMetric, eval_metrics

# A count's column fits "9999/9999", a fraction's " 0.786"; a longer header widens its column.
_COUNT_WIDTH = 9
_FRACTION_WIDTH = 6


def _width(metric: EvalMetric) -> int:
    return max(len(metric.header) + 1, _COUNT_WIDTH if metric.counted else _FRACTION_WIDTH)


def metric_headers() -> str:
    """The metrics' headers, right-aligned over their columns."""
    return " ".join(f"{m.header:>{_width(m)}}" for m in eval_metrics())


def metric_cells(metrics: Mapping[str, float], questions: int) -> str:
    """One evaluation's metrics (``Evaluation.metrics``) over ``questions`` questions, under the headers."""
    return " ".join(f"{m.text(metrics[m.key], questions):>{_width(m)}}" for m in eval_metrics())


def say_metric_notes() -> None:
    """What the metrics' entries say under a table (MRR is uncut)."""
    for metric in eval_metrics():
        if metric.note:
            say(metric.note)
