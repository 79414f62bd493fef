"""The top 10 of every fusion a sweep tries on one question, fusing only chunks that can reach it.

A sweep fuses the same part scores under some twenty weightings. nDCG@10 needs only each
fusion's top 10, in the engine's order (descending score, ties to the lower index, as
``top_k``) and the relevant chunks' grades. The weighted sums (``sum``, ``minmax``,
``zscore``) are therefore fused on a pool: the union of each part's top ``POOL``. The
normalisations still run over all N chunks (their constants are the whole vector's), and
every fused value is computed by the same float operations in the same order as
``fuse_lists`` and the sweep's reference definition, so it is the same number.

Why the pool holds the top 10: the normalisers are non-decreasing and the weights are
non-negative, and rounded products and sums are monotone, so a chunk outside the pool
scores at most the fusion of the parts' pool-edge values (each part's ``POOL``-th best).
When the pool's 10th best scores strictly more, no outside chunk can enter or tie into
the top 10; otherwise (ties at the edge, e.g. the zeros of a sparse scorer) that fusion
is fused over all N chunks instead. RRF is one fusion over all N, as ``rrf`` defines it.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ranklens.engine.metrics import NDCG_K, QuestionScores, _discounts, _relevant_grades
from ranklens.engine.scoring.fusion import NORMALISERS, convex_weights, fuse_lists
from ranklens.engine.topk import top_k

POOL = 32  # per part: fastest on squad_it, cranfield and xquad_es (benchmarks/bench_fusion_sweep.py)


class FusionGrid:
    """Fusions of ``parts`` score vectors: ``rrf`` at ``rrf_k``, or a method with the first part's weight.

    ``fusions`` holds (method, weight) pairs, the weight None for ``rrf`` and ``sum``.
    """

    def __init__(self, fusions: Sequence[tuple[str, float | None]], parts: int, rrf_k: int) -> None:
        self.fusions = tuple(fusions)
        self.parts, self.rrf_k = parts, rrf_k
        rows: dict[str, tuple[list[int], list[list[float]]]] = {}
        for i, (method, weight) in enumerate(self.fusions):
            if method == "rrf":
                continue
            norm = "minmax" if method == "sum" else method  # sum: the mean of min-max normalised scores
            mix = [1.0 / parts] * parts if method == "sum" else convex_weights(parts, float(weight or 0.0))
            rows.setdefault(norm, ([], []))
            rows[norm][0].append(i)
            rows[norm][1].append(mix)
        # per normaliser: the positions of its fusions and their part weights (as weighted_sum and convex mix)
        self._rows = {norm: (np.array(where), np.array(mix, dtype=np.float64)) for norm, (where, mix) in rows.items()}

    def tops(self, lists: Sequence[np.ndarray], depth: int = NDCG_K) -> tuple[np.ndarray, np.ndarray]:
        """(each fusion's top ``depth`` chunk indices, each part's alone): fusions x depth and parts x depth."""
        n = lists[0].size
        depth = min(depth, n)
        pool_size = min(max(POOL, depth), n)
        part_tops = np.stack([top_k(s, pool_size) for s in lists])
        tops = np.zeros((len(self.fusions), depth), dtype=np.int64)
        for i, (method, _) in enumerate(self.fusions):
            if method == "rrf":
                tops[i] = top_k(fuse_lists(lists, "rrf", self.rrf_k), depth)
        pool = np.unique(part_tops)  # ascending: a stable sort of the pool breaks ties by chunk index
        edge = part_tops[:, -1]
        for norm, (where, mix) in self._rows.items():
            normalised = [NORMALISERS[norm](s) for s in lists]
            fused = _mix(mix, [v[pool] for v in normalised])
            order = np.argsort(-fused, axis=1, kind="stable")[:, :depth]
            tops[where] = pool[order]
            kth = np.take_along_axis(fused, order[:, -1:], axis=1)[:, 0]
            bound = _mix(mix, [v[e:e + 1] for v, e in zip(normalised, edge)])[:, 0]
            unsure = np.flatnonzero(~(kth > bound)) if pool.size < n else np.zeros(0, dtype=np.int64)
            if unsure.size:
                whole = _mix(mix[unsure], normalised)
                tops[where[unsure]] = [top_k(row, depth) for row in whole]
        return tops, part_tops[:, :depth]


def _mix(mix: np.ndarray, normalised: Sequence[np.ndarray]) -> np.ndarray:
    """rows x chunks: Σ_i mix[:, i] · normalised[i], summed part by part in order as the fusions do."""
    fused = mix[:, :1] * normalised[0]
    for i in range(1, len(normalised)):
        fused += mix[:, i:i + 1] * normalised[i]
    return fused


def ndcg_of_tops(tops: np.ndarray, question: QuestionScores) -> np.ndarray:
    """nDCG@10 of each row of ranked chunk indices, as ``score_question`` scores that ranking
    (its grades and discounts; ``question.scores`` is not read)."""
    rel, grades = _relevant_grades(question)
    if rel.size == 0:
        return np.zeros(len(tops))
    pos = np.searchsorted(rel, tops)
    pos[pos == rel.size] = 0
    gains = np.where(rel[pos] == tops, grades[pos], 0.0)[:, :NDCG_K]
    discounts = _discounts(NDCG_K)[:gains.shape[1]]
    ideal = np.sort(grades)[::-1][:NDCG_K]
    idcg = float(ideal @ _discounts(ideal.size))
    # one dot per row, as score_question takes it: a matrix product may sum in another order
    return np.array([float(g @ discounts) for g in gains]) / idcg
