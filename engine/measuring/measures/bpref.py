"""Bpref (Buckley and Voorhees 2004): how often judged relevant chunks come before judged non-relevant ones."""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def bpref(ranked: Sequence[str], grades: Mapping[str, int], k: int | None = None) -> float:
    r"""The mean over the R relevant chunks of the share of judged non-relevant ones not ranked above it.

    $$\operatorname{bpref} = \frac{1}{R}\sum_{r \text{ relevant retrieved}}
      \left(1 - \frac{\min(|n \text{ ranked above } r|,\ R)}{\min(R,\ N)}\right)$$

    R counts the question's chunks judged relevant (grade >= 1), N those judged not relevant
    (grade <= 0), and ``n`` the judged non-relevant chunks of the ranking. Unjudged chunks are
    passed over: they are neither relevant nor non-relevant. This is trec_eval's ``bpref``
    (``m_bpref.c``) to the letter: a relevant chunk with no judged non-relevant chunk above it
    adds 1 (also when N is 0), relevant chunks not retrieved add 0. Takes no cut-off: ``k`` is ignored.
    """
    relevant = sum(1 for grade in grades.values() if grade >= 1)
    if not relevant:
        return 0.0
    denominator = min(relevant, len(grades) - relevant)
    above = 0  # judged non-relevant chunks ranked so far
    total = 0.0
    for doc in ranked:
        grade = grades.get(doc)
        if grade is None:
            continue
        if grade >= 1:
            total += 1.0 - min(above, relevant) / denominator if above else 1.0
        else:
            above += 1
    return total / relevant
