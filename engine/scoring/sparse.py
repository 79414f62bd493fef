"""Query-time scoring over a term-major (CSC) weight matrix.

Only the columns of the query's terms are touched: the cost is the length of
their posting lists, not the number of chunks. When those lists are short
(rare terms) the scores are accumulated over the touched chunks alone and no
vector of size N is made; when they are long a dense vector is cheaper than
sorting them. Both forms add each chunk's term contributions in the query's
term order, starting from 0, so they give bit-identical scores.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ranklens.engine.text.termindex import narrow_counts
from ranklens.engine.topk import QueryScores, top_k

# Postings per chunk above which a dense N-vector is cheaper than merging the posting
# lists (a stable sort of the touched chunk ids); measured at 100k and 1M chunks.
DENSE_SHARE = 0.125
# Postings below which MaxScore does not pay: taking terms one by one costs more numpy calls
# than scoring them all (a 10k-chunk corpus never prunes, a 1M one does on most Zipf queries).
PRUNE_MIN_POSTINGS = 1 << 16


def column_scores(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray) -> np.ndarray:
    """sum_j query_weights[j] * weights[:, ids[j]] as a dense vector over chunks.

    One ``bincount`` over the query's postings, concatenated in term order: it adds each
    chunk's contributions one by one from 0 in that order, the sums a scatter term by term
    makes, in one pass instead of a read-modify-write of the N-vector per term.
    """
    indptr, indices, data = weights.indptr, weights.indices, weights.data
    spans = [(indptr[t], indptr[t + 1], w) for t, w in zip(np.asarray(ids).tolist(),
                                                           np.asarray(query_weights).tolist())]
    if not spans:
        return np.zeros(weights.shape[0])
    # float32 weights are widened before the product
    parts = np.concatenate([np.multiply(data[lo:hi], w, dtype=np.float64) for lo, hi, w in spans])
    chunks = np.concatenate([indices[lo:hi] for lo, hi, _ in spans])
    return np.bincount(chunks, weights=parts, minlength=weights.shape[0])


def query_scores(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray,
                 base: float = 0.0, dense_share: float = DENSE_SHARE,
                 bounds: tuple[list[int], list[int]] | None = None) -> QueryScores:
    """``column_scores + base`` as a ``QueryScores``: touched chunks only when the postings are short.

    ``weights`` must have sorted row indices in each column (canonical CSC).
    ``base`` is added to every chunk (the score of a chunk none of the terms touch).
    ``bounds``: the terms' ``posting_bounds``, when the caller has them already.
    """
    n = weights.shape[0]
    indices, data = weights.indices, weights.data
    los, his = posting_bounds(weights, ids) if bounds is None else bounds
    if sum(his) - sum(los) > dense_share * n:
        scores = column_scores(weights, np.asarray(ids, dtype=np.intp), query_weights)
        scores += base
        return QueryScores(n, scores)
    if not los:
        return QueryScores(n, np.zeros(0), np.zeros(0, dtype=np.int64), 0.0 + base)
    w = np.asarray(query_weights, dtype=np.float64).tolist()
    if len(los) == 1:
        lo, hi = los[0], his[0]
        return QueryScores(n, np.multiply(data[lo:hi], w[0], dtype=np.float64) + base,
                           indices[lo:hi].astype(np.int64), float(base))
    chunks, first, sums = _merged(indices, data, los, his, w)
    if base:
        sums += base
    return QueryScores(n, sums, chunks[first].astype(np.int64), float(base))


def _merged(indices: np.ndarray, data: np.ndarray, los: list[int], his: list[int],
            w: list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the postings' chunks in ascending order, a mask of each chunk's first posting among them, each chunk's
    score): two terms' postings or more merged, each chunk's contributions added in term order from 0.

    A rare-term query costs its numpy calls more than its postings: each one counts here.
    """
    chunks = np.concatenate([indices[lo:hi] for lo, hi in zip(los, his)])
    # float32 weights are widened before the product, as the dense form widens them; x * 1.0 is x
    if w.count(1.0) == len(w):
        parts = np.concatenate([data[lo:hi] for lo, hi in zip(los, his)], dtype=np.float64)
    else:
        parts = np.concatenate([np.multiply(data[lo:hi], wj, dtype=np.float64) for lo, hi, wj in zip(los, his, w)])
    # A stable sort keeps each chunk's contributions in term order; bincount then adds them
    # one by one from 0, the same sums the dense scatter makes (np.add.reduceat would not:
    # it adds long runs pairwise).
    order = chunks.argsort(kind="stable")  # methods: numpy functions add a Python call
    chunks = chunks[order]
    first = np.empty(chunks.size, dtype=bool)
    first[0] = True
    np.not_equal(chunks[1:], chunks[:-1], out=first[1:])
    sums: np.ndarray = np.bincount(first.cumsum(), weights=parts[order])[1:]  # group g counted as g + 1
    return chunks, first, sums


