"""Condensed lists (Sakai 2007): a ranking with its unjudged chunks removed, for the "prime" measures.

Judging a sample of what runs retrieve leaves holes: a chunk never judged counts as not
relevant, so a run that finds new chunks is penalised for what nobody looked at. Sakai's
answer is to measure the *condensed* list, the ranking with every unjudged chunk taken out
(the judged ones keep their order and move up), with the usual measure. nDCG'@k and P'@k
are nDCG@k and P@k of the condensed list.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence


def condensed(ranked: Sequence[str], grades: Mapping[str, int]) -> list[str]:
    """``ranked`` with the ids not in ``grades`` (unjudged) removed, the others in their order."""
    return [doc for doc in ranked if doc in grades]
