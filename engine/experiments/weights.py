"""The fusion weight sweep: which weight of the first fused scorer gives the best nDCG@10?

Each fused scorer's scores are computed once per question; every weight of the
grid re-fuses them (``minmax`` or ``zscore``, as the setup says; ``rrf`` and
``sum`` have no weight, so the sweep uses ``minmax`` for them and says so) and
scores the question's nDCG@10. Picking the best weight on the questions one
then reports flatters it, so the sweep also runs k-fold cross-validation:
questions are dealt into ``folds`` folds (a fixed shuffle, seed 0); for each fold
the weight best on the other folds is chosen and measured on the held-out one.
The cross-validated nDCG@10 is the mean over questions of their held-out
nDCG@10: an honest estimate of what tuning the weight is worth.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Sequence

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.metrics import NDCG_K, QuestionScores, score_question
from ranklens.engine.progress import Progress, no_progress
from ranklens.engine.scoring.fusion import FusionScorer, convex

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever

WEIGHTS = tuple(round(w, 2) for w in np.linspace(0.0, 1.0, 11))
FOLDS = 5


@dataclass(frozen=True)
class FoldResult:
    fold: int
    questions: int
    weight: float  # chosen on the other folds
    train_ndcg: float
    test_ndcg: float

    def to_dict(self) -> dict[str, Any]:
        return {"fold": self.fold, "questions": self.questions, "weight": self.weight,
                f"train_ndcg@{NDCG_K}": self.train_ndcg, f"test_ndcg@{NDCG_K}": self.test_ndcg}


@dataclass(frozen=True)
class WeightSweep:
    method: str  # the normalisation swept: minmax or zscore
    parts: tuple[str, ...]  # the fused scorers; the weight is the first one's
    weights: tuple[float, ...]
    ndcg: tuple[float, ...]  # mean nDCG@10 over all questions, per weight
    best_weight: float  # best on all questions (in-sample: for looking, not for reporting)
    best_ndcg: float
    folds: tuple[FoldResult, ...]
    cv_ndcg: float  # mean held-out nDCG@10: the number to report
    questions: int
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "parts": list(self.parts), "questions": self.questions,
                "rows": [{"weight": w, f"ndcg@{NDCG_K}": n} for w, n in zip(self.weights, self.ndcg)],
                "best_weight": self.best_weight, f"best_ndcg@{NDCG_K}": self.best_ndcg,
                "folds": [f.to_dict() for f in self.folds], f"cv_ndcg@{NDCG_K}": self.cv_ndcg,
                "notes": list(self.notes)}


def weight_sweep(retriever: Retriever, weights: Sequence[float] = WEIGHTS, folds: int = FOLDS,
                 progress: Progress = no_progress) -> WeightSweep:
    """nDCG@10 of the setup's fusion at each weight, the best one, and its k-fold cross-validated value."""
    scorer = retriever.scorer
    if not isinstance(scorer, FusionScorer):
        raise RanklensError(f"the weight sweep needs the fusion scorer (the setup's is {retriever.setup.scorer})")
    if folds < 2:
        raise RanklensError(f"folds must be at least 2 (got {folds})")
    weights = tuple(float(w) for w in weights)
    if not weights or any(not 0.0 <= w <= 1.0 for w in weights):
        raise RanklensError(f"fusion weights must lie between 0 and 1 (got {list(weights)})")
    notes = []
    method = scorer.method
    if method not in ("minmax", "zscore"):
        notes.append(f"fusion method {method} has no weight: swept as minmax")
        method = "minmax"
    questions = retriever.corpus.answerable
    if len(questions) < folds:
        raise RanklensError(f"{retriever.corpus.name}: {folds}-fold cross-validation needs at least {folds} "
                            f"questions with an answer (has {len(questions)})")
    table = np.zeros((len(questions), len(weights)))  # nDCG@10 per question and weight
    for i, question in enumerate(questions):
        query = retriever.query(question.text)
        lists = [np.asarray(part.scores(query), dtype=np.float64) for part in scorer.parts]
        relevant = retriever.relevant(question)
        rel = np.fromiter(relevant.keys(), dtype=np.int64, count=len(relevant))
        grades = np.fromiter(relevant.values(), dtype=np.float64, count=len(relevant))
        for j, weight in enumerate(weights):
            fused = convex(lists, weight, method)
            table[i, j] = score_question(QuestionScores(question.id, question.text, fused, rel, grades)).ndcg
        progress(i + 1, len(questions), "sweeping the fusion weight")
    means = table.mean(axis=0)
    best = int(np.argmax(means))  # the first of equals: the lowest weight
    deal = np.random.default_rng(0).permutation(len(questions)) % folds
    fold_rows = []
    held_out = np.zeros(len(questions))
    for f in range(folds):
        test, train = deal == f, deal != f
        train_means = table[train].mean(axis=0)
        chosen = int(np.argmax(train_means))
        held_out[test] = table[test, chosen]
        fold_rows.append(FoldResult(f + 1, int(test.sum()), weights[chosen], float(train_means[chosen]),
                                    float(table[test, chosen].mean())))
    return WeightSweep(method, tuple(p.name for p in scorer.parts), weights, tuple(float(m) for m in means),
                       weights[best], float(means[best]), tuple(fold_rows), float(held_out.mean()), len(questions),
                       tuple(notes))
