"""P'@k: precision at k of the ranking with its unjudged chunks removed (Sakai's condensed list)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ranklens.engine.measuring.measures.condensed import condensed
from ranklens.engine.measuring.measures.precision import precision
from ranklens.engine.measuring.measures.relevant import relevant_only


def precision_prime(ranked: Sequence[str], grades: Mapping[str, int], k: int | None = None) -> float:
    r"""P@k (``precision``) of ``condensed(ranked, grades)``: relevant chunks among the first ``k`` judged ones, / k.

    $$P'@k = \frac{|\{i \le k : c_i \text{ relevant}\}|}{k}, \quad
      c = \langle d \in \text{ranked} : d \text{ judged}\rangle$$

    The divisor stays ``k`` when fewer than ``k`` judged chunks were retrieved, as P@k's does.
    """
    return precision(condensed(ranked, grades), relevant_only(grades), k)
