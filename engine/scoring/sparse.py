"""Query-time scoring over a term-major (CSC) weight matrix.

Only the columns of the query's terms are touched: the cost is the length of
their posting lists, not the number of chunks.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from engine.termindex import QueryTerms


def column_scores(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray) -> np.ndarray:
    """sum_j query_weights[j] * weights[:, ids[j]] as a dense vector over chunks."""
    n = weights.shape[0]
    if ids.size == 0:
        return np.zeros(n)
    indptr = weights.indptr
    starts, ends = indptr[ids], indptr[ids + 1]
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(n)
    # positions of every posting of every query term, without a loop over postings
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    positions = np.arange(total) + offsets
    values = weights.data[positions] * np.repeat(query_weights, lengths)
    return np.bincount(weights.indices[positions], weights=values, minlength=n)


def row_values(matrix: sp.csr_matrix, row: int, ids: np.ndarray) -> np.ndarray:
    """matrix[row, ids] as a dense vector, for explanations (rows have sorted indices)."""
    lo, hi = matrix.indptr[row], matrix.indptr[row + 1]
    cols = matrix.indices[lo:hi]
    where = np.searchsorted(cols, ids)
    found = (where < cols.size) & (cols[np.minimum(where, max(cols.size - 1, 0))] == ids) if cols.size else np.zeros(ids.size, bool)
    out = np.zeros(ids.size)
    out[found] = matrix.data[lo + where[found]]
    return out


def query_matrix(queries: Sequence[QueryTerms], weights: Sequence[np.ndarray], n_terms: int) -> sp.csr_matrix:
    """Queries as rows of a sparse matrix over the vocabulary, for batch scoring."""
    lengths = [q.ids.size for q in queries]
    rows = np.repeat(np.arange(len(queries)), lengths)
    cols = np.concatenate([q.ids for q in queries]) if queries else np.zeros(0, dtype=np.int64)
    data = np.concatenate(list(weights)) if queries else np.zeros(0)
    return sp.csr_matrix((data, (rows, cols)), shape=(len(queries), n_terms))


def batch_scores(columns: sp.csc_matrix, queries: sp.csr_matrix) -> np.ndarray:
    """queries x chunks scores in one sparse product (columns.T is term-major CSR)."""
    return np.asarray((queries @ columns.T).toarray())
