"""Weights are built over a compressed matrix's postings a slice at a time: each posting's column, by slice;
the slices shared between threads, each part written by one."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.work import cores
from ranklens.engine.work.cores import in_parts
from ranklens.engine.scoring.sparse import posting_slices
from tests.support.examples import examples


def test_each_posting_gets_the_column_it_is_stored_in() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        sizes = rng.integers(0, 6, rng.integers(1, 40)) * (rng.random() < 0.9)  # empty columns, empty matrices
        indptr = np.concatenate([[0], np.cumsum(sizes)])
        column = np.repeat(np.arange(sizes.size), sizes)  # the oracle: a column id per posting, whole
        for step in (1, 2, 3, 7, 1000):
            slices = list(posting_slices(indptr, step))
            assert [lo for lo, _, _ in slices] == list(range(0, int(indptr[-1]), step))
            for lo, hi, columns in slices:
                assert hi == min(lo + step, indptr[-1])
                np.testing.assert_array_equal(columns, column[lo:hi])


def test_slices_of_a_range_of_postings_are_those_of_the_whole() -> None:
    indptr = np.array([0, 3, 3, 10, 11, 20])
    whole = {lo: (hi, list(columns)) for lo, hi, columns in posting_slices(indptr, 1)}
    for start, stop in ((0, 20), (4, 9), (10, 11), (7, 7)):
        part = list(posting_slices(indptr, 1, start, stop))
        assert {lo: (hi, list(columns)) for lo, hi, columns in part} == {lo: whole[lo] for lo in range(start, stop)}


@settings(max_examples=examples(300), deadline=None)
@given(total=st.integers(0, 200), step=st.integers(1, 40), threads=st.integers(1, 5))
def test_in_parts_covers_the_range_once_in_parts_a_multiple_of_the_step(total: int, step: int, threads: int) -> None:
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()

    def work(start: int, stop: int) -> None:
        with lock:
            seen.append((start, stop))

    in_parts(total, step, work, threads)
    parts = sorted(seen)
    assert [i for start, stop in parts for i in range(start, stop)] == list(range(total))
    assert all(start % step == 0 for start, _ in parts) and len(parts) <= max(1, threads)
    # shared when there is more than a step to share and more than one thread to share it
    assert (len(parts) > 1) == (threads > 1 and total > step)


def test_in_parts_raises_a_parts_error() -> None:
    def work(start: int, stop: int) -> None:
        if start > 0:
            raise ValueError("part two failed")

    with pytest.raises(ValueError, match="part two failed"):
        in_parts(100, 10, work, 2)


@pytest.mark.parametrize("variant", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_bm25_built_on_threads_in_small_slices_equals_its_build_in_one(variant: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens.engine.text.analysis import Analyzer
    from ranklens.engine.scoring import bm25 as bm25_module
    from ranklens.engine.scoring.bm25 import BM25Scorer
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import TermIndex
    from tests.test_tfidf_build import texts

    index = TermIndex.build(texts(), Analyzer.from_setup(Setup()))
    whole = BM25Scorer.fit(index, variant)
    monkeypatch.setattr(bm25_module, "_SLICE", 7)  # slices that cut columns anywhere
    monkeypatch.setattr(cores, "usable_cores", lambda: 3)  # three parts, on three threads
    sliced = BM25Scorer.fit(index, variant)
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(sliced.columns, name), getattr(whole.columns, name)), name
    dense = index.counts.toarray().astype(np.float64)  # the oracle: every weight from the dense counts
    norm = 1 - 0.75 + 0.75 * index.doc_len / index.doc_len.mean()
    rows, cols = np.nonzero(dense)
    tfc = bm25_module.bm25_tfc(variant, dense[rows, cols], norm[rows], 1.2, 0.5)
    expected = sp.csc_matrix((whole.idf[cols] * tfc - whole.absent[cols], (rows, cols)), shape=dense.shape)
    assert np.allclose(whole.columns.toarray(), expected.toarray(), rtol=0, atol=1e-12)


def test_a_columns_lookup_searches_it_in_its_own_type(monkeypatch: pytest.MonkeyPatch) -> None:
    # int64 needles in an int32 column would make numpy copy the whole column at every lookup (10x slower)
    from ranklens.engine.scoring import sparse

    weights = sp.csc_matrix(np.arange(1, 13, dtype=np.float64).reshape(4, 3))
    seen: list[tuple] = []
    search = np.searchsorted

    def searchsorted(haystack, needles, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        seen.append((haystack.dtype, np.asarray(needles).dtype))
        return search(haystack, needles, *args, **kwargs)

    monkeypatch.setattr(sparse.np, "searchsorted", searchsorted)
    found, values = sparse._lookup(weights, 1, np.array([0, 2, 5], dtype=np.int64))
    assert found.tolist() == [True, True, False] and values.tolist() == [2.0, 8.0]
    list(sparse.posting_slices(weights.indptr.astype(np.int32), 5))
    assert seen and all(haystack == needles for haystack, needles in seen)


def test_counts_past_a_byte_keep_their_values_in_the_index_and_bm25() -> None:
    # counts are stored in the narrowest type that holds them: 300 needs 16 bits and 70,000 needs 32
    from sklearn.feature_extraction.text import CountVectorizer

    from ranklens.engine.text.analysis import Analyzer
    from ranklens.engine.scoring.bm25 import BM25Scorer, bm25_tfc
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import TermIndex

    for repeats in (300, 70_000):
        texts = ["alpha " * repeats + "beta", "beta gamma", "alpha gamma gamma"]
        index = TermIndex.build(texts, Analyzer.from_setup(Setup()))
        oracle = CountVectorizer(token_pattern=r"(?u)\b\w\w+\b")
        expected = oracle.fit_transform(texts).toarray()
        columns = [int(index.term_ids[t]) for t in oracle.get_feature_names_out()]
        assert np.array_equal(index.counts.toarray()[:, columns], expected)
        assert index.counts.data.dtype == (np.uint16 if repeats < 65536 else np.uint32)
        scorer = BM25Scorer.fit(index)
        dense = index.counts.toarray().astype(np.float64)
        norm = 1 - 0.75 + 0.75 * index.doc_len / index.doc_len.mean()
        rows, cols = np.nonzero(dense)
        weights = scorer.idf[cols] * bm25_tfc("lucene", dense[rows, cols], norm[rows], 1.2, 0.5)
        assert np.allclose(scorer.columns.toarray()[rows, cols], weights, rtol=0, atol=1e-12)
