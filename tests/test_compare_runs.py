"""Comparing two runs (engine/comparing/two_runs.py compare_runs) against numbers worked out by hand.

The sides are judged differently on purpose: a question judged on one side only is still compared
(it scores 0 on the side that judges nothing relevant), a question judged on neither is not, and a
question a run does not rank scores 0 there. Wins, ties and losses are counted on an example where B
wins more often than it loses, so a swap of the two counts shows.
"""
from __future__ import annotations

import itertools
import math

import pytest
from scipy import stats

from ranklens.engine.comparing.two_runs import RunSide, compare_runs
from ranklens.engine.corpus import Question
from ranklens.engine.comparing.significance import wins_ties_losses
from ranklens.engine.measuring.trec import Run

QUESTIONS = [Question(f"q{i}", f"question {i}", {}) for i in range(1, 8)]

# q2 is judged on B's side only, q3 only as non-relevant (grade 0) on A's, q7 on neither side.
QRELS_A = {"q1": {"c1": 1}, "q3": {"c3": 0}, "q4": {"c4": 1}, "q5": {"c5": 2}, "q6": {"c6": 1}}
QRELS_B = {"q1": {"c1": 1}, "q2": {"c2": 1}, "q4": {"c4": 1}, "q5": {"c5": 2}, "q6": {"c6": 1}}
RUN_A = Run({"q1": [("c9", 2.0), ("c1", 1.0)], "q2": [("c2", 1.0)], "q3": [("c3", 1.0)], "q4": [("c4", 1.0)],
             "q5": [("c5", 1.0)], "q7": [("c7", 1.0)]})  # no line for q6
RUN_B = Run({"q1": [("c1", 1.0)], "q2": [("c2", 1.0)], "q3": [("c3", 1.0)],
             "q4": [("c8", 3.0), ("c7", 2.0), ("c4", 1.0)], "q5": [("c5", 1.0)], "q6": [("c6", 1.0)]})

# By hand, question by question (q1, q2, q4, q5, q6): the rank of the first relevant chunk,
# reciprocal rank and precision at 1.
RANKS_A = [2, None, 1, 1, None]
RANKS_B = [1, 1, 3, 1, 1]
RR_A = [1 / 2, 0.0, 1.0, 1.0, 0.0]
RR_B = [1.0, 1.0, 1 / 3, 1.0, 1.0]
P1_A = [0.0, 0.0, 1.0, 1.0, 0.0]
P1_B = [1.0, 1.0, 0.0, 1.0, 1.0]


def compared(permutations: int = 2_000):
    return compare_runs(RunSide("a", RUN_A, QRELS_A), RunSide("b", RUN_B, QRELS_B), QUESTIONS, "MRR@10 P@1",
                        permutations)


def test_questions_judged_on_either_side_are_compared_and_scored_by_hand() -> None:
    comparison = compared()
    assert [q.id for q in comparison.questions] == ["q1", "q2", "q4", "q5", "q6"]
    assert [q.rank_a for q in comparison.questions] == RANKS_A
    assert [q.rank_b for q in comparison.questions] == RANKS_B
    assert [q.a["MRR@10"] for q in comparison.questions] == pytest.approx(RR_A)
    assert [q.b["MRR@10"] for q in comparison.questions] == pytest.approx(RR_B)
    mrr, p1 = comparison.rows
    assert (mrr.name, mrr.a, mrr.b) == ("MRR@10", pytest.approx(2.5 / 5), pytest.approx((4 + 1 / 3) / 5))
    assert mrr.delta == pytest.approx((4 + 1 / 3) / 5 - 2.5 / 5)
    assert (p1.name, p1.a, p1.b) == ("P@1", pytest.approx(2 / 5), pytest.approx(4 / 5))
    assert comparison.notes == ["a: 1 compared question(s) not in the run (scored 0)"]


def test_wins_ties_and_losses_are_b_against_a() -> None:
    comparison = compared()
    # MRR@10, B - A: q1 +1/2, q2 +1, q4 -2/3, q5 0, q6 +1
    assert (comparison.primary.wins, comparison.primary.ties, comparison.primary.losses) == (3, 1, 1)
    p1 = comparison.rows[1]
    assert (p1.wins, p1.ties, p1.losses) == (3, 1, 1)  # q1, q2, q6 up; q5 level; q4 down
    assert [q.id for q in comparison.moved()] == ["q2", "q6", "q4", "q1"]  # by |Δ|, ties in corpus order
    data = comparison.to_dict()
    assert (data["by"], data["wins"], data["ties"], data["losses"]) == ("MRR@10", 3, 1, 1)


def test_wins_ties_losses_of_plain_lists() -> None:
    assert wins_ties_losses([0.1, 0.5, 0.9, 0.2], [0.4, 0.6, 0.3, 0.2]) == (2, 1, 1)
    assert wins_ties_losses([0.3, 0.3], [0.2, 0.1]) == (0, 0, 2)
    # equal but for float noise is a tie: 0.1 + 0.2 is 0.30000000000000004
    assert wins_ties_losses([0.1 + 0.2, 1.0], [0.3, 1.0]) == (0, 2, 0)


def test_the_tests_of_the_comparison_match_scipy_and_the_exact_randomization() -> None:
    comparison = compared(permutations=10_000)
    mrr = comparison.primary
    d = [b - a for a, b in zip(RR_A, RR_B)]
    assert mrr.p_ttest == pytest.approx(stats.ttest_rel(RR_A, RR_B).pvalue, rel=1e-12)
    # five questions: all 32 sign vectors give the exact randomization p
    observed = abs(sum(d) / len(d))
    exact = sum(abs(sum(s * x for s, x in zip(signs, d)) / len(d)) >= observed - 1e-12
                for signs in itertools.product((1, -1), repeat=len(d))) / 2 ** len(d)
    assert abs(mrr.p_randomization - exact) < 4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-4
    low, high = mrr.ci95
    assert min(d) <= low < sum(d) / len(d) < high <= max(d)


def test_a_question_judged_on_neither_side_is_left_out() -> None:
    only_a = {"q1": {"c1": 1}}
    comparison = compare_runs(RunSide("a", RUN_A, only_a), RunSide("b", RUN_B, {}), QUESTIONS, "MRR@10", 100)
    assert [(q.id, q.a["MRR@10"], q.b["MRR@10"]) for q in comparison.questions] == [("q1", 0.5, 0.0)]
