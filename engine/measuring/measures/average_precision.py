"""Average precision: precision at each relevant chunk, averaged over all relevant chunks."""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def average_precision(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""The mean over the question's relevant chunks of P@rank at each one found in the top ``k``.

    $$\operatorname{AP}@k = \frac{1}{|\text{relevant}|}\sum_{i \le k,\ d_i \text{ relevant}} P@i$$

    A relevant chunk not retrieved (or beyond ``k``) adds 0, so the divisor is every relevant
    chunk, found or not. Averaged over questions it is MAP.
    """
    if not relevant:
        return 0.0
    found = 0
    total = 0.0
    for i, doc in enumerate(ranked[:k], 1):
        if doc in relevant:
            found += 1
            total += found / i
    return total / len(relevant)
