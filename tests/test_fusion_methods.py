"""Fusion beyond RRF: min-max and z-score convex combinations with a weight, and the weight sweep.

Each fused score is computed here by hand from the parts' own scores (the
formulas of Bruch et al., 2023: w·norm(s_1) + (1−w)·norm(s_2)); the sweep's best
weight and its k-fold cross-validated nDCG@10 are recomputed from per-question
nDCG@10 of fusions built independently of the sweep.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from ranklens.engine.errors import RanklensError
from ranklens.engine.experiments.weights import fusion_sweep, grid_lines, verdict_lines
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.metric_table import NDCG
from ranklens.engine.measuring.metrics import QuestionScores, score_question
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.fusion import convex, rrf, weighted_sum
from ranklens.engine.setup import Setup
from ranklens.engine.comparing.significance import randomization_test
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


def ndcg_by_question(workbench: Workbench, setup: Setup) -> np.ndarray:
    """nDCG@10 of each answerable question under an ordinary retriever built for ``setup``."""
    r = workbench.retriever(setup)
    values = []
    for q in workbench.corpus.answerable:
        rel = r.relevant(q)
        question = QuestionScores(q.id, q.text, np.asarray(r.scores(r.query(q.text))),
                                  np.array(list(rel)), np.array(list(rel.values()), float))
        values.append(score_question(question).values[NDCG])
    return np.array(values)


@pytest.mark.parametrize(("fuse", "folds"), [("bm25,tfidf", 3), ("tfidf,bm25", 5)])
def test_the_fusion_sweep_and_its_cross_validation_by_hand(studio_alfa: Workbench, fuse: str, folds: int) -> None:
    """Every candidate fusion and every part alone through retrievers of their own; the folds' choices,
    the held-out gain and its p-values (scipy's ttest_rel) recomputed from those."""
    from scipy.stats import ttest_rel

    corpus = studio_alfa.corpus
    setup = setup_for(corpus, {"scorer": "fusion", "fuse": fuse, "rrf_k": 30})
    sweep = fusion_sweep(studio_alfa.retriever(setup), folds=folds)
    assert [c.label for c in sweep.candidates[:3]] == ["rrf", "sum", "minmax w=0"]
    assert len(sweep.candidates) == 2 + 2 * 11 and sweep.rrf_k == 30
    table = np.array([ndcg_by_question(studio_alfa, setup.replace(
        fusion_method=c.method, fusion_weight=0.5 if c.weight is None else c.weight))
        for c in sweep.candidates]).T  # questions x candidates
    alone = np.array([ndcg_by_question(studio_alfa, setup.replace(scorer=part)) for part in sweep.parts]).T
    assert sweep.ndcg == pytest.approx(table.mean(axis=0).tolist(), abs=1e-12)
    assert sweep.part_ndcg == pytest.approx(alone.mean(axis=0).tolist(), abs=1e-12)
    assert sweep.best == sweep.candidates[int(np.argmax(table.mean(axis=0)))]
    deal = np.random.default_rng(0).permutation(len(corpus.answerable)) % folds
    fused, single = np.zeros(len(deal)), np.zeros(len(deal))
    for f in range(folds):
        chosen = int(np.argmax(table[deal != f].mean(axis=0)))
        part = int(np.argmax(alone[deal != f].mean(axis=0)))
        assert (sweep.folds[f].chosen, sweep.folds[f].single) == (sweep.candidates[chosen], sweep.parts[part])
        fused[deal == f], single[deal == f] = table[deal == f, chosen], alone[deal == f, part]
    assert (sweep.cv_ndcg, sweep.cv_single_ndcg) == pytest.approx((fused.mean(), single.mean()), abs=1e-12)
    assert sweep.gain == pytest.approx((fused - single).mean(), abs=1e-12)
    assert sweep.p_ttest == pytest.approx(ttest_rel(single, fused).pvalue)
    assert sweep.p_randomization == randomization_test(single, fused)
    assert sum(f.questions for f in sweep.folds) == 15


def test_the_fusion_sweep_numbers_on_studio_alfa(studio_alfa: Workbench) -> None:
    """BM25 and TF-IDF on the seed corpus: fusing looks no better than TF-IDF alone, and is not."""
    setup = setup_for(studio_alfa.corpus, {"scorer": "fusion", "fuse": "bm25,tfidf"})
    sweep = fusion_sweep(studio_alfa.retriever(setup))
    assert [round(n, 4) for n in sweep.part_ndcg] == [0.829, 0.8386]
    assert (sweep.best.label, round(sweep.best_ndcg, 4)) == ("minmax w=0", 0.8386)  # TF-IDF alone, in effect
    assert [f.chosen.label for f in sweep.folds] == ["minmax w=0", "rrf", "minmax w=0", "minmax w=0", "minmax w=0"]
    assert {f.single for f in sweep.folds} == {"tfidf"}
    assert (round(sweep.cv_ndcg, 4), round(sweep.cv_single_ndcg, 4), round(sweep.gain, 4)) == (0.8366, 0.8386, -0.002)
    # one question differs: the t-test's p is that of a single non-zero difference, every sign flip ties
    assert (round(sweep.p_ttest, 4), sweep.p_randomization) == (0.3343, 1.0)


def test_the_fusion_sweep_of_one_method(studio_alfa: Workbench) -> None:
    setup = setup_for(studio_alfa.corpus, {"scorer": "fusion", "fuse": "bm25,tfidf"})
    sweep = fusion_sweep(studio_alfa.retriever(setup), weights=(0.2, 0.8), methods=("zscore",), folds=3)
    assert [c.label for c in sweep.candidates] == ["zscore w=0.2", "zscore w=0.8"]
    assert [w for w, _ in sweep.weights("zscore")] == [0.2, 0.8] and sweep.weights("minmax") == []
    lines = grid_lines(sweep)
    assert lines[1].split() == ["weight", "zscore"] and lines[4].startswith("alone: ") and len(lines) == 5


def test_the_weight_sweep_refuses_what_it_cannot_do(studio_alfa: Workbench) -> None:
    corpus = studio_alfa.corpus
    with pytest.raises(RanklensError, match="needs the fusion scorer"):
        fusion_sweep(studio_alfa.retriever(setup_for(corpus, {"scorer": "bm25"})))
    rrf_fusion = studio_alfa.retriever(setup_for(corpus, {"scorer": "fusion", "fuse": "bm25,tfidf"}))
    with pytest.raises(RanklensError, match="at least 16 questions"):
        fusion_sweep(rrf_fusion, folds=16)
    with pytest.raises(RanklensError, match="fusion methods are rrf, sum, minmax, zscore"):
        fusion_sweep(rrf_fusion, methods=("max",))
    with pytest.raises(RanklensError, match="between 0 and 1"):
        fusion_sweep(rrf_fusion, weights=(1.5,))


def test_the_weight_sweep_on_the_command_line(capsys, studio_alfa: Workbench) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                  "--fusion-method", "zscore", "--weight-sweep", "--folds", "3", "--json")
    assert run.status == 0, run.err
    sweep = run.json["weight_sweep"]
    direct = fusion_sweep(studio_alfa.retriever(setup_for(studio_alfa.corpus, {
        "scorer": "fusion", "fuse": "bm25,tfidf", "fusion_method": "zscore"})), folds=3)
    assert sweep == json.loads(json.dumps(direct.to_dict()))
    assert [row["weight"] for row in sweep["rows"] if row["method"] == "zscore"] == pytest.approx(
        [i / 10 for i in range(11)])
    assert (sweep["best"], len(sweep["folds"]), run.json["setup"]["fuse"]) == (
        {"method": "minmax", "weight": 0.0}, 3, ["bm25", "tfidf"])
    assert sweep["cv_gain"] == pytest.approx(sweep["cv_ndcg@10"] - sweep["cv_single_ndcg@10"])
    human = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                    "--fusion-method", "minmax", "--weight-sweep")
    direct = fusion_sweep(studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "fusion",
                                                                               "fuse": "bm25,tfidf"})))
    assert human.out.splitlines()[1:] == grid_lines(direct) + verdict_lines(direct)
    assert "tuned fusion 0.837 · best single scorer 0.839 · gain -0.002" in human.out
    assert "paired t-test p=0.334 · randomization test p=1" in human.out and "0.839★" in human.out
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--weight-sweep"), "needs the fusion scorer")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--weight-sweep", "--folds", "1"), "--folds")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--fusion-weight", "1.5"), "--fusion-weight")
