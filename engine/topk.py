"""Top-k selection with argpartition, ordered like a stable descending sort.

Ties are broken by the lower chunk index, exactly as
``np.argsort(-scores, kind="stable")[:k]`` would, without sorting all N.
"""
from __future__ import annotations

import numpy as np

_SAMPLE_STEP = 64  # large inputs: a strided sample bounds the k-th score from below
_SAMPLED_ABOVE = 1 << 16


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    n = scores.size
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if n >= _SAMPLED_ABOVE and k * _SAMPLE_STEP < n:
        return _top_k_sampled(scores, k)
    return _top_k_exact(scores, k)


def _top_k_exact(scores: np.ndarray, k: int) -> np.ndarray:
    if k >= scores.size:
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, k - 1)[:k]
    cutoff = scores[part].min()
    above = np.flatnonzero(scores > cutoff)
    at = np.flatnonzero(scores == cutoff)[: k - above.size]
    chosen = np.concatenate((above, at))
    return chosen[np.lexsort((chosen, -scores[chosen]))]


def _top_k_sampled(scores: np.ndarray, k: int) -> np.ndarray:
    """The k-th best of every 64th score is at most the true k-th best, so every chunk
    of the top k scores at least that much: partition only those (ids stay ascending,
    which keeps the tie order)."""
    sample = scores[::_SAMPLE_STEP]
    floor = np.partition(sample, sample.size - k)[sample.size - k]
    candidates = np.flatnonzero(scores >= floor)
    return candidates[_top_k_exact(scores[candidates], k)]
