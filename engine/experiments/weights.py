"""Fusion tuning that does not fool its user: weight, method and normalisation, cross-validated.

Each fused scorer's scores are computed once per question; every candidate fusion
(``rrf`` at the setup's k, ``sum``, and the convex ``minmax`` and ``zscore`` at each
weight of the grid, the weight being the first part's) re-fuses them and scores the
question's nDCG@10, and so does each part alone (``fusion_grid`` ranks them all at once,
fusing only the chunks that can reach a top 10: the numbers of fusing every chunk). Picking the best candidate on the
questions one then reports flatters it, so the sweep runs k-fold cross-validation:
questions are dealt into ``folds`` folds (a fixed shuffle, seed 0); for each fold the
candidate best on the other folds, and the part best alone on the other folds, are
chosen and measured on the held-out fold. Every question then has a held-out nDCG@10
of the tuned fusion and of the best single part; the gain is the mean of their
difference, with the paired t-test's and Fisher's randomization test's p-values over
those pairs (engine.significance). Ties go to the first candidate in the order above
(the lowest weight) and to the first part.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Sequence

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.experiments.fusion_grid import FusionGrid, block_size, ndcg_of_tops
from ranklens.engine.measuring.metric_table import NDCG, NDCG_K
from ranklens.engine.measuring.metrics import QuestionScores
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.scoring.fusion import FusionScorer
from ranklens.engine.settings import FUSION_METHODS, WEIGHTED_FUSIONS
from ranklens.engine.comparing.p_text import SMALLEST_P_SHOWN, format_p
from ranklens.engine.comparing.significance import paired_t_test, randomization_test

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever

WEIGHTS = tuple(round(w, 2) for w in np.linspace(0.0, 1.0, 11))
FOLDS = 5
METHODS = FUSION_METHODS  # in the order ties are broken in


@dataclass(frozen=True)
class Candidate:
    """One fusion tried: a method, and the first part's weight for the weighted ones."""

    method: str
    weight: float | None = None

    @property
    def label(self) -> str:
        return self.method if self.weight is None else f"{self.method} w={self.weight:g}"

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "weight": self.weight}


@dataclass(frozen=True)
class FoldResult:
    fold: int
    questions: int  # held out
    chosen: Candidate  # best on the other folds
    single: str  # the part best alone on the other folds
    train_ndcg: float  # the chosen candidate's, on the other folds
    test_ndcg: float  # the chosen candidate's, held out
    single_test_ndcg: float  # the single part's, held out

    def to_dict(self) -> dict[str, Any]:
        return {"fold": self.fold, "questions": self.questions, "chosen": self.chosen.to_dict(),
                "single": self.single, f"train_{NDCG}": self.train_ndcg, f"test_{NDCG}": self.test_ndcg,
                f"single_test_{NDCG}": self.single_test_ndcg}


@dataclass(frozen=True)
class FusionSweep:
    parts: tuple[str, ...]  # the fused scorers; a weight is the first one's
    rrf_k: int
    candidates: tuple[Candidate, ...]
    ndcg: tuple[float, ...]  # mean nDCG@10 over all questions, per candidate
    part_ndcg: tuple[float, ...]  # mean nDCG@10 of each part alone
    best: Candidate  # best on all questions (in-sample: for looking, not for reporting)
    best_ndcg: float
    folds: tuple[FoldResult, ...]
    cv_ndcg: float  # mean held-out nDCG@10 of the tuned fusion: the number to report
    cv_single_ndcg: float  # mean held-out nDCG@10 of the part chosen alone on the training folds
    p_ttest: float  # of the held-out per-question gain
    p_randomization: float
    questions: int

    @property
    def gain(self) -> float:
        """Cross-validated nDCG@10 of the tuned fusion over the best single part."""
        return self.cv_ndcg - self.cv_single_ndcg

    def weights(self, method: str) -> list[tuple[float, float]]:
        """(weight, mean nDCG@10) of a weighted method, in grid order."""
        return [(c.weight, n) for c, n in zip(self.candidates, self.ndcg)
                if c.method == method and c.weight is not None]

    def to_dict(self) -> dict[str, Any]:
        return {"parts": list(self.parts), "rrf_k": self.rrf_k, "questions": self.questions,
                "rows": [{**c.to_dict(), NDCG: n} for c, n in zip(self.candidates, self.ndcg)],
                "single": [{"scorer": p, NDCG: n} for p, n in zip(self.parts, self.part_ndcg)],
                "best": self.best.to_dict(), f"best_{NDCG}": self.best_ndcg,
                "folds": [f.to_dict() for f in self.folds],
                f"cv_{NDCG}": self.cv_ndcg, f"cv_single_{NDCG}": self.cv_single_ndcg, "cv_gain": self.gain,
                "p_ttest": self.p_ttest, "p_randomization": self.p_randomization}


