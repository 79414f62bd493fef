"""What a question's top k chunks cover of its relevant text, in characters: what the span measures read.

Chroma's chunking evaluation (brandonstarxel/chunking_evaluation, ``evaluation_framework/
base_evaluation.py``) measures chunkers by text rather than chunk ids. For a question's relevant text
R (character spans of documents, overlapping spans counted once) and its top k chunks C1..Ck:

- ``covered`` = the length of the union of the intersections of the Ci with R;
- ``retrieved`` = len(C1) + … + len(Ck) (a text two chunks share counts twice, as Chroma counts it);
- ``relevant`` = the length of R.

Spans are ``(document, start, end)`` with ``end`` excluded. Plain Python over a question's few spans: no
numpy, cheap to import before the TUI paints.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache

Span = tuple[str, int, int]  # document, start, end (excluded)


@dataclass(frozen=True, slots=True)
class CoveredText:
    """Characters of a question's relevant text its top k chunks cover (module docstring)."""

    covered: int = 0
    retrieved: int = 0
    relevant: int = 0


@dataclass(frozen=True)
class RelevantText:
    """A question's relevant text R (merged spans), and the spans of a chunking's chunks by position."""

    spans: tuple[Span, ...]
    chunk_spans: Callable[[Sequence[int]], list[Span]]

    def covered(self, top: Sequence[int]) -> Callable[[int], CoveredText]:
        """What the first ``k`` of ``top`` (chunk positions in rank order; a negative one a rank held by no chunk,
        ``engine/topk.py``) cover of R, as a function of ``k`` working each ``k`` out once (the three span measures
        read the same one)."""
        return cache(lambda k: covered_text(self.spans, self.chunk_spans([c for c in top[:k] if c >= 0])))


def union(spans: Iterable[Span]) -> list[Span]:
    """``spans`` merged where they overlap or touch, ordered by document and start."""
    merged: list[Span] = []
    for doc, start, end in sorted(spans):
        if merged and merged[-1][0] == doc and start <= merged[-1][2]:
            merged[-1] = (doc, merged[-1][1], max(merged[-1][2], end))
        else:
            merged.append((doc, start, end))
    return merged


def length(spans: Iterable[Span]) -> int:
    return sum(end - start for _, start, end in spans)


def covered_text(relevant: Iterable[Span], retrieved: list[Span]) -> CoveredText:
    """What the chunks ``retrieved`` (the top k, in rank order) cover of the text ``relevant``."""
    wanted, got = union(relevant), union(retrieved)
    covered, j = 0, 0
    for doc, start, end in wanted:  # both ordered: walk the chunks' union alongside
        while j < len(got) and (got[j][0], got[j][2]) <= (doc, start):
            j += 1
        i = j
        while i < len(got) and (got[i][0], got[i][1]) < (doc, end):
            if got[i][0] == doc:
                covered += max(0, min(end, got[i][2]) - max(start, got[i][1]))
            i += 1
    return CoveredText(covered, length(retrieved), length(wanted))
