"""Score explanations: the numbers behind one (query, chunk) score, term by term."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TermExplanation:
    term: str
    query_count: int  # occurrences of the term in the query
    tf: int  # occurrences in the chunk
    df: int  # chunks containing the term
    idf: float
    norm: float  # the length normalisation applied to this term's weight
    weight: float  # the chunk-side weight after tf and length normalisation
    query_weight: float  # the query-side weight (unit TF-IDF component, or the count for BM25)
    contribution: float  # this term's share of the score; the shares add up to it


@dataclass(frozen=True)
class Explanation:
    scorer: str
    score: float
    formula: str  # how a row's numbers make its contribution
    terms: list[TermExplanation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # constants and caveats (avgdl, N, ...)

    @property
    def total(self) -> float:
        return float(sum(t.contribution for t in self.terms))

    def to_dict(self) -> dict:
        return {
            "scorer": self.scorer,
            "score": self.score,
            "formula": self.formula,
            "notes": list(self.notes),
            "terms": [dataclasses.asdict(t) for t in self.terms],
        }