def candidates(methods: Sequence[str] = METHODS, weights: Sequence[float] = WEIGHTS) -> tuple[Candidate, ...]:
    """The fusions a sweep tries, in tie-breaking order."""
    return tuple(c for m in METHODS if m in methods
                 for c in ([Candidate(m, float(w)) for w in weights] if m in WEIGHTED_FUSIONS else [Candidate(m)]))


def fusion_sweep(retriever: Retriever, weights: Sequence[float] = WEIGHTS, folds: int = FOLDS,
                 methods: Sequence[str] = METHODS, progress: Progress = no_progress) -> FusionSweep:
    """nDCG@10 of every candidate fusion of the setup's parts and of each part alone, with the
    k-fold cross-validated gain of the tuned fusion over the best single part and its paired tests."""
    scorer = _fusion_scorer(retriever)
    if folds < 2:
        raise RanklensError(f"folds must be at least 2 (got {folds})")
    weights = tuple(float(w) for w in weights)
    if not weights or any(not 0.0 <= w <= 1.0 for w in weights):
        raise RanklensError(f"fusion weights must lie between 0 and 1 (got {list(weights)})")
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise RanklensError(f"fusion methods are {', '.join(METHODS)} (got {list(methods)})")
    questions = retriever.corpus.answerable
    if len(questions) < folds:
        raise RanklensError(f"{retriever.corpus.name}: {folds}-fold cross-validation needs at least {folds} "
                            f"questions with an answer (has {len(questions)})")
    tried = candidates(methods, weights)
    table, alone = ndcg_tables(retriever, tried, progress)
    means, part_means = table.mean(axis=0), alone.mean(axis=0)
    best = int(np.argmax(means))  # argmax keeps the first of equals
    deal = np.random.default_rng(0).permutation(len(questions)) % folds
    fold_rows = []
    held_out, held_out_single = np.zeros(len(questions)), np.zeros(len(questions))
    for f in range(folds):
        test, train = deal == f, deal != f
        train_means = table[train].mean(axis=0)
        chosen = int(np.argmax(train_means))
        single = int(np.argmax(alone[train].mean(axis=0)))
        held_out[test] = table[test, chosen]
        held_out_single[test] = alone[test, single]
        fold_rows.append(FoldResult(f + 1, int(test.sum()), tried[chosen], scorer.parts[single].name,
                                    float(train_means[chosen]), float(table[test, chosen].mean()),
                                    float(alone[test, single].mean())))
    return FusionSweep(tuple(p.name for p in scorer.parts), scorer.rrf_k, tried, tuple(float(m) for m in means),
                       tuple(float(m) for m in part_means), tried[best], float(means[best]), tuple(fold_rows),
                       float(held_out.mean()), float(held_out_single.mean()),
                       paired_t_test(held_out_single.tolist(), held_out.tolist()),
                       randomization_test(held_out_single.tolist(), held_out.tolist()),
                       len(questions))


