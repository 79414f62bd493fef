"""Fusion beyond RRF: min-max and z-score convex combinations with a weight, and the weight sweep.

Each fused score is computed here by hand from the parts' own scores (the
formulas of Bruch et al., 2023: w·norm(s_1) + (1−w)·norm(s_2)); the sweep's best
weight and its k-fold cross-validated nDCG@10 are recomputed from per-question
nDCG@10 of fusions built independently of the sweep.
"""
from __future__ import annotations

import numpy as np
import pytest

from ranklens.engine.errors import RanklensError
from ranklens.engine.experiments.weights import weight_sweep
from ranklens.engine.loaders import load_corpus
from ranklens.engine.metrics import QuestionScores, score_question
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.fusion import convex, rrf, weighted_sum
from tests.support.cli import assert_error, run_cli


def test_minmax_and_zscore_by_hand() -> None:
    a, b = np.array([4.0, 2.0, 0.0, 2.0]), np.array([0.1, 0.5, 0.3, 0.9])
    by_hand_a = [1.0, 0.5, 0.0, 0.5]  # (s - 0) / (4 - 0)
    by_hand_b = [0.1 / 0.9, 0.5 / 0.9, 0.3 / 0.9, 1.0]  # the floor is 0 for positive scores, as in `sum`
    assert convex([a, b], 0.3, "minmax") == pytest.approx([0.3 * x + 0.7 * y for x, y in zip(by_hand_a, by_hand_b)])
    za = (a - 2.0) / np.sqrt(((a - 2.0) ** 2).mean())
    zb = (b - 0.45) / np.sqrt(((b - 0.45) ** 2).mean())
    assert convex([a, b], 0.8, "zscore") == pytest.approx(0.8 * za + 0.2 * zb)
    # three parts: the first gets w, the others share the rest
    assert convex([a, b, b], 0.5, "minmax") == pytest.approx(0.5 * np.array(by_hand_a) + 0.5 * np.array(by_hand_b))
    negative = np.array([-0.5, 0.5, 1.5])  # a cosine below 0: the floor is the lowest score
    assert convex([negative, negative], 1.0, "minmax") == pytest.approx([0.0, 0.5, 1.0])


def test_equal_scores_normalise_to_zero_and_sum_and_rrf_are_unchanged() -> None:
    flat, other = np.full(3, 2.0), np.array([1.0, 0.0, 3.0])
    assert convex([flat, other], 0.5, "zscore") == pytest.approx(0.5 * (other - other.mean()) / other.std())
    assert convex([other, flat], 0.5, "minmax") == pytest.approx(weighted_sum([other, flat]))
    assert rrf([other, other]) == pytest.approx([2 / 62, 0.0, 2 / 61])


@pytest.fixture(scope="module")
def studio_alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


@pytest.mark.parametrize("method", ["minmax", "zscore"])
def test_the_fused_retriever_scores_like_its_parts_fused_by_hand(studio_alfa: Workbench, method: str) -> None:
    corpus = studio_alfa.corpus
    fused = studio_alfa.retriever(setup_for(corpus, {"scorer": "fusion", "fuse": "tfidf,lsa",
                                                     "fusion_method": method, "fusion_weight": 0.7}))
    tfidf = studio_alfa.retriever(setup_for(corpus, {"scorer": "tfidf"}))
    lsa = studio_alfa.retriever(setup_for(corpus, {"scorer": "lsa"}))
    query = "ho cancellato un file per sbaglio"
    s1, s2 = np.asarray(tfidf.scores(tfidf.query(query))), np.asarray(lsa.scores(lsa.query(query)))
    if method == "minmax":  # the floor is min(0, lowest score)
        lo1, lo2 = min(0.0, s1.min()), min(0.0, s2.min())
        n1, n2 = (s1 - lo1) / (s1.max() - lo1), (s2 - lo2) / (s2.max() - lo2)
    else:
        n1, n2 = (s1 - s1.mean()) / s1.std(), (s2 - s2.mean()) / s2.std()
    assert np.asarray(fused.scores(fused.query(query))) == pytest.approx(0.7 * n1 + 0.3 * n2, abs=1e-12)
    assert f"fusion tfidf+lsa {method} w=0.7" in fused.setup.describe()
    explanation = fused.explain(query, 0)
    assert explanation.formula.startswith("0.7·tfidf + 0.3·lsa")


def test_the_weight_sweep_and_its_cross_validation_by_hand(studio_alfa: Workbench) -> None:
    corpus = studio_alfa.corpus
    setup = setup_for(corpus, {"scorer": "fusion", "fuse": "tfidf,lsa", "fusion_method": "minmax"})
    sweep = weight_sweep(studio_alfa.retriever(setup), folds=3)
    # per-question nDCG@10 of a retriever built at each weight, through the ordinary fusion scorer
    table = []
    for w in sweep.weights:
        r = studio_alfa.retriever(setup.replace(fusion_weight=w))
        row = []
        for q in corpus.answerable:
            rel = r.relevant(q)
            row.append(score_question(QuestionScores(q.id, q.text, np.asarray(r.scores(r.query(q.text))),
                                                     np.array(list(rel)), np.array(list(rel.values()), float))).ndcg)
        table.append(row)
    table = np.array(table).T  # questions x weights
    assert sweep.ndcg == pytest.approx(table.mean(axis=0).tolist())
    assert sweep.best_weight == sweep.weights[int(np.argmax(table.mean(axis=0)))]
    held_out = []
    for fold in sweep.folds:
        assert 0.0 <= fold.weight <= 1.0
    deal = np.random.default_rng(0).permutation(len(corpus.answerable)) % 3
    for f in range(3):
        chosen = int(np.argmax(table[deal != f].mean(axis=0)))
        assert sweep.folds[f].weight == sweep.weights[chosen]
        held_out.extend(table[deal == f, chosen])
    assert sweep.cv_ndcg == pytest.approx(np.mean(held_out))
    assert sum(f.questions for f in sweep.folds) == 15


def test_the_weight_sweep_refuses_what_it_cannot_do(studio_alfa: Workbench) -> None:
    corpus = studio_alfa.corpus
    with pytest.raises(RanklensError, match="needs the fusion scorer"):
        weight_sweep(studio_alfa.retriever(setup_for(corpus, {"scorer": "bm25"})))
    rrf_fusion = studio_alfa.retriever(setup_for(corpus, {"scorer": "fusion", "fuse": "bm25,tfidf"}))
    with pytest.raises(RanklensError, match="at least 16 questions"):
        weight_sweep(rrf_fusion, folds=16)
    assert weight_sweep(rrf_fusion, folds=2).notes == ("fusion method rrf has no weight: swept as minmax",)


def test_the_weight_sweep_on_the_command_line(capsys) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                  "--fusion-method", "zscore", "--weight-sweep", "--folds", "3", "--json")
    assert run.status == 0, run.err
    sweep = run.json["weight_sweep"]
    assert [row["weight"] for row in sweep["rows"]] == pytest.approx([i / 10 for i in range(11)])
    best = max(sweep["rows"], key=lambda row: row["ndcg@10"])
    assert sweep["best_weight"] == best["weight"] and len(sweep["folds"]) == 3
    human = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                    "--fusion-method", "minmax", "--weight-sweep")
    assert "5-fold cross-validation: nDCG@10" in human.out and "★" in human.out
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--weight-sweep"), "needs the fusion scorer")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--weight-sweep", "--folds", "1"), "--folds")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--fusion-weight", "1.5"), "--fusion-weight")
