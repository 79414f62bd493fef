"""Scoring only the chunks a query's postings touch gives the dense vector's scores, ranks and ties.

Oracles: BM25 and TF-IDF written densely from their formulas over the count
matrix (no shared code with the touched path), bm25s for BM25L/BM25+ (whose
absent-term constant every untouched chunk gets), and the stable argsort for
top-k and ranks.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.scoring import sparse
from ranklens.engine.scoring.bm25 import BM25Scorer
from ranklens.engine.scoring.tfidf import TfidfScorer
from ranklens.engine.setup import Setup
from ranklens.engine.text.termindex import TermIndex
from ranklens.engine.topk import QueryScores, top_k
from tests.support.examples import examples

VARIANTS = ["lucene", "robertson", "atire", "bm25l", "bm25+"]


def zipf_texts(n_docs: int = 600, vocab: int = 4000, seed: int = 11) -> list[str]:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    lengths = rng.integers(3, 80, n_docs)
    return [" ".join(words[np.minimum(rng.zipf(1.2, size=length), vocab) - 1]) for length in lengths]


@pytest.fixture(scope="module")
def index() -> TermIndex:
    return TermIndex.build(zipf_texts(), Analyzer.from_setup(Setup()))


def queries(index: TermIndex) -> list:
    df = index.doc_freq
    rare = np.flatnonzero((df >= 1) & (df <= 3))
    common = np.argsort(-df)[:5]
    texts = [" ".join(index.vocabulary[rare[i:i + 4]]) for i in range(0, 120, 4)]  # short postings
    texts += [f"{index.vocabulary[common[0]]} {index.vocabulary[rare[7]]}",  # one long list: dense
              f"{index.vocabulary[rare[3]]} {index.vocabulary[rare[3]]} {index.vocabulary[rare[9]]}",  # repeats
              str(index.vocabulary[rare[5]])]  # a single term
    return [index.query(t) for t in texts]


def dense_bm25(index: TermIndex, variant: str, query, k1=1.2, b=0.75, delta=0.5) -> np.ndarray:
    """BM25 from the formulas, over every (chunk, query term) cell."""
    n = index.n_docs
    tf = index.counts[:, query.ids].toarray().astype(float)
    df = index.doc_freq[query.ids].astype(float)
    norm = (1 - b + b * index.doc_len / index.doc_len.mean())[:, None]
    if variant == "lucene":
        idf, tfc = np.log(1 + (n - df + 0.5) / (df + 0.5)), tf / (tf + k1 * norm)
    elif variant == "robertson":
        idf, tfc = np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0)), tf / (tf + k1 * norm)
    elif variant == "atire":
        idf, tfc = np.log(n / df), tf * (k1 + 1) / (tf + k1 * norm)
    elif variant == "bm25l":
        c = tf / norm
        idf, tfc = np.log((n + 1) / (df + 0.5)), (k1 + 1) * (c + delta) / (k1 + c + delta)
    else:
        idf, tfc = np.log((n + 1) / df), (k1 + 1) * tf / (k1 * norm + tf) + delta
    return (idf * tfc) @ query.counts


@pytest.mark.parametrize("variant", VARIANTS)
def test_bm25_touched_equals_dense_bit_for_bit_and_the_formula(index: TermIndex, variant: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    scorer = BM25Scorer.fit(index, variant)
    touched_seen = 0
    for query in queries(index):
        base = float(np.dot(scorer.absent[query.ids], query.counts))
        touched = sparse.query_scores(scorer.columns, query.ids, query.counts, base, dense_share=np.inf)
        dense = sparse.query_scores(scorer.columns, query.ids, query.counts, base, dense_share=0.0)
        assert dense.ids is None and touched.ids is not None
        touched_seen += touched.touched < index.n_docs
        assert np.array_equal(touched.dense(), dense.dense())  # identical floats, not just close
        assert np.abs(touched.dense() - dense_bm25(index, variant, query)).max() < 1e-9
        assert np.array_equal(scorer.scores(query), dense.dense())
    assert touched_seen > 20


def test_bm25l_and_bm25plus_touched_scores_equal_bm25s(index: TermIndex) -> None:
    import bm25s

    tokens = [list(t) for t in Analyzer.from_setup(Setup()).terms_many(zipf_texts())]
    for variant in ("bm25l", "bm25+"):
        reference = bm25s.BM25(method=variant, k1=1.2, b=0.75, delta=0.5, dtype="float64")
        reference.index(tokens, show_progress=False)
        scorer = BM25Scorer.fit(index, variant)
        for query in queries(index)[:30]:
            got = scorer.query_scores(query)
            assert got.ids is not None and got.base > 0  # short postings: untouched chunks keep the constant
            expected = reference.get_scores(list(query.terms))
            assert np.abs(got.dense() - expected).max() < 1e-9
            assert list(top_k(got, 10)) == list(np.argsort(-expected, kind="stable")[:10])


def test_tfidf_touched_equals_dense_and_the_formula(index: TermIndex) -> None:
    for sublinear in (False, True):
        scorer = TfidfScorer.fit(index, sublinear)
        counts = index.counts.toarray().astype(float)
        tf = np.where(counts > 0, 1 + np.log(np.maximum(counts, 1)), 0.0) if sublinear else counts
        weighted = tf * (np.log((1 + index.n_docs) / (1 + index.doc_freq)) + 1)
        unit = weighted / np.linalg.norm(weighted, axis=1, keepdims=True)
        for query in queries(index):
            q = np.zeros(index.vocabulary.size)
            q[query.ids] = scorer.query_weights(query)
            touched = sparse.query_scores(scorer.columns, query.ids, scorer.query_weights(query), dense_share=np.inf)
            assert np.array_equal(touched.dense(), scorer.scores(query))
            assert np.abs(touched.dense() - unit @ q).max() < 1e-12


# Integer-valued scores over few chunks make ties, with the base, frequent.
@settings(max_examples=examples(300), deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 30), elements=st.integers(-2, 3).map(float)),
       st.data(), st.integers(-1, 2).map(float))
def test_top_k_and_gold_rank_on_touched_scores_follow_the_stable_order(values, data, base) -> None:
    n = values.size + data.draw(st.integers(0, 30))
    ids = np.sort(np.random.default_rng(data.draw(st.integers(0, 99))).choice(n, values.size, replace=False))
    scores = QueryScores(n, values, ids, base)
    dense = scores.dense()
    assert dense[ids].tolist() == values.tolist() and np.count_nonzero(dense == base) >= n - ids.size
    order = np.argsort(-dense, kind="stable")
    for k in (1, 3, 10, n, n + 5):
        assert top_k(scores, k).tolist() == order[:k].tolist()
        best, best_scores = scores.top(k)
        assert best.tolist() == order[:k].tolist() and best_scores.tolist() == dense[order[:k]].tolist()
    relevant = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=4)), dtype=int)
    expected = int(np.flatnonzero(np.isin(order, relevant))[0]) + 1 if relevant.size else None
    assert scores.gold_rank(relevant) == expected
    probe = np.arange(n)
    assert scores[probe].tolist() == dense.tolist() and scores[int(n - 1)] == dense[-1]
    assert scores.max(initial=0.0) == max(dense.max(), 0.0) and scores.any() == dense.any()
    assert np.array_equal(np.asarray(scores), dense)


def test_touched_top_k_on_a_million_chunks_matches_dense() -> None:
    rng = np.random.default_rng(5)
    n = 1_000_000
    ids = np.sort(rng.choice(n, 5000, replace=False))
    values = rng.integers(1, 50, ids.size).astype(float)
    scores = QueryScores(n, values, ids)
    assert top_k(scores, 10).tolist() == top_k(scores.dense(), 10).tolist()
    assert scores.gold_rank(ids[-3:]) == int(np.argsort(-scores.dense(), kind="stable").tolist().index(
        ids[-3:][np.argmax(values[-3:])]) + 1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_maxscore_top_k_equals_ranking_every_chunk(index: TermIndex, variant: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sparse, "PRUNE_MIN_POSTINGS", 0)  # prune on a corpus this small too
    scorer = BM25Scorer.fit(index, variant)
    assert scorer.upper is not None
    df = index.doc_freq
    common, mid = np.argsort(-df)[:6], np.flatnonzero((df >= 5) & (df <= 30))
    texts = [f"{index.vocabulary[common[i % 6]]} {index.vocabulary[common[(i + 2) % 6]]} {index.vocabulary[mid[i]]}"
             f" {index.vocabulary[mid[i + 40]]}" for i in range(40)]
    pruned = 0
    for query in [index.query(t) for t in texts]:
        expected_scores = dense_bm25(index, variant, query)
        base = float(np.dot(scorer.absent[query.ids], query.counts))
        for k in (1, 10, 50):
            order = np.argsort(-scorer.scores(query), kind="stable")[:k]
            for share in (0.02, 0.1, 0.3):
                got = sparse.pruned_top_k(scorer.columns, query.ids, query.counts, k, scorer.upper, base, share)
                if got is None:
                    continue
                pruned += 1
                assert got[0].tolist() == order.tolist()
                assert np.array_equal(got[1], scorer.scores(query)[order])  # identical floats
                assert np.abs(got[1] - expected_scores[order]).max() < 1e-9
            ids, values = scorer.top_k(query, k)
            assert ids.tolist() == order.tolist() and np.array_equal(values, scorer.scores(query)[order])
    assert pruned > 50


@pytest.mark.parametrize("make", [lambda i: BM25Scorer.fit(i, "lucene"), lambda i: BM25Scorer.fit(i, "bm25l"),
                                  lambda i: BM25Scorer.fit(i, "lucene", dtype=np.float32),
                                  lambda i: TfidfScorer.fit(i), lambda i: TfidfScorer.fit(i, True)])
def test_a_rare_term_top_k_is_the_dense_ranking_with_its_floats(index: TermIndex, make) -> None:
    """The top k of short postings, made without a QueryScores (the search path), for term counts of 1 and of 2
    (the repeated term), float32 weights, a base every untouched chunk gets (bm25l), and k beyond the touched
    chunks (untouched ones rank then, ties to the lower index)."""
    scorer = make(index)
    rare = [q for q in queries(index) if q.ids.size > 1 and index.doc_freq[q.ids].max() <= 3]
    assert len(rare) > 20 and any(q.counts.max() == 2 for q in rare)
    for query in rare:
        dense = scorer.scores(query)
        for k in (1, 3, 10, 600):
            order = np.argsort(-dense, kind="stable")[:k]
            ids, values = scorer.top_k(query, k)
            assert ids.tolist() == order.tolist() and np.array_equal(values, dense[order]), (query.text, k)


def test_a_touched_chunk_scoring_no_more_than_the_untouched_ties_with_them_in_index_order() -> None:
    """A weight of 0 in a short posting list (an idf of 0): the touched chunk ties with every untouched one, and
    the lower indices come first, as in the dense ranking."""
    import scipy.sparse as scipy_sparse

    weights = scipy_sparse.csc_matrix((np.array([1.0, 0.0, 0.0, 2.0]), np.array([10, 500, 500, 700]),
                                       np.array([0, 2, 4])), shape=(1000, 2))
    dense = np.asarray(weights.sum(axis=1)).ravel()
    for k in (2, 3, 5):
        ids, values = sparse.ranked_top_k(weights, np.array([0, 1]), np.array([1.0, 1.0]), k, None)
        order = np.argsort(-dense, kind="stable")[:k]
        assert ids.tolist() == order.tolist() and np.array_equal(values, dense[order])
    assert sparse.ranked_top_k(weights, np.array([0, 1]), np.array([1.0, 1.0]), 3, None)[0].tolist() == [700, 10, 0]


@pytest.mark.parametrize("make", [lambda i: BM25Scorer.fit(i, "lucene"), lambda i: BM25Scorer.fit(i, "bm25+"),
                                  lambda i: TfidfScorer.fit(i), lambda i: TfidfScorer.fit(i, True)])
def test_pending_scores_read_like_the_dense_vector(index: TermIndex, make, monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens.engine.topk import PendingScores

    monkeypatch.setattr(sparse, "PRUNE_MIN_POSTINGS", 0)
    scorer = make(index)
    df = index.doc_freq
    common, mid = np.argsort(-df)[:4], np.flatnonzero((df >= 3) & (df <= 20))
    texts = [f"{index.vocabulary[common[i % 4]]} {index.vocabulary[mid[i]]} {index.vocabulary[mid[i + 9]]}"
             for i in range(30)] + [str(index.vocabulary[common[0]])]
    for query in [index.query(t) for t in texts]:
        dense = scorer.scores(query)
        order = np.argsort(-dense, kind="stable")
        pending = PendingScores(scorer, query, index.n_docs)
        assert top_k(pending, 10).tolist() == order[:10].tolist()
        assert np.array_equal(pending[order[:10]], dense[order[:10]]) and pending.any() == dense.any()
        assert pending.max(initial=0.0) == max(dense.max(), 0.0)
        assert pending[int(order[-1])] == dense[order[-1]]  # outside the top: scored in full
        assert pending.gold_rank(order[[3, 50]]) == 4 and np.array_equal(np.asarray(pending), dense)


@pytest.mark.parametrize("make", [lambda i, d: BM25Scorer.fit(i, "lucene", dtype=d),
                                  lambda i, d: BM25Scorer.fit(i, "bm25l", dtype=d),
                                  lambda i, d: TfidfScorer.fit(i, dtype=d)])
def test_float32_weights_stay_within_their_documented_tolerance(index: TermIndex, make,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sparse, "PRUNE_MIN_POSTINGS", 0)
    exact, compact = make(index, np.float64), make(index, np.float32)
    assert compact.columns.data.dtype == np.float32 and compact.columns.data.nbytes * 2 == exact.columns.data.nbytes
    for query in queries(index):
        want, got = exact.scores(query), compact.scores(query)
        assert got.dtype == np.float64
        # each stored weight is rounded once (relative 2**-24); a score adds one weight per query term
        bound = query.counts.sum() * 2.0 ** -24 * np.abs(exact.columns[:, query.ids].toarray()).sum(axis=1) + 1e-300
        assert (np.abs(got - want) <= bound * (1 + 1e-9) + np.abs(want) * 1e-15).all()
        ids, values = compact.top_k(query, 10)  # pruned or not: the float32 scores' own ranking
        assert ids.tolist() == np.argsort(-got, kind="stable")[:10].tolist() and np.array_equal(values, got[ids])


def test_optional_capabilities_are_protocols_a_scorer_may_lack(index: TermIndex) -> None:
    """BM25 offers touched chunks and a pruned top-k; a scorer with ``scores`` alone is asked through it."""
    from ranklens.engine.scoring.base import DeepScoringCostly, PrunedTopK, TouchedScores, capable
    from ranklens.engine.topk import PendingScores, query_scores_of

    bm25 = BM25Scorer.fit(index, "lucene")

    class ScoresOnly:  # the contract's scores and nothing else
        def scores(self, query):  # noqa: ANN001, ANN202
            return bm25.scores(query)

    plain = ScoresOnly()
    assert isinstance(bm25, TouchedScores) and isinstance(bm25, PrunedTopK)
    assert not isinstance(plain, TouchedScores) and not isinstance(plain, PrunedTopK)
    for scorer in (bm25, plain, bm25, plain):  # answered again from what the class was found to be
        for capability in (TouchedScores, PrunedTopK, DeepScoringCostly):
            assert capable(scorer, capability) == isinstance(scorer, capability)
    df = index.doc_freq
    query = index.query(" ".join(str(index.vocabulary[t]) for t in np.argsort(-df)[:3]))
    dense = bm25.scores(query)
    order = np.argsort(-dense, kind="stable")
    pending = PendingScores(plain, query, index.n_docs)
    assert top_k(pending, 10).tolist() == order[:10].tolist() and pending.max() == dense.max()
    assert np.array_equal(query_scores_of(plain, query).dense(), dense)