def _touched_top(weights: sp.csc_matrix, query_weights: np.ndarray, k: int, base: float,
                 los: list[int], his: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``query_scores(...).top(k)`` for two terms' short postings or more, the usual rare-term query: the ids
    of the top k alone are made, no ``QueryScores`` unless untouched chunks may rank (fewer than k touched)."""
    chunks, first, sums = _merged(weights.indices, weights.data, los, his,
                                  np.asarray(query_weights, dtype=np.float64).tolist())
    if base:
        sums += base
    if sums.size >= k > 0:
        best = top_k(sums, k)
        scores = sums[best]
        if scores[-1] > base:  # every untouched chunk scores base, below the k-th
            return chunks[first][best].astype(np.int64), scores
    return QueryScores(weights.shape[0], sums, chunks[first].astype(np.int64), float(base)).top(k)


def posting_bounds(weights: sp.csc_matrix, terms: np.ndarray) -> tuple[list[int], list[int]]:
    """Where each term's postings start and end in ``weights.indices`` and ``.data``."""
    # read through a memoryview, whose items are Python ints: four numpy calls cost more than a rare query's merge
    starts = weights.indptr.data
    terms = np.asarray(terms).tolist()
    return [starts[t] for t in terms], [starts[t + 1] for t in terms]


def _may_prune(postings: int, budget: float) -> bool:
    """Whether MaxScore may pay: on short postings scoring every touched chunk is cheaper than pruning."""
    return postings > max(budget, PRUNE_MIN_POSTINGS)


def ranked_top_k(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray, k: int,
                 upper: np.ndarray | None, base: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(chunk indices best first, their float64 scores) of the top k, ties to the lower index: the ranking of
    ``query_scores``' vector.

    Long postings are pruned by MaxScore when ``upper`` (``column_maxima``, None when a weight is negative)
    lets it; otherwise, as for every rare-term query, the touched chunks are scored.
    """
    bounds = posting_bounds(weights, ids)
    if upper is not None and _may_prune(sum(bounds[1]) - sum(bounds[0]), DENSE_SHARE * weights.shape[0]):
        pruned = pruned_top_k(weights, np.asarray(ids, dtype=np.intp), query_weights, k, upper, base)
        if pruned is not None:
            return pruned
    los, his = bounds
    if len(los) > 1 and sum(his) - sum(los) <= DENSE_SHARE * weights.shape[0]:
        return _touched_top(weights, query_weights, k, base, los, his)
    return query_scores(weights, ids, query_weights, base, bounds=bounds).top(k)


def posting_slices(indptr: np.ndarray, step: int, start: int = 0, stop: int | None = None):
    """(lo, hi, column of each posting in [lo, hi)) over a compressed matrix's postings ``start`` to ``stop``
    (all by default), ``step`` at a time.

    Builds weight matrices in bounded slices: no per-posting column array of the whole matrix.
    """
    end = int(indptr[-1]) if stop is None else stop
    for lo in range(start, end, step):
        hi = min(lo + step, end)
        # the columns the slice spans, each repeated for its postings in it: no binary search per posting
        ends = np.array([lo, hi - 1], dtype=indptr.dtype)  # of indptr's type: no copy of indptr to search it
        first, last = (np.searchsorted(indptr, ends, side="right") - 1).tolist()
        inside = np.minimum(indptr[first + 1:last + 2], hi) - np.maximum(indptr[first:last + 1], lo)
        yield lo, hi, np.repeat(np.arange(first, last + 1), inside)


def narrow_term_major(counts: sp.csr_matrix) -> sp.csc_matrix:
    """``counts`` term-major, each count in the narrowest type that holds them (``narrow_counts``; an index
    cached before the build narrowed its counts holds int32): the transposed copy then costs its indices and
    a byte per posting, not four."""
    return sp.csr_matrix((narrow_counts(counts.data), counts.indices, counts.indptr), shape=counts.shape).tocsc()


def row_values(matrix: sp.csr_matrix, row: int, ids: np.ndarray) -> np.ndarray:
    """matrix[row, ids] as a dense vector, for explanations (rows have sorted indices)."""
    lo, hi = matrix.indptr[row], matrix.indptr[row + 1]
    cols = matrix.indices[lo:hi]
    where = np.searchsorted(cols, ids)
    if cols.size:
        found = (where < cols.size) & (cols[np.minimum(where, cols.size - 1)] == ids)
    else:
        found = np.zeros(ids.size, bool)
    out = np.zeros(ids.size)
    out[found] = matrix.data[lo + where[found]]
    return out


def column_maxima(weights: sp.csc_matrix) -> np.ndarray:
    """The largest weight in each column (0 for an empty one): a term's most a chunk can get from it."""
    out = np.zeros(weights.shape[1])
    nonempty = np.flatnonzero(np.diff(weights.indptr) > 0)
    if nonempty.size:
        out[nonempty] = np.maximum.reduceat(weights.data, weights.indptr[nonempty])
    return out


def _lookup(weights: sp.csc_matrix, term: int, chunks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mask over ``chunks`` of those in the term's column, their weights), by binary search."""
    lo, hi = weights.indptr[term], weights.indptr[term + 1]
    column = weights.indices[lo:hi]
    if column.size == 0:
        return np.zeros(chunks.size, dtype=bool), np.zeros(0)
    # the needles in the column's type: with another, numpy would copy the whole column to search it
    pos = np.searchsorted(column, chunks.astype(column.dtype, copy=False))
    np.minimum(pos, column.size - 1, out=pos)
    found = column[pos] == chunks
    return found, weights.data[lo + pos[found]]


def exact_scores(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray, chunks: np.ndarray,
                 base: float = 0.0) -> np.ndarray:
    """The scores of the given chunks (ascending indices), equal bit for bit to ``query_scores``'.

    Contributions are added in the query's term order from 0, as the dense scatter adds them.
    """
    acc = np.zeros(chunks.size)
    for term, weight in zip(np.asarray(ids).tolist(), np.asarray(query_weights).tolist()):
        found, values = _lookup(weights, term, chunks)
        acc[found] += np.multiply(values, weight, dtype=np.float64)
    if base:
        acc += base
    return acc


def pruned_top_k(weights: sp.csc_matrix, ids: np.ndarray, query_weights: np.ndarray, k: int,
                 upper: np.ndarray, base: float = 0.0,
                 dense_share: float = DENSE_SHARE) -> tuple[np.ndarray, np.ndarray] | None:
    """The top k (chunk indices best first, their scores) by MaxScore, or None when it cannot prune.

    Needs non-negative weights and query weights; ``upper`` is ``column_maxima``.
    Terms are taken by decreasing upper bound; once the bounds of the terms
    left add up to less than the k-th best partial score (a lower bound of the
    true k-th), a chunk none of the taken terms touches cannot reach the top k,
    nor can a touched one whose partial score plus those bounds stays below it.
    The survivors are scored exactly (``exact_scores``) and ranked with the
    usual tie order, so ids and scores equal the full computation's. None when
    the postings of the terms that must be taken are long: the dense path is
    cheaper then.
    """
    n = weights.shape[0]
    terms = np.asarray(ids, dtype=np.intp)
    w = np.asarray(query_weights, dtype=np.float64)
    if terms.size < 2 or k <= 0:
        return None
    lengths = weights.indptr[terms + 1] - weights.indptr[terms]
    budget = dense_share * n
    if not _may_prune(int(lengths.sum()), budget):
        return None
    bounds = upper[terms] * w
    order = np.argsort(-bounds, kind="stable")
    rest = np.concatenate((np.cumsum(bounds[order][::-1])[::-1][1:], [0.0]))  # bounds of the terms after j
    taken = 0
    for j in range(terms.size - 1):
        taken += int(lengths[order[j]])
        if taken > budget:
            return None
        first = np.sort(order[:j + 1])  # the taken terms in query order, so partial sums add as the full ones do
        partial = query_scores(weights, terms[first], w[first], 0.0, dense_share=np.inf)
        if partial.touched < k:
            continue
        theta = partial.values[top_k(partial.values, k)[-1]]
        if rest[j] < theta:
            assert partial.ids is not None  # dense_share=inf: always the touched form
            keep = partial.values + rest[j] >= theta
            chunks = _survivors(weights, terms, w, order, j, partial.ids[keep], partial.values[keep], rest, theta, k)
            scores = exact_scores(weights, terms, w, chunks, base)
            best = top_k(scores, k)
            return chunks[best], scores[best]
    return None


# Relative slack on the pruning threshold: sums taken in another order than the query's may
# differ by a few units in the last place (1e-16 each); the slack keeps such near-ties in.
_SLACK = 1e-9


def _survivors(weights: sp.csc_matrix, terms: np.ndarray, w: np.ndarray, order: np.ndarray, j: int,
               chunks: np.ndarray, partial: np.ndarray, rest: np.ndarray, theta: float, k: int) -> np.ndarray:
    """The chunks that may still reach the top k once the terms after ``order[j]`` are added, one by one.

    After each term a chunk's partial score is a lower bound of its score and
    partial + the bounds of the terms left an upper bound: the k-th best lower
    bound rises, the upper bounds fall, and the chunks whose upper bound falls
    below it are dropped (as WAND does), so the long lists are looked up for
    fewer and fewer chunks.
    """
    for jj in range(j + 1, terms.size):
        if chunks.size <= k:
            break
        t = order[jj]
        found, values = _lookup(weights, int(terms[t]), chunks)
        partial[found] += np.multiply(values, w[t], dtype=np.float64)
        theta = max(theta, float(np.partition(partial, partial.size - k)[partial.size - k]))
        keep = partial + rest[jj] >= theta * (1 - _SLACK)
        chunks, partial = chunks[keep], partial[keep]
    return chunks


def csc_arrays(weights: sp.csc_matrix) -> dict[str, np.ndarray]:
    """A CSC matrix's three arrays by name, to be kept on disk (``engine/storage/cache.py``'s ``kept_weights``)."""
    return {"data": weights.data, "indices": weights.indices, "indptr": weights.indptr}


def csc_from(arrays: dict[str, np.ndarray], shape: tuple[int, int]) -> sp.csc_matrix:
    """The CSC matrix of ``csc_arrays``' arrays (memory-mapped ones are not copied), its shape checked."""
    data, indices, indptr = arrays["data"], arrays["indices"], arrays["indptr"]
    if indptr.shape != (shape[1] + 1,) or indices.shape != data.shape or int(indptr[-1]) != indices.size:
        raise ValueError("kept weights do not fit the term index")
    return sp.csc_matrix((data, indices, indptr), shape=shape)
