"""R-precision: precision at R, the number of relevant chunks."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ranklens.engine.measuring.measures.precision import hits


def r_precision(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> float:
    r"""Relevant chunks in the top R, divided by R, where R is the question's relevant count.

    $$\operatorname{Rprec} = \frac{|\{i \le R : d_i \text{ relevant}\}|}{R}$$

    Takes no cut-off: ``k`` is ignored. Equal to R@R and to P@R.
    """
    depth = len(relevant)
    return hits(ranked, relevant, depth) / depth if depth else 0.0
