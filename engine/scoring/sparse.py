"""Query-time scoring over a term-major (CSC) weight matrix.

Only the columns of the query's terms are touched: the cost is the length of
their posting lists, not the number of chunks.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def column_scores(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray) -> np.ndarray:
    """sum_j query_weights[j] * weights[:, ids[j]] as a dense vector over chunks."""
    scores = np.zeros(weights.shape[0])
    indptr, indices, data = weights.indptr, weights.indices, weights.data
    for term, weight in zip(ids.tolist(), np.asarray(query_weights).tolist()):  # a loop over query terms only
        lo, hi = indptr[term], indptr[term + 1]
        scores[indices[lo:hi]] += data[lo:hi] * weight  # a column names each chunk once: no collisions
    return scores


def row_values(matrix: sp.csr_matrix, row: int, ids: np.ndarray) -> np.ndarray:
    """matrix[row, ids] as a dense vector, for explanations (rows have sorted indices)."""
    lo, hi = matrix.indptr[row], matrix.indptr[row + 1]
    cols = matrix.indices[lo:hi]
    where = np.searchsorted(cols, ids)
    found = (where < cols.size) & (cols[np.minimum(where, max(cols.size - 1, 0))] == ids) if cols.size else np.zeros(ids.size, bool)
    out = np.zeros(ids.size)
    out[found] = matrix.data[lo + where[found]]
    return out

