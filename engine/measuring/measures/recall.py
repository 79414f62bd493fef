"""Recall at k: the share of the relevant chunks found in the top k."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ranklens.engine.measuring.measures.precision import hits


def recall(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""Relevant chunks in the top ``k``, divided by all the question's relevant chunks.

    $$R@k = \frac{|\{i \le k : d_i \text{ relevant}\}|}{|\text{relevant}|}$$
    """
    return hits(ranked, relevant, k) / len(relevant) if relevant else 0.0