def ndcg_tables(retriever: Retriever, tried: Sequence[Candidate],
                progress: Progress = no_progress) -> tuple[np.ndarray, np.ndarray]:
    """nDCG@10 of each answerable question (rows) under each candidate fusion, and under each part alone.

    Each part scores a question once; the fusions are ranked together (``FusionGrid``: only the
    chunks that can reach a top 10 are fused), which gives the numbers fusing every chunk gives."""
    scorer = _fusion_scorer(retriever)
    questions = retriever.corpus.answerable
    grid = FusionGrid([(c.method, c.weight) for c in tried], len(scorer.parts), scorer.rrf_k)
    table = np.zeros((len(questions), len(tried) + len(scorer.parts)))
    step = block_size(len(retriever.chunks))
    for start in range(0, len(questions), step):
        block = questions[start:start + step]
        lists: list[list[np.ndarray]] = [[] for _ in scorer.parts]
        floors = np.zeros((len(scorer.parts), len(block)))
        for i, question in enumerate(block, start):
            query = retriever.query(question.text)
            floors[:, i - start] = scorer.part_floors(query)
            for part, scores in zip(scorer.parts, lists):
                scores.append(np.asarray(part.scores(query), dtype=np.float64))
            progress(i + 1, len(questions), "sweeping the fusion")
        stacked = [np.stack(scores) for scores in lists]
        fused_tops, part_tops = grid.tops(stacked, floors)
        fused_kept, part_kept = grid.retrieved(stacked, floors, fused_tops, part_tops)
        for i, question in enumerate(block, start):
            relevant = retriever.relevant(question)
            judged = QuestionScores(question.id, question.text, lists[0][i - start],
                                    np.fromiter(relevant.keys(), dtype=np.int64, count=len(relevant)),
                                    np.fromiter(relevant.values(), dtype=np.float64, count=len(relevant)))
            table[i] = ndcg_of_tops(np.vstack((fused_tops[i - start], part_tops[i - start])),
                                    np.vstack((fused_kept[i - start], part_kept[i - start])), judged)
    return table[:, :len(tried)], table[:, len(tried):]


def _fusion_scorer(retriever: Retriever) -> FusionScorer:
    if not isinstance(retriever.scorer, FusionScorer):
        raise RanklensError(f"the fusion sweep needs the fusion scorer (the setup's is {retriever.setup.scorer})")
    return retriever.scorer


def grid_lines(sweep: FusionSweep) -> list[str]:
    """The sweep's grid as plain lines (★ marks the best on all questions), as ``eval --weight-sweep``
    prints it and the Metrics tab shows it."""
    lines = [f"nDCG@{NDCG_K} of each fusion of {'+'.join(sweep.parts)} on {sweep.questions:,} questions "
             f"(weight: {sweep.parts[0]}'s share)"]
    weighted = [m for m in WEIGHTED_FUSIONS if sweep.weights(m)]
    if weighted:
        lines.append(f"{'weight':>7}" + "".join(f"{m:>9}" for m in weighted))
        for row in zip(*(sweep.weights(m) for m in weighted)):
            cells = "".join(f"{n:>8.3f}{'★' if Candidate(m, w) == sweep.best else ' '}"
                            for m, (w, n) in zip(weighted, row))
            lines.append(f"{row[0][0]:>7.2f}{cells}".rstrip())
    others = [f"{c.method}{f' k={sweep.rrf_k}' if c.method == 'rrf' else ''} {n:.3f}{'★' if c == sweep.best else ''}"
              for c, n in zip(sweep.candidates, sweep.ndcg) if c.weight is None]
    if others:
        lines.append("   ".join(others))
    lines.append("alone: " + "   ".join(f"{p} {n:.3f}" for p, n in zip(sweep.parts, sweep.part_ndcg)))
    return lines


def _p(value: float) -> str:
    """``=0.334`` (three significant digits); below 0.0001 or without a test, ``format_p``'s `` < 0.0001``."""
    return f"={value:.3g}" if value == value and value >= SMALLEST_P_SHOWN else f" {format_p(value)}"


def verdict_lines(sweep: FusionSweep) -> list[str]:
    """What the sweep says tuning is worth: the in-sample best, then the cross-validated gain and its tests."""
    return [
        f"best on all questions: {sweep.best.label}, nDCG@{NDCG_K} {sweep.best_ndcg:.3f} (optimistic: "
        "chosen on the questions it is measured on)",
        f"{len(sweep.folds)}-fold cross-validation, each choice made on the other folds; held-out nDCG@{NDCG_K}:",
        f"tuned fusion {sweep.cv_ndcg:.3f} · best single scorer {sweep.cv_single_ndcg:.3f} · gain {sweep.gain:+.3f}",
        f"paired t-test p{_p(sweep.p_ttest)} · randomization test p{_p(sweep.p_randomization)}",
        "chosen per fold: " + ", ".join(f"{f.chosen.label} / {f.single}" for f in sweep.folds),
    ]
