"""Retrieval metrics as the tables show them: counts next to fractions.

The lesson reports hits as counts ("hit@1 = 10/15"), the engine as fractions;
the tables show both so either can be checked against the seed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

# The rule for "better" belongs to the experiments; the tables read it from there.
from ranklens.engine.experiments.common import ranking

if TYPE_CHECKING:  # the engine's metrics load numpy, which the first paint must not wait for
    from ranklens.engine.metrics import Evaluation

__all__ = ["COUNTED", "hits", "metric_columns", "metric_text", "ranking"]

# Hits are whole questions, so they read best as counts; the rest are averages.
COUNTED = frozenset({"hit@1", "hit@3"})


def metric_columns() -> tuple[tuple[str, str], ...]:
    """(header, key in ``Evaluation.metrics``) of each metric column, in table order.

    A function rather than a constant because the cut-offs live in
    engine.metrics (numpy); callers show an evaluation, so it is loaded by then.
    """
    from ranklens.engine.metrics import NDCG_K, RECALL_K

    return (("hit@1", "hit@1"), ("hit@3", "hit@3"), ("MRR", "mrr"),
            (f"nDCG@{NDCG_K}", f"ndcg@{NDCG_K}"), (f"recall@{RECALL_K}", f"recall@{RECALL_K}"))


def hits(evaluation: Evaluation, key: str) -> int:
    """How many questions a hit@k fraction stands for."""
    return round(evaluation.metrics[key] * len(evaluation.per_question))


def metric_text(evaluation: Evaluation, key: str, compact: bool = False) -> str:
    """``10/15 0.667`` for a hit rate (``10/15`` when ``compact``), ``0.786`` for the others."""
    value = evaluation.metrics[key]
    if key in COUNTED and compact:
        return f"{hits(evaluation, key)}/{len(evaluation.per_question)}"
    if key in COUNTED:
        return f"{hits(evaluation, key)}/{len(evaluation.per_question)} {value:.3f}"
    return f"{value:.3f}"


def plural(count: int, word: str) -> str:
    """``count`` with ``word``, plural unless one: "1 question", "15 questions"."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"
