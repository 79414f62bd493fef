"""Precision at k: the share of the top k that is relevant."""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def hits(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> int:
    """Relevant chunks among the top ``k`` (each id counted once: a ranking holds an id once)."""
    return sum(1 for doc in ranked[:k] if doc in relevant)


def precision(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""Relevant chunks in the top ``k``, divided by ``k``.

    $$P@k = \frac{|\{i \le k : d_i \text{ relevant}\}|}{k}$$

    The divisor is ``k`` even when fewer than ``k`` chunks were retrieved (as trec_eval and
    ranx do); ``k`` None divides by the ranking's length (0 for an empty ranking).
    """
    depth = len(ranked) if k is None else k
    return hits(ranked, relevant, k) / depth if depth else 0.0
