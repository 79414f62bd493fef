"""Normalised discounted cumulative gain, graded, with linear gain."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def dcg(gains: Sequence[float], k: int | None = None) -> float:
    r"""$\sum_{i \le k} g_i / \log_2(i + 1)$ for gains listed best rank first."""
    return sum(gain / math.log2(i + 1) for i, gain in enumerate(gains[:k], 1) if gain)


def ndcg(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""DCG of the top ``k`` divided by the DCG of the ideal top ``k`` (Järvelin and Kekäläinen).

    $$\operatorname{nDCG}@k = \frac{\sum_{i \le k} \operatorname{rel}_i / \log_2(i+1)}
      {\sum_{i \le k} \operatorname{rel}^*_i / \log_2(i+1)}$$

    The gain is the grade itself (linear: grade 3 gains 3), as ranx's ``ndcg`` and trec_eval's
    ``ndcg_cut`` do; ranx's ``ndcg_burges`` uses 2^grade - 1 instead. ``rel*`` are the
    question's grades sorted high to low. 0 for a question with nothing relevant.
    """
    ideal = dcg(sorted(relevant.values(), reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg([relevant.get(doc, 0) for doc in ranked[:k]], k) / ideal
