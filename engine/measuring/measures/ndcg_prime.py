"""nDCG'@k: nDCG@k of the ranking with its unjudged chunks removed (Sakai's condensed list)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ranklens.engine.measuring.measures.condensed import condensed
from ranklens.engine.measuring.measures.ndcg import ndcg
from ranklens.engine.measuring.measures.relevant import relevant_only


def ndcg_prime(ranked: Sequence[str], grades: Mapping[str, int], k: int | None = None) -> float:
    r"""nDCG@k (``ndcg``: linear gain, log2(rank + 1) discount) of ``condensed(ranked, grades)``.

    $$\operatorname{nDCG'}@k = \operatorname{nDCG}@k(\langle d \in \text{ranked} : d \text{ judged}\rangle)$$

    ``grades`` holds every judged id (grade 0: judged not relevant); the unjudged ones are dropped
    before ranks are counted, so a judged chunk at rank 7 behind four unjudged ones counts at rank 3.
    The ideal ranking is the same as nDCG's: the question's grades, highest first.
    """
    return ndcg(condensed(ranked, grades), relevant_only(grades), k)
