"""Success (hit): is anything relevant in the top k?"""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def success(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""1 when a relevant chunk is among the top ``k``, else 0 (ranx's ``hit_rate``, ir_measures' ``Success``).

    $$\operatorname{hit}@k = [\exists\, i \le k : d_i \text{ relevant}]$$
    """
    return 1.0 if any(doc in relevant for doc in ranked[:k]) else 0.0
