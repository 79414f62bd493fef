"""Normalised discounted cumulative gain: the one definition eval, the measures and the fusion sweep use.

Its three parts, each defined once here: the **gain** of a chunk is its grade (linear:
grade 3 gains 3, as ranx's ``ndcg`` and trec_eval's ``ndcg_cut``; ranx's ``ndcg_burges``
uses 2^grade - 1 instead); the **discount** of rank i (1-based) is log2(i + 1); the
**ideal** top k is the question's gains sorted high to low, cut at k.

Two evaluations of it: ``ndcg`` in plain Python for a ranking of ids (the measures of runs,
cheap to import), and ``ndcg_rows`` with numpy for rows of gains (``eval``'s nDCG@10 and
the fusion sweep's, one question's rows at a time). They agree to rounding (1e-15): one
divides each gain by its discount, the other takes a dot product with the reciprocals.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy only in ndcg_rows: the measures stay cheap to import
    import numpy as np


def gain(grade: float) -> float:
    """A chunk's gain: its grade (linear gain)."""
    return grade


def discount(rank: int) -> float:
    """What the gain at ``rank`` (1-based) is divided by: log2(rank + 1)."""
    return math.log2(rank + 1)


def ideal_gains(grades: Iterable[float], k: int | None = None) -> list[float]:
    """The best top ``k`` a ranking could have: the gains of the question's grades, highest first."""
    return sorted(map(gain, grades), reverse=True)[:k]


def dcg(gains: Sequence[float], k: int | None = None) -> float:
    r"""$\sum_{i \le k} g_i / \log_2(i + 1)$ for gains listed best rank first."""
    return sum(g / discount(i) for i, g in enumerate(gains[:k], 1) if g)


def ndcg(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""DCG of the top ``k`` divided by the DCG of the ideal top ``k`` (Järvelin and Kekäläinen).

    $$\operatorname{nDCG}@k = \frac{\sum_{i \le k} \operatorname{rel}_i / \log_2(i+1)}
      {\sum_{i \le k} \operatorname{rel}^*_i / \log_2(i+1)}$$

    ``rel*`` are the question's grades sorted high to low (``ideal_gains``). 0 for a
    question with nothing relevant.
    """
    ideal = dcg(ideal_gains(relevant.values(), k))
    if ideal == 0:
        return 0.0
    return dcg([gain(relevant.get(doc, 0)) for doc in ranked[:k]]) / ideal


def ndcg_rows(gains: np.ndarray, grades: np.ndarray, k: int) -> np.ndarray:
    """nDCG@k of each row of ``gains`` (rankings x ranks, best first: the gain at each rank, 0 where
    nothing relevant is) for a question whose relevant chunks have ``grades`` (all > 0, at least one).

    A row narrower than ``k`` is a ranking of fewer chunks. One dot product per row: a matrix
    product may sum in another order, and eval and the fusion sweep must give the same number.
    """
    import numpy as np

    top = gains[:, :k]
    weights = _reciprocal_discounts(k)[:top.shape[1]]
    ideal = np.sort(np.asarray(grades, dtype=np.float64))[::-1][:k]  # ideal_gains, vectorised (linear gain)
    idcg = float(ideal @ _reciprocal_discounts(ideal.size))
    return np.array([float(row @ weights) for row in top]) / idcg


@functools.cache
def _reciprocal_discounts(k: int) -> np.ndarray:
    """1 / discount(rank) of ranks 1..k, vectorised (kept per k: eval asks for it twice a question)."""
    import numpy as np

    weights = 1.0 / np.log2(np.arange(2, k + 2))
    weights.flags.writeable = False  # shared by every caller
    return weights
