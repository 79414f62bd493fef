"""Eval's metrics as the tables show them: counts next to fractions, in the columns of the metric table.

The lesson reports hits as counts ("hit@1 = 10/15"), the engine as fractions;
the tables show both so either can be checked against the seed. The columns, their
headers and which are counts come from ``engine/measuring/metric_table.py``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.engine.measuring.metric_table import eval_metrics, metric

# The rule for "better" belongs to the experiments; the tables read it from there.
from ranklens.engine.experiments.common import ranking

if TYPE_CHECKING:  # the engine's metrics load numpy, which the first paint must not wait for
    from ranklens.engine.measuring.metrics import Evaluation

__all__ = ["hits", "metric_columns", "metric_text", "plural", "ranking"]


def metric_columns() -> tuple[tuple[str, str], ...]:
    """(header, key in ``Evaluation.metrics``) of each metric column, in table order."""
    return tuple((m.header, m.key) for m in eval_metrics())


def hits(evaluation: Evaluation, key: str) -> int:
    """How many questions a hit@k fraction stands for."""
    return round(evaluation.metrics[key] * len(evaluation.per_question))


def metric_text(evaluation: Evaluation, key: str, compact: bool = False) -> str:
    """``10/15 0.667`` for a counted metric such as hit@1 (``10/15`` when ``compact``), ``0.786`` for the others."""
    value, shown = evaluation.metrics[key], metric(key)
    text = shown.text(value, len(evaluation.per_question))
    return f"{text} {value:.3f}" if shown.counted and not compact else text


def plural(count: int, word: str) -> str:
    """``count`` with ``word``, plural unless one: "1 question", "15 questions"."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"
