"""Dense vectors: an encoder turns texts into vectors compared by cosine.

LSA is the encoder ranklens ships (no model download). The IVF sweep takes
any ``Encoder`` with its chunk vectors (``engine.vectors.encoder_set``), so a
neural encoder plugs in there by implementing this protocol.
"""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np


class Encoder(Protocol):
    name: str
    vectors: np.ndarray  # the corpus' chunks, encoded, unit rows

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text."""
        ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to norm 1 (plus 1e-12, as the lesson's cosine), so a dot product is a cosine."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / (norms + 1e-12)
