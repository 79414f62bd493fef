"""Top-k selection with argpartition, ordered like a stable descending sort.

Ties are broken by the lower chunk index, exactly as
``np.argsort(-scores, kind="stable")[:k]`` would, without sorting all N.
"""
from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    n = scores.size
    if k >= n:
        return np.argsort(-scores, kind="stable")
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k]
    cutoff = scores[part].min()
    above = np.flatnonzero(scores > cutoff)
    at = np.flatnonzero(scores == cutoff)[: k - above.size]
    chosen = np.concatenate((above, at))
    return chosen[np.lexsort((chosen, -scores[chosen]))]

