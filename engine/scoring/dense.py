"""Dense scoring: any encoder that turns texts into vectors, compared by cosine.

LSA is the encoder ranklens ships (no model download); a neural encoder only
has to implement ``Encoder`` to be scored, fused and put behind an IVF index.
"""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np


class Encoder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text."""
        ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to norm 1 (plus 1e-12, as the lesson's cosine), so a dot product is a cosine."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / (norms + 1e-12)
