"""The top 10 of every fusion a sweep tries, for a block of questions, fusing only chunks that can reach it.

A sweep fuses the same part scores under some twenty weightings. nDCG@10 needs only each
fusion's top 10, in the engine's order (descending score, ties to the lower index, as
``top_k``) and the relevant chunks' grades. The weighted sums (``sum``, ``minmax``,
``zscore``) are therefore fused on a pool: the union of each part's top ``POOL``, as
``top_k`` picks them. The normalisations still run over all N chunks of each question
(their constants are the whole vector's), and every fused value is computed by the same
float operations in the same order as ``fuse_lists`` and the sweep's reference
definition, so it is the same number. Questions go through in blocks (``block_size``):
a fusions x questions x pool array, one sort for the whole block.

Why the pool holds the top 10: the normalisers are non-decreasing and the weights are
non-negative, and rounded products and sums are monotone, so a chunk outside the pool
scores at most the fusion of the parts' pool-edge values (each part's ``POOL``-th best).
When the pool's 10th best scores strictly more, no outside chunk can enter or tie into
the top 10; otherwise (ties at the edge, e.g. the zeros of a sparse scorer) that fusion
is fused over all N chunks instead. RRF is one fusion over all N, as ``rrf`` defines it;
a question with a NaN or an infinite score is ranked over all N too. ``retrieved`` then
marks which of those top chunks the ranking rule keeps (``engine/topk.py``): those a
part retrieves, for a fusion a part it weighs, as ``FusionScorer.floor`` decides.

Measured (benchmarks/bench_fusion_sweep.py): on one question at a time instead of blocks
the squad_it sweep beyond scoring took 4.5 s instead of 4.0 s; scoring the parts through
``scores_batch`` is not the same number (LSA's batch product differs in the last bits).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ranklens.engine.measuring.measures.ndcg import ndcg_rows
from ranklens.engine.measuring.metric_table import NDCG_K
from ranklens.engine.measuring.metrics import QuestionScores, gains_at, relevant_grades
from ranklens.engine.scoring.fusion import NORMALISERS, fuse_lists, part_weights
from ranklens.engine.topk import top_k

POOL = 32  # per part: fastest on squad_it, cranfield and xquad_es (benchmarks/bench_fusion_sweep.py)
BLOCK = 64  # questions ranked at once
BLOCK_CELLS = 1 << 19  # questions x chunks in one of a block's score matrices (4 MB)


class FusionGrid:
    """Fusions of ``parts`` score vectors: ``rrf`` at ``rrf_k``, or a method with the first part's weight.

    ``fusions`` holds (method, weight) pairs, the weight None for ``rrf`` and ``sum``.
    """

    def __init__(self, fusions: Sequence[tuple[str, float | None]], parts: int, rrf_k: int) -> None:
        self.fusions = tuple(fusions)
        self.parts, self.rrf_k = parts, rrf_k
        rows: dict[str, tuple[list[int], list[list[float]]]] = {}
        # which parts each fusion weighs: a chunk one of them retrieves is retrieved (RRF weighs every part)
        self.weighs = np.ones((len(self.fusions), parts), dtype=bool)
        for i, (method, weight) in enumerate(self.fusions):
            if method == "rrf":
                continue
            norm = "minmax" if method == "sum" else method  # sum: the mean of min-max normalised scores
            mix = part_weights(method, parts, float(weight or 0.0))
            self.weighs[i] = np.array(mix) > 0
            rows.setdefault(norm, ([], []))
            rows[norm][0].append(i)
            rows[norm][1].append(mix)
        # per normaliser: the positions of its fusions and their part weights (as weighted_sum and convex mix)
        self._rows = {norm: (np.array(where), np.array(mix, dtype=np.float64)) for norm, (where, mix) in rows.items()}

    def tops(self, lists: Sequence[np.ndarray], floors: np.ndarray | None = None,
             depth: int = NDCG_K) -> tuple[np.ndarray, np.ndarray]:
        """Each question's top ``depth`` chunk indices under each fusion, and under each part alone.

        ``lists`` holds one questions x N score matrix per part (a block of questions: see
        ``block_size``), ``floors`` each part's floor per question (parts x questions; 0 by default,
        a term scorer's); returns questions x fusions x depth and questions x parts x depth.
        """
        scores = [np.asarray(s, dtype=np.float64).reshape(-1, np.shape(s)[-1]) for s in lists]
        nq, n = scores[0].shape
        floors = np.zeros((len(scores), nq)) if floors is None else floors
        depth = min(depth, n)
        tops = np.zeros((nq, len(self.fusions), depth), dtype=np.int64)
        for i, (method, _) in enumerate(self.fusions):
            if method == "rrf":
                tops[:, i] = [top_k(fuse_lists([s[q] for s in scores], "rrf", self.rrf_k,
                                               floors=floors[:, q].tolist()), depth) for q in range(nq)]
        # NaN and inf compare like no number: such a question is ranked by top_k over all its chunks
        odd = ~np.logical_and.reduce([np.isfinite(s).all(axis=1) for s in scores])
        tame = [np.where(odd[:, None], 0.0, s) for s in scores] if odd.any() else scores
        size = min(max(POOL, depth), n)
        pools = [_part_pool(s, size) for s in tame]
        alone = np.stack([_ranked(s, member, size, depth) for s, (member, _) in zip(tame, pools)], axis=1)
        for q in np.flatnonzero(odd):
            alone[q] = [top_k(s[q], depth) for s in scores]
        pool, pad = _union(np.logical_or.reduce([member for member, _ in pools]))
        whole = ~pad.any(axis=1) & (pool.shape[1] == n)  # every chunk is in the pool: nothing outside can rise
        questions = np.arange(nq)
        for norm, (where, mix) in self._rows.items():
            normalised = [np.stack([NORMALISERS[norm](row) for row in s]) for s in scores]
            fused = _mix(mix, [np.take_along_axis(v, pool, axis=1) for v in normalised])  # fusions x questions x pool
            fused[:, pad] = -np.inf  # pads sort last; the pool holds at least ``depth`` chunks
            order = np.argsort(-fused, axis=2, kind="stable")[:, :, :depth]
            tops[:, where] = pool[questions[None, :, None], order].transpose(1, 0, 2)
            kth = np.take_along_axis(fused, order[:, :, -1:], axis=2)[:, :, 0]
            bound = _mix(mix, [v[questions, edge] for v, (_, edge) in zip(normalised, pools)])
            for row, q in zip(*np.nonzero((~(kth > bound) & ~whole) | odd)):
                tops[q, where[row]] = top_k(_mix(mix[row:row + 1], [v[q] for v in normalised])[0], depth)
        return tops, alone

    def retrieved(self, lists: Sequence[np.ndarray], floors: np.ndarray, tops: np.ndarray,
                  alone: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masks over ``tops`` and ``alone`` (as ``tops`` returns them) of the chunks retrieved: by a part the
        fusion weighs, and by the part itself."""
        questions = np.arange(len(tops))[:, None]
        matched = [np.asarray(s)[questions[:, :, None], tops] > floors[p][:, None, None] for p, s in enumerate(lists)]
        fused = np.logical_or.reduce([m & self.weighs[None, :, p, None] for p, m in enumerate(matched)])
        parts = np.stack([np.asarray(s)[questions, alone[:, p]] > floors[p][:, None] for p, s in enumerate(lists)],
                         axis=1)
        return fused, parts


