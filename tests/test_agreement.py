"""Raters' agreement (engine/judging/agreement.py): Cohen's kappa against scikit-learn, Fleiss' kappa against hand
computations, and the report over a workspace's ratings."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from sklearn.metrics import cohen_kappa_score

from ranklens.engine.judging.agreement import agreement, cohen_kappa, fleiss_kappa
from ranklens.engine.errors import RanklensError

MAX_GRADE = 3


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("linear", [False, True])
def test_cohen_kappa_is_scikit_learns_on_random_grades(seed: int, linear: bool) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 60)
    a = [rng.randint(0, MAX_GRADE) for _ in range(n)]
    b = [min(MAX_GRADE, max(0, x + rng.choice([-2, -1, 0, 0, 0, 1]))) for x in a]  # correlated, as raters are
    # labels: the whole scale, so that scikit-learn's linear weights are grade differences, as ours are
    expected = cohen_kappa_score(a, b, labels=list(range(MAX_GRADE + 1)), weights="linear" if linear else None)
    if expected != expected:  # nan: every grade the same, kappa undefined
        assert cohen_kappa(a, b, linear) is None
    else:
        assert cohen_kappa(a, b, linear) == pytest.approx(expected, abs=1e-12)


def test_linear_weights_count_grade_differences_even_when_a_grade_is_unused() -> None:
    # no rater gave a 2: a 3 against a 1 is still two grades apart (scikit-learn without labels says one)
    a, b = [0, 1, 3, 3, 1], [0, 3, 3, 1, 1]
    assert cohen_kappa(a, b, linear=True) == pytest.approx(
        cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"))


def test_cohen_kappa_is_undefined_without_pairs_or_with_one_grade_throughout() -> None:
    assert cohen_kappa([], []) is None
    assert cohen_kappa([2, 2, 2], [2, 2, 2]) is None
    assert cohen_kappa([1, 0], [1, 0]) == 1.0


def test_fleiss_kappa_of_the_textbook_table() -> None:
    # 10 items, 14 raters each, 5 categories (the table of Wikipedia's "Fleiss' kappa" article):
    # P̄ = 0.378, P̄e = 0.213, kappa = 0.210
    rows = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    counts = [{grade: n for grade, n in enumerate(row) if n} for row in rows]
    assert fleiss_kappa(counts) == pytest.approx(0.20993, abs=5e-6)


def test_fleiss_kappa_by_hand_on_three_raters() -> None:
    # items rated (0,0,0), (0,0,1), (1,1,1), (0,1,1) by three raters:
    # P_i = (Σ n² - 3) / 6 = 1, 1/3, 1, 1/3 → P̄ = 2/3; p(0) = 6/12, p(1) = 6/12 → P̄e = 1/2
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    counts = [{0: 3}, {0: 2, 1: 1}, {1: 3}, {0: 1, 1: 2}]
    assert fleiss_kappa(counts) == pytest.approx(float(Fraction(1, 3)))
    assert fleiss_kappa([]) is None and fleiss_kappa([{2: 3}, {2: 3}]) is None  # nothing, or chance 1
    with pytest.raises(ValueError):
        fleiss_kappa([{0: 3}, {0: 2}])


RATINGS = {
    "q1": {"c1": {"ann": 3, "bob": 3, "cy": 2}, "c2": {"ann": 0, "bob": 2}, "c3": {"ann": 1}},
    "q2": {"c1": {"ann": 1, "bob": 1, "cy": 1}, "c4": {"bob": 3, "cy": 0, "ann": 0}},
    "q3": {"c5": {"ann": 2, "bob": 2}},
}
TEXTS = {"q1": "first", "q2": "second", "q3": "third"}


def test_two_raters_are_measured_on_the_pairs_both_graded() -> None:
    report = agreement(RATINGS, TEXTS, ["bob", "ann"])
    # ann and bob both graded q1/c1 (3, 3), q1/c2 (0, 2), q2/c1 (1, 1), q2/c4 (0, 3), q3/c5 (2, 2)
    ann, bob = [3, 0, 1, 0, 2], [3, 2, 1, 3, 2]
    assert report.raters == ("ann", "bob") and report.pairs == 5
    assert report.kappa == pytest.approx(cohen_kappa_score(ann, bob))
    assert report.kappa_linear == pytest.approx(cohen_kappa_score(ann, bob, labels=[0, 1, 2, 3], weights="linear"))
    assert report.agreement == pytest.approx(3 / 5)
    assert [(p.raters, p.pairs) for p in report.rater_pairs] == [(("ann", "bob"), 5)]


def test_three_raters_fleiss_on_the_pairs_all_graded_and_each_two_apart() -> None:
    report = agreement(RATINGS, TEXTS)
    assert report.raters == ("ann", "bob", "cy")
    assert report.pairs == 3  # q1/c1, q2/c1, q2/c4
    assert report.kappa is None and report.kappa_linear is None  # two raters only
    assert report.fleiss_kappa == pytest.approx(fleiss_kappa([{3: 2, 2: 1}, {1: 3}, {0: 2, 3: 1}]))
    assert report.agreement == pytest.approx(1 / 3)  # only q2/c1 all alike
    assert [(p.raters, p.pairs) for p in report.rater_pairs] == [
        (("ann", "bob"), 5), (("ann", "cy"), 3), (("bob", "cy"), 3)]


def test_the_questions_disagreed_on_most_come_first() -> None:
    report = agreement(RATINGS, TEXTS)
    # q1: c1 (3,3,2) differences 0,1,1 → 2/3; c2 (0,2) → 2; mean 4/3. q2: c1 → 0; c4 (3,0,0) → 3,3,0 → 2; mean 1
    assert [(d.question, d.text, d.judged, d.differing) for d in report.disagreements] == [
        ("q1", "first", 2, 2), ("q2", "second", 2, 1)]
    assert [d.mean_difference for d in report.disagreements] == pytest.approx([4 / 3, 1.0])
    assert report.disagreements[1].ids == (("c4", {"bob": 3, "cy": 0, "ann": 0}),)


def test_an_unknown_rater_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(RanklensError, match=r"no rater 'dee' among the workspace's judgments \(raters: ann, bob, cy\)"):
        agreement(RATINGS, TEXTS, ["ann", "dee"])


def test_one_rater_has_no_agreement() -> None:
    report = agreement({"q1": {"c1": {"ann": 2}}}, TEXTS)
    assert report.raters == ("ann",) and report.kappa is None and report.fleiss_kappa is None
    assert report.agreement is None and report.rater_pairs == () and report.disagreements == ()
