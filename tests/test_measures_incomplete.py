"""Measures of incomplete judgments (judged@k, bpref, nDCG_prime@k, P_prime@k) against trec_eval.

trec_eval, through pytrec_eval, is the oracle: the same runs (scores without ties, so its
docid tie-break never decides) and the same qrels, with grade-0 judgments and chunks nobody
judged. judged@k is trec_eval's P@k on the qrels with every judgment made relevant (what
ir_measures' Judged@k says it is); the prime measures are trec_eval's P@k and nDCG@k on the
run with its unjudged chunks removed, and small cases worked by hand.
"""
from __future__ import annotations

import math
import random

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.measuring.measures import measure_run, parse_measures
from tests.support.examples import examples

CUTS = (1, 3, 5, 10)


def _measured(run: dict[str, list[str]], qrels: dict[str, dict[str, int]], name: str) -> dict[str, float]:
    """Our measure ``name`` of every question of ``run`` that has judgments."""
    (measure,) = parse_measures(name)
    return {qid: measure(ranked, qrels[qid]) for qid, ranked in run.items() if qid in qrels}


def _trec_eval(run: dict[str, list[str]], qrels: dict[str, dict[str, int]], measures: set[str]) -> dict[str, dict]:
    """trec_eval's per-question values; the ranking is given as descending scores (no ties)."""
    scored = {qid: {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}
              for qid, ranked in run.items() if ranked}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(scored)


def _random_case(rng: random.Random, questions: int) -> tuple[dict[str, list[str]], dict[str, dict[str, int]]]:
    """Rankings over 60 chunks; each question judges a few, some 0, some never retrieved, most retrieved unjudged."""
    run, qrels = {}, {}
    for j in range(questions):
        pool = [f"c{i}" for i in range(60)]
        run[f"q{j}"] = rng.sample(pool, rng.randint(1, 40))
        judged = rng.sample(pool, rng.randint(1, 25))
        qrels[f"q{j}"] = {doc: rng.choice((0, 0, 0, 1, 2, 3)) for doc in judged}
    return run, qrels


@pytest.mark.parametrize("seed", range(5))
def test_bpref_equals_trec_eval(seed: int) -> None:
    run, qrels = _random_case(random.Random(seed), 80)
    theirs = _trec_eval(run, qrels, {"bpref"})
    ours = _measured(run, qrels, "bpref")
    assert set(theirs) == set(ours)
    for qid, values in theirs.items():
        assert ours[qid] == pytest.approx(values["bpref"], abs=1e-12), qid


