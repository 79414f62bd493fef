"""Reciprocal rank: how soon the first relevant chunk comes."""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def reciprocal_rank(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""1 / rank of the first relevant chunk within the top ``k``, 0 when none is there.

    $$\operatorname{RR}@k = \frac{1}{\min\{i \le k : d_i \text{ relevant}\}}$$

    ``ranked`` is the ranking, best first; ``relevant`` maps the relevant ids (grade >= 1)
    to their grades; ``k`` None reads the whole ranking. Averaged over questions it is MRR@k, cut at
    k (eval's ``mrr``, in ``engine/measuring/metric_table.py``, reads the full rank and is never cut).
    """
    for i, doc in enumerate(ranked[:k], 1):
        if doc in relevant:
            return 1.0 / i
    return 0.0
