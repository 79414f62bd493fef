"""Weights are built over a compressed matrix's postings a slice at a time: each posting's column, by slice."""
from __future__ import annotations

import numpy as np

from ranklens.engine.scoring.sparse import posting_slices


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