@given(st.data())
@settings(max_examples=examples(300), deadline=None)
def test_bpref_equals_trec_eval_on_small_judgment_sets(data: st.DataObject) -> None:
    # few chunks: R > N, N = 0, nothing relevant retrieved, everything judged, come up often
    chunks = [f"c{i}" for i in range(8)]
    ranked = data.draw(st.lists(st.sampled_from(chunks), min_size=1, max_size=8, unique=True))
    grades = data.draw(st.dictionaries(st.sampled_from(chunks), st.integers(0, 2), min_size=1))
    theirs = _trec_eval({"q": ranked}, {"q": grades}, {"bpref"})
    assert _measured({"q": ranked}, {"q": grades}, "bpref")["q"] == pytest.approx(theirs["q"]["bpref"], abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_judged_at_k_is_trec_eval_precision_with_every_judgment_relevant(seed: int) -> None:
    run, qrels = _random_case(random.Random(100 + seed), 60)
    everything_relevant = {qid: dict.fromkeys(grades, 1) for qid, grades in qrels.items()}
    theirs = _trec_eval(run, everything_relevant, {"P." + ",".join(map(str, CUTS))})
    for k in CUTS:
        ours = _measured(run, qrels, f"Judged@{k}")
        for qid, values in theirs.items():
            assert ours[qid] == pytest.approx(values[f"P_{k}"], abs=1e-12), (qid, k)


@pytest.mark.parametrize("seed", range(3))
def test_precision_and_ndcg_with_grade_zero_judgments_equal_trec_eval(seed: int) -> None:
    # the anchor: the measures that count unjudged as not relevant read grade 0 the same way trec_eval does
    run, qrels = _random_case(random.Random(200 + seed), 60)
    cuts = ",".join(map(str, CUTS))
    theirs = _trec_eval(run, qrels, {f"P.{cuts}", f"ndcg_cut.{cuts}"})
    for k in CUTS:
        p, ndcg = _measured(run, qrels, f"P@{k}"), _measured(run, qrels, f"nDCG@{k}")
        for qid, values in theirs.items():
            assert p[qid] == pytest.approx(values[f"P_{k}"], abs=1e-12), (qid, k)
            assert ndcg[qid] == pytest.approx(values[f"ndcg_cut_{k}"], abs=1e-12), (qid, k)


@pytest.mark.parametrize("seed", range(3))
def test_prime_measures_are_trec_eval_measures_of_the_condensed_run(seed: int) -> None:
    run, qrels = _random_case(random.Random(300 + seed), 60)
    condensed = {qid: [doc for doc in ranked if doc in qrels.get(qid, {})] for qid, ranked in run.items()}
    cuts = ",".join(map(str, CUTS))
    theirs = _trec_eval(condensed, qrels, {f"P.{cuts}", f"ndcg_cut.{cuts}"})
    for k in CUTS:
        p, ndcg = _measured(run, qrels, f"P'@{k}"), _measured(run, qrels, f"nDCG_prime@{k}")
        for qid in run:
            want_p = theirs[qid][f"P_{k}"] if qid in theirs else 0.0  # nothing judged retrieved: trec_eval skips it
            want_ndcg = theirs[qid][f"ndcg_cut_{k}"] if qid in theirs else 0.0
            assert p[qid] == pytest.approx(want_p, abs=1e-12), (qid, k)
            assert ndcg[qid] == pytest.approx(want_ndcg, abs=1e-12), (qid, k)


def test_one_question_by_hand() -> None:
    # ranking: u1 (unjudged), a (rel 2), n1 (judged 0), u2, b (rel 1), n2 (judged 0), c (rel 3)
    # judged: a 2, b 1, c 3, z 1 (never retrieved), n1 0, n2 0, n3 0 (never retrieved): R = 4, N = 3
    ranked = ["u1", "a", "n1", "u2", "b", "n2", "c"]
    grades = {"a": 2, "b": 1, "c": 3, "z": 1, "n1": 0, "n2": 0, "n3": 0}
    got = measure_run({"q": ranked}, {"q": grades}, "judged@4 judged@10 bpref P'@3 nDCG'@3 P@3 nDCG@3").means
    # condensed: a, n1, b, n2, c
    ideal3 = 3 + 2 / math.log2(3) + 1 / math.log2(4)  # grades 3, 2, 1 (z's 1 ties b's)
    expected = {
        "judged@4": 2 / 4, "judged@10": 5 / 10,
        # a: no non-relevant above -> 1; b: 1 above -> 1 - 1/3; c: 2 above -> 1 - 2/3; z not retrieved -> 0
        "bpref": (1 + (1 - 1 / 3) + (1 - 2 / 3)) / 4,
        "P_prime@3": 2 / 3,  # a, n1, b
        "nDCG_prime@3": (2 + 1 / math.log2(4)) / ideal3,
        "P@3": 1 / 3,  # u1, a, n1
        "nDCG@3": (2 / math.log2(3)) / ideal3,
    }
    assert got == pytest.approx(expected, abs=1e-15)


def test_bpref_caps_the_non_relevant_count_at_r() -> None:
    # R = 1, N = 3: the one relevant chunk behind two non-relevant ones loses min(2, 1) / min(1, 3) = everything
    assert measure_run({"q": ["n1", "n2", "a"]}, {"q": {"a": 1, "n1": 0, "n2": 0, "n3": 0}}, "bpref").means == {
        "bpref": 0.0}
    # N = 0: nothing judged non-relevant, every retrieved relevant chunk adds 1 (a recall)
    assert measure_run({"q": ["u", "a"]}, {"q": {"a": 1, "b": 2}}, "bpref").means == {"bpref": 0.5}


def test_judging_more_chunks_moves_the_prime_measures_and_not_the_plain_ones() -> None:
    ranked = ["u1", "u2", "a"]
    sparse = {"a": 1}
    fuller = {"a": 1, "u1": 0, "u2": 0}
    plain, prime = parse_measures("P@1 nDCG@3"), parse_measures("P'@1 nDCG'@3")
    assert [m(ranked, sparse) for m in plain] == [m(ranked, fuller) for m in plain]
    assert [m(ranked, sparse) for m in prime] == [1.0, 1.0]
    assert [m(ranked, fuller) for m in prime] == [0.0, pytest.approx(0.5)]


@pytest.mark.parametrize(("text", "names"), [
    ("Judged@10 judged@10 JUDGED@5", ["judged@10", "judged@5"]),
    ("bpref Bpref BPREF", ["bpref"]),
    ("nDCG'@10 ndcg_prime@10 NDCG'@5", ["nDCG_prime@10", "nDCG_prime@5"]),
    ("P'@5 p_prime@5 P_prime", ["P_prime@5", "P_prime"]),
])
def test_names_and_their_aliases(text: str, names: list[str]) -> None:
    assert [m.name for m in parse_measures(text)] == names


@pytest.mark.parametrize("text", ["bpref@5", "nDCG''@10", "P'x@5"])
def test_bad_names_are_refused(text: str) -> None:
    from ranklens.engine.errors import RanklensError

    with pytest.raises(RanklensError, match=r"^(bpref takes no @k|unknown measure)"):
        parse_measures(text)
