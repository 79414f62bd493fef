"""Fusing rankings: reciprocal rank fusion and weighted sums of normalised scores.

RRF (Cormack et al., 2009): score(d) = Σ_s 1 / (rrf_k + rank_s(d)), over each
scorer's top ``depth`` chunks that it retrieves (a chunk outside them adds nothing).
The sums normalise each scorer's scores first, since BM25, cosines and LSA
live on different scales: ``sum`` is the mean of min-max normalised scores;
``minmax`` and ``zscore`` are convex combinations (Bruch et al., 2023),
w·norm(s_1) + Σ_{i>1} (1−w)/(n−1)·norm(s_i), with min-max ((s − lo)/(hi − lo), lo
and hi counting 0 as ``sum`` does, so unmatched chunks of a sparse scorer stay at 0)
or z-score ((s − mean)/std) normalisation over all chunks; w is ``fusion_weight``.

A fused chunk is retrieved when a part it weighs retrieves it (``engine/topk.py``'s
ranking rule; ``FusionScorer.floor``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

import numpy as np

from ranklens.engine.scoring.base import Scorer
from ranklens.engine.scoring.explain import Explanation
from ranklens.engine.scoring.registry import ScorerInputs
from ranklens.engine.text.termindex import QueryTerms
from ranklens.engine.topk import QueryScores, floor_of, top_k

RRF_DEPTH = 1000


def rrf(score_lists: Sequence[np.ndarray], rrf_k: int = 60, depth: int = RRF_DEPTH,
        floors: Sequence[float] | None = None) -> np.ndarray:
    """Σ over the lists of 1 / (rrf_k + rank) of each list's top ``depth`` chunks that score above its floor
    (``floors``, one a list; 0 each by default: a term scorer's chunk sharing no term with the query)."""
    fused = np.zeros(score_lists[0].size)
    for scores, floor in zip(score_lists, floors if floors is not None else [0.0] * len(score_lists)):
        top = top_k(scores, min(depth, scores.size))
        # a chunk the scorer does not retrieve is not in its ranking, or its place among the
        # others, decided by index, would count
        top = top[scores[top] > floor]
        fused[top] += 1.0 / (rrf_k + np.arange(1, top.size + 1))
    return fused


def minmax(scores: np.ndarray) -> np.ndarray:
    lo, hi = float(scores.min(initial=0.0)), float(scores.max(initial=0.0))
    return (scores - lo) / (hi - lo) if hi > lo else np.zeros_like(scores)


def weighted_sum(score_lists: Sequence[np.ndarray], weights: Sequence[float] | None = None) -> np.ndarray:
    weights = weights or [1.0 / len(score_lists)] * len(score_lists)
    fused = np.zeros(score_lists[0].size)
    for weight, scores in zip(weights, score_lists):
        fused += weight * minmax(scores)
    return fused


def zscore(scores: np.ndarray) -> np.ndarray:
    """(s − mean) / std over all chunks; all zeros when every chunk scores the same."""
    std = float(scores.std())
    return (scores - scores.mean()) / std if std > 0 else np.zeros_like(scores, dtype=float)


def convex_weights(parts: int, weight: float) -> list[float]:
    """``weight`` for the first scorer, the rest shared equally by the others (they sum to 1)."""
    if parts < 2:
        return [1.0] * parts
    return [weight] + [(1.0 - weight) / (parts - 1)] * (parts - 1)


def part_weights(method: str, parts: int, weight: float = 0.5) -> list[float]:
    """Each part's weight in a weighted fusion (``sum``: equal; ``minmax``, ``zscore``: ``convex_weights``)."""
    return [1.0 / parts] * parts if method == "sum" else convex_weights(parts, weight)


NORMALISERS = {"minmax": minmax, "zscore": zscore}


def convex(score_lists: Sequence[np.ndarray], weight: float = 0.5, norm: str = "minmax") -> np.ndarray:
    """Σ_i w_i · norm(s_i), with ``convex_weights``: ``weight`` on the first list."""
    normalise = NORMALISERS[norm]
    fused = np.zeros(np.asarray(score_lists[0]).size)
    for w, s in zip(convex_weights(len(score_lists), weight), score_lists):
        fused += w * normalise(np.asarray(s, dtype=float))
    return fused


def fuse_lists(lists: Sequence[np.ndarray], method: str, rrf_k: int = 60, weight: float = 0.5,
               floors: Sequence[float] | None = None) -> np.ndarray:
    """The fused scores of ``lists`` (one score array per scorer, same chunks) by ``method``; ``floors``: each
    list's (``rrf``'s)."""
    if method == "rrf":
        return rrf(lists, rrf_k, floors=floors)
    if method == "sum":
        return weighted_sum(lists)
    return convex(lists, weight, method)


@dataclass(frozen=True)
class FusionScorer:
    parts: tuple[Scorer, ...]
    method: str = "rrf"
    rrf_k: int = 60
    weight: float = 0.5  # minmax and zscore: the first part's weight

    name = "fusion"

    @property
    def notes(self) -> list[str]:
        return [note for part in self.parts for note in part.notes]

    def effective_settings(self) -> dict[str, Any]:
        return {key: value for part in self.parts for key, value in part.effective_settings().items()}

    def component_scores(self, query: QueryTerms) -> list[np.ndarray]:
        return [p.scores(query) for p in self.parts]

    def part_floors(self, query: QueryTerms) -> list[float]:
        return [floor_of(p, query) for p in self.parts]

    def fuse(self, lists: list[np.ndarray], floors: Sequence[float]) -> np.ndarray:
        return fuse_lists(lists, self.method, self.rrf_k, self.weight, floors)

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.fuse(self.component_scores(query), self.part_floors(query))

    def floor(self, query: QueryTerms) -> float:
        """What a chunk no part it weighs retrieves scores: 0 for RRF; for a weighted sum, -inf when a weighted
        part ranks every chunk, else that chunk's fused score (-inf when every chunk is retrieved). The parts
        give every chunk they do not retrieve their floor and the normalisations keep order, so every chunk a
        weighted part retrieves fuses above it."""
        if self.method == "rrf":
            return 0.0
        floors = self.part_floors(query)
        weighted = [w > 0 for w in part_weights(self.method, len(self.parts), self.weight)]
        if any(f == -np.inf for f, w in zip(floors, weighted) if w):
            return -np.inf
        # a sum over term scorers only: the normalisations' constants are the part vectors', scored again
        lists = self.component_scores(query)
        unmatched = np.logical_and.reduce([s <= f for s, f, w in zip(lists, floors, weighted) if w])
        first = np.flatnonzero(unmatched)[:1]
        return float(self.fuse(lists, floors)[first[0]]) if first.size else -np.inf

    def scores_batch(self, queries: list[QueryTerms]) -> np.ndarray:
        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        lists, floors = self.component_scores(query), self.part_floors(query)
        notes = []
        for part, scores, floor in zip(self.parts, lists, floors):
            rank = QueryScores.of(scores).gold_rank(np.array([doc])) or 0  # never None: doc is one chunk
            if self.method == "rrf":
                share = 1.0 / (self.rrf_k + rank) if rank <= RRF_DEPTH and scores[doc] > floor else 0.0
                notes.append(f"{part.name}: rank {rank}, score {scores[doc]:.4f} "
                             f"→ 1/({self.rrf_k}+{rank}) = {share:.5f}")
            else:
                normalise = zscore if self.method == "zscore" else minmax
                notes.append(f"{part.name}: score {scores[doc]:.4f} → normalised "
                             f"{normalise(np.asarray(scores, dtype=float))[doc]:.4f}")
        weights = " + ".join(f"{w:g}·{p.name}" for w, p in zip(convex_weights(len(self.parts), self.weight),
                                                                self.parts))
        formula = {"rrf": f"Σ over scorers of 1/({self.rrf_k} + rank)",
                   "sum": "mean of min-max normalised scores",
                   "minmax": f"{weights}, each min-max normalised",
                   "zscore": f"{weights}, each z-score normalised"}[self.method]
        return Explanation(scorer=f"fusion {self.method}", score=float(self.fuse(lists, floors)[doc]),
                           formula=formula, terms=[], notes=notes)


def build(inputs: ScorerInputs) -> FusionScorer:
    s = inputs.setup
    return FusionScorer(tuple(inputs.scorer(part, s) for part in s.fuse), s.fusion_method, s.rrf_k,
                        s.fusion_weight)