def block_size(n: int) -> int:
    """Questions ranked together over ``n`` chunks: a block's score matrices stay near BLOCK_CELLS cells."""
    return max(1, min(BLOCK, BLOCK_CELLS // max(n, 1)))


def _part_pool(scores: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's top ``size`` chunks as ``top_k`` chooses them (a mask: above the size-th best score,
    then the lowest indices among its ties), and a chunk scoring that size-th best (the pool's edge)."""
    n = scores.shape[1]
    if size >= n:
        return np.ones(scores.shape, dtype=bool), np.zeros(len(scores), dtype=np.int64)
    cut = np.partition(scores, n - size, axis=1)[:, n - size:n - size + 1]
    member = scores > cut
    tied = scores == cut
    edge = tied.argmax(axis=1)
    wanted = size - np.count_nonzero(member, axis=1)
    split = np.flatnonzero(np.count_nonzero(tied, axis=1) > wanted)  # rows where only some of the ties get in
    member |= tied
    member[split] &= ~tied[split] | (np.cumsum(tied[split], axis=1) <= wanted[split, None])
    return member, edge


def _ranked(scores: np.ndarray, member: np.ndarray, size: int, depth: int) -> np.ndarray:
    """The first ``depth`` of each row's ``size`` members, best first, ties to the lower index."""
    chunks = np.nonzero(member)[1].reshape(len(scores), size)  # ascending in each row
    order = np.argsort(-np.take_along_axis(scores, chunks, axis=1), axis=1, kind="stable")[:, :depth]
    return np.take_along_axis(chunks, order, axis=1)


def _union(member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's chunks in the mask, ascending and left-aligned in a rows x widest matrix, and where it pads."""
    counts = np.count_nonzero(member, axis=1)
    rows, chunks = np.nonzero(member)
    place = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    pool = np.zeros((len(member), int(counts.max())), dtype=np.int64)
    pad = np.ones(pool.shape, dtype=bool)
    pool[rows, place], pad[rows, place] = chunks, False
    return pool, pad


def _mix(mix: np.ndarray, normalised: Sequence[np.ndarray]) -> np.ndarray:
    """fusions x the parts' shape: Σ_i mix[:, i] · normalised[i], summed part by part in order as the fusions do."""
    weight = mix.reshape(*mix.shape, *([1] * normalised[0].ndim))
    fused = weight[:, 0] * normalised[0]
    for i in range(1, len(normalised)):
        fused += weight[:, i] * normalised[i]
    return fused


def ndcg_of_tops(tops: np.ndarray, retrieved: np.ndarray, question: QuestionScores) -> np.ndarray:
    """nDCG@10 of each row of ranked chunk indices, the chunks not ``retrieved`` (a mask, last in each row) cut,
    as ``score_question`` scores that ranking (its grades, gains and ``ndcg_rows``; ``question.scores`` is
    not read)."""
    rel, grades = relevant_grades(question)
    if rel.size == 0:
        return np.zeros(len(tops))
    return ndcg_rows(np.where(retrieved, gains_at(tops, rel, grades), 0.0), grades, NDCG_K)
