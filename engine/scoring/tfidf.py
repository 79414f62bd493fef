"""TF-IDF with scikit-learn's definitions, on sparse matrices.

idf(t) = ln((1 + n) / (1 + df(t))) + 1 (smooth_idf=True), tf raw or
1 + ln(tf) (sublinear_tf), rows L2-normalised: the score of a chunk is the
cosine between its vector and the query's, a dot product of unit vectors.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from ranklens.engine.scoring.base import NoAdjustments
from ranklens.engine.scoring.explain import Explanation, TermExplanation
from ranklens.engine.scoring.registry import ScorerInputs
from ranklens.engine.storage.cache import kept_weights
from ranklens.engine.work.cores import in_parts
from ranklens.engine.scoring.sparse import (column_maxima, csc_arrays, csc_from, narrow_term_major, posting_slices,
                                            query_scores, ranked_top_k, row_values)
from ranklens.engine.text.termindex import QueryTerms, TermIndex
from ranklens.engine.topk import QueryScores


_SLICE = 1 << 16  # postings weighted per step when building: ~0.5 MB per temporary


def tf_weight(counts: np.ndarray, sublinear: bool) -> np.ndarray:
    counts = counts.astype(np.float64)
    return 1.0 + np.log(counts) if sublinear else counts


@dataclass(frozen=True)
class TfidfScorer(NoAdjustments):
    index: TermIndex
    sublinear_tf: bool
    idf: np.ndarray
    doc_norm: np.ndarray  # L2 norm of each chunk's tf*idf vector before normalising
    columns: sp.csc_matrix  # chunks x terms, unit rows (scikit-learn's fit_transform), term-major
    upper: np.ndarray | None = None  # per term: its largest weight in any chunk (MaxScore pruning)

    name = "tfidf"

    @classmethod
    def fit(cls, index: TermIndex, sublinear_tf: bool = False, dtype: type = np.float64) -> TfidfScorer:
        """``dtype`` stores the weights: float64 (the default, equal to scikit-learn's within 1e-9) or
        float32, half the memory per posting; cosines are still added in float64 and move by at
        most about 6e-8 per query term (the rounding of each stored weight)."""
        n = index.n_docs
        idf = np.log((1.0 + n) / (1.0 + index.doc_freq)) + 1.0
        counts = index.counts
        # Only the term-major weights are kept, computed a slice at a time: the build's peak is
        # the counts twice plus one float per posting (scikit-learn's own is about the same).
        # Row norms add the squares as scipy's row sum does (reduceat per row), so every
        # weight is the float the chunk-major computation gave.
        squares = np.zeros(n)
        rows_per_slice = max(1, _SLICE * n // max(1, counts.nnz))
        for r0 in range(0, n, rows_per_slice):
            r1 = min(r0 + rows_per_slice, n)
            lo, hi = counts.indptr[r0], counts.indptr[r1]
            w = tf_weight(counts.data[lo:hi], sublinear_tf) * idf[counts.indices[lo:hi]]
            nonempty = np.flatnonzero(np.diff(counts.indptr[r0:r1 + 1]))
            if nonempty.size:
                squares[r0 + nonempty] = np.add.reduceat(w * w, counts.indptr[r0 + nonempty] - lo)
        norms = np.sqrt(squares)
        del squares
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        term_major = narrow_term_major(counts)
        data: np.ndarray = np.empty(term_major.nnz, dtype=dtype)

        def weigh(start: int, stop: int) -> None:
            for lo, hi, terms in posting_slices(term_major.indptr, _SLICE, start, stop):
                w = tf_weight(term_major.data[lo:hi], sublinear_tf) * idf[terms]
                data[lo:hi] = scale[term_major.indices[lo:hi]] * w

        in_parts(term_major.nnz, _SLICE, weigh)
        columns = sp.csc_matrix((data, term_major.indices, term_major.indptr), shape=counts.shape)
        return cls(index, sublinear_tf, idf, norms, columns, column_maxima(columns))

    def arrays(self) -> dict[str, np.ndarray]:
        """What ``from_arrays`` needs to make this scorer again without fitting (kept on disk)."""
        kept = {"idf": self.idf, "doc_norm": self.doc_norm, **csc_arrays(self.columns)}
        return kept if self.upper is None else {**kept, "upper": self.upper}

    @classmethod
    def from_arrays(cls, index: TermIndex, sublinear_tf: bool, arrays: dict[str, np.ndarray]) -> TfidfScorer:
        columns = csc_from(arrays, index.counts.shape)
        return cls(index, sublinear_tf, arrays["idf"], arrays["doc_norm"], columns, arrays.get("upper"))

    @cached_property
    def matrix(self) -> sp.csr_matrix:
        """chunks x terms, unit rows, chunk-major (scikit-learn's fit_transform): made when first asked (LSA)."""
        matrix = self.columns.tocsr()
        matrix.sort_indices()
        return matrix

    def query_weights(self, query: QueryTerms) -> np.ndarray:
        weights = tf_weight(query.counts, self.sublinear_tf) * self.idf[query.ids]
        norm = np.sqrt(np.dot(weights, weights))
        return weights / norm if norm > 0 else weights

    def query_scores(self, query: QueryTerms) -> QueryScores:
        """The query's cosines over all chunks, kept as the chunks its postings touch when they are few."""
        return query_scores(self.columns, query.ids, self.query_weights(query))

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.query_scores(query).dense()

    def top_k(self, query: QueryTerms, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(chunk indices, cosines) of the k best chunks, best first, ties to the lower index.

        Equal to ranking ``scores(query)``; skips the chunks that only long, low-weight
        posting lists touch when the rarer terms already decide the top k (MaxScore).
        """
        return ranked_top_k(self.columns, query.ids, self.query_weights(query), k, self.upper)

    def scores_batch(self, queries: list[QueryTerms]) -> np.ndarray:
        # one query at a time: a sparse product of many queries is nearly dense and slower
        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        q = self.query_weights(query)
        tf = row_values(self.index.counts, doc, query.ids)
        norm = float(self.doc_norm[doc])
        scale = 1.0 / norm if norm > 0 else 0.0
        d = np.where(tf > 0, scale * (tf_weight(np.maximum(tf, 1), self.sublinear_tf) * self.idf[query.ids]), 0.0)
        rows = [
            TermExplanation(
                term=str(self.index.vocabulary[t]), query_count=int(c), tf=int(f), df=int(self.index.doc_freq[t]),
                idf=float(self.idf[t]), norm=float(self.doc_norm[doc]), weight=float(w), query_weight=float(qw),
                contribution=float(w * qw),
            )
            for t, c, f, w, qw in zip(query.ids, query.counts, tf, d, q)
            if f > 0
        ]
        tf_text = "(1+ln tf)" if self.sublinear_tf else "tf"
        return Explanation(
            scorer="TF-IDF" + (" sublinear" if self.sublinear_tf else ""),
            score=float(np.dot(d, q)),
            formula=f"weight = {tf_text}·idf / ‖chunk‖ ; contribution = weight × query weight (unit query vector)",
            terms=rows,
            notes=[f"N = {self.index.n_docs} chunks", "idf = ln((1+N)/(1+df)) + 1",
                   f"‖chunk‖ = {self.doc_norm[doc]:.4f}",
                   f"‖query‖ over {query.ids.size} known term{'' if query.ids.size == 1 else 's'}"],
        )


def build(inputs: ScorerInputs) -> TfidfScorer:
    """TF-IDF on the inputs' term index; its weights kept beside the index when the index is kept on disk."""
    sublinear = inputs.setup.sublinear_tf
    arrays = kept_weights(inputs.cache_dir, inputs.index_key, "tfidf", (sublinear,),
                          lambda: TfidfScorer.fit(inputs.index, sublinear).arrays())
    return TfidfScorer.from_arrays(inputs.index, sublinear, arrays)
