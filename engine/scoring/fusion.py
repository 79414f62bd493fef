"""Fusing rankings: reciprocal rank fusion and a weighted sum of normalised scores.

RRF (Cormack et al., 2009): score(d) = Σ_s 1 / (rrf_k + rank_s(d)), over each
scorer's top ``depth`` chunks (a chunk outside a scorer's top adds nothing).
The weighted sum min-max normalises each scorer's scores to [0, 1] first,
since BM25, cosines and LSA live on different scales.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ranklens.engine.scoring.base import Scorer
from ranklens.engine.scoring.explain import Explanation
from ranklens.engine.scoring.registry import ScorerInputs
from ranklens.engine.termindex import QueryTerms
from ranklens.engine.topk import top_k

RRF_DEPTH = 1000


def rrf(score_lists: Sequence[np.ndarray], rrf_k: int = 60, depth: int = RRF_DEPTH) -> np.ndarray:
    fused = np.zeros(score_lists[0].size)
    for scores in score_lists:
        top = top_k(scores, min(depth, scores.size))
        # A chunk scoring exactly 0 shares nothing with the query (sparse scorers): it is not in
        # this scorer's ranking, or its place among the zeros, decided by index, would count.
        top = top[scores[top] != 0]
        fused[top] += 1.0 / (rrf_k + np.arange(1, top.size + 1))
    return fused


def minmax(scores: np.ndarray) -> np.ndarray:
    lo, hi = float(scores.min(initial=0.0)), float(scores.max(initial=0.0))
    return (scores - lo) / (hi - lo) if hi > lo else np.zeros_like(scores)


def weighted_sum(score_lists: Sequence[np.ndarray], weights: Sequence[float] | None = None) -> np.ndarray:
    weights = weights or [1.0 / len(score_lists)] * len(score_lists)
    return sum(w * minmax(s) for w, s in zip(weights, score_lists))


@dataclass(frozen=True)
class FusionScorer:
    parts: tuple[Scorer, ...]
    method: str = "rrf"
    rrf_k: int = 60

    name = "fusion"

    @property
    def notes(self) -> list[str]:
        return [note for part in self.parts for note in part.notes]

    def effective_settings(self) -> dict[str, Any]:
        return {key: value for part in self.parts for key, value in part.effective_settings().items()}

    def component_scores(self, query: QueryTerms) -> list[np.ndarray]:
        return [p.scores(query) for p in self.parts]

    def fuse(self, lists: list[np.ndarray]) -> np.ndarray:
        return rrf(lists, self.rrf_k) if self.method == "rrf" else weighted_sum(lists)

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.fuse(self.component_scores(query))

    def scores_batch(self, queries: list[QueryTerms]) -> np.ndarray:
        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        lists = self.component_scores(query)
        notes = []
        for part, scores in zip(self.parts, lists):
            rank = int((scores > scores[doc]).sum() + (scores[:doc] == scores[doc]).sum() + 1)
            if self.method == "rrf":
                share = 1.0 / (self.rrf_k + rank) if rank <= RRF_DEPTH and scores[doc] != 0 else 0.0
                notes.append(f"{part.name}: rank {rank}, score {scores[doc]:.4f} → 1/({self.rrf_k}+{rank}) = {share:.5f}")
            else:
                notes.append(f"{part.name}: score {scores[doc]:.4f} → normalised {minmax(scores)[doc]:.4f}")
        formula = (f"Σ over scorers of 1/({self.rrf_k} + rank)" if self.method == "rrf"
                   else "mean of min-max normalised scores")
        return Explanation(scorer=f"fusion {self.method}", score=float(self.fuse(lists)[doc]),
                           formula=formula, terms=[], notes=notes)


def build(inputs: ScorerInputs) -> FusionScorer:
    s = inputs.setup
    return FusionScorer(tuple(inputs.scorer(part, s) for part in s.fuse), s.fusion_method, s.rrf_k)
