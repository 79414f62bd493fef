"""The synthetic vectors of seed 004's IVF listing, reproduced bit for bit."""
from __future__ import annotations

import numpy as np


def synthetic_vectors(
    n: int = 20000, d: int = 64, nq: int = 200, topics: int = 50, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(V, Q): n corpus vectors and nq queries around ``topics`` centres, rows of norm 1.

    The random draws happen in the seed's order, so the defaults give exactly
    the seed's arrays and therefore its reference table.
    """
    rng = np.random.default_rng(seed)
    # Centres at scale 0.5 against unit noise: a deliberately weak cluster structure.
    centers = rng.standard_normal((topics, d)) * 0.5
    labels = rng.integers(0, topics, n)
    vectors = centers[labels] + rng.standard_normal((n, d))
    queries = centers[rng.integers(0, topics, nq)] + rng.standard_normal((nq, d))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return vectors, queries
