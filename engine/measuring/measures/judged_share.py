"""Judged@k: how much of the top k has a judgment, relevant or not (a measure of coverage, not quality)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ranklens.engine.measuring.measures.precision import precision


def judged_share(ranked: Sequence[str], grades: Mapping[str, int], k: int | None = None) -> float:
    r"""Chunks of the top ``k`` with a judgment (any grade, 0 included), divided by ``k``.

    $$\operatorname{judged}@k = \frac{|\{i \le k : d_i \text{ judged}\}|}{k}$$

    ir_measures' ``Judged@k``: P@k with every judged chunk counted as a hit, so the divisor is
    ``k`` even when fewer than ``k`` chunks were retrieved. ``grades`` holds every judged id
    ({id: grade}, grade 0 judged not relevant); ids not in it are unjudged. A low judged@k says
    the other measures of the same top k rest on guesses: unjudged chunks count as not relevant.
    """
    return precision(ranked, grades, k)
