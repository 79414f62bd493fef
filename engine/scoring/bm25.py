"""BM25 in five variants, scored eagerly into a sparse matrix (as bm25s does).

Scores use the natural log and the formulas of Kamphuis et al. (ECIR 2020),
the same as bm25s, so rankings and scores agree with it for the same tokens:

- lucene:    idf = ln(1 + (N - df + .5)/(df + .5)), tfc = tf / (tf + k1·(1 - b + b·dl/avgdl))
- robertson: idf = ln((N - df + .5)/(df + .5)) clipped at 0, tfc as lucene
- atire:     idf = ln(N/df), tfc = tf·(k1+1) / (tf + k1·(1 - b + b·dl/avgdl))
- bm25l:     idf = ln((N+1)/(df+.5)), c = tf/(1 - b + b·dl/avgdl), tfc = (k1+1)(c+δ)/(k1+c+δ)
- bm25+:     idf = ln((N+1)/df), tfc = (k1+1)·tf/(k1·(1 - b + b·dl/avgdl) + tf) + δ

A chunk's score is the sum over query terms (repeats counted) of idf·tfc.
For bm25l and bm25+ a term the chunk lacks still scores idf·tfc(0); that
constant is stored apart and added at query time, as bm25s does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ranklens.engine.scoring.base import NoAdjustments
from ranklens.engine.scoring.explain import Explanation, TermExplanation
from ranklens.engine.scoring.registry import ScorerInputs
from ranklens.engine.settings import DELTA_VARIANTS
from ranklens.engine.storage.cache import kept_weights
from ranklens.engine.work.cores import in_parts
from ranklens.engine.scoring.sparse import (column_maxima, csc_arrays, csc_from, narrow_term_major, posting_slices,
                                            query_scores, ranked_top_k, row_values)
from ranklens.engine.text.termindex import QueryTerms, TermIndex
from ranklens.engine.topk import QueryScores


def bm25_idf(variant: str, df: np.ndarray, n: int) -> np.ndarray:
    df = df.astype(np.float64)
    with np.errstate(divide="ignore"):
        if variant == "lucene":
            return np.log1p((n - df + 0.5) / (df + 0.5))
        if variant == "robertson":
            return np.log(np.maximum((n - df + 0.5) / (df + 0.5), 1.0))
        if variant == "atire":
            return np.where(df > 0, np.log(n / np.maximum(df, 1)), 0.0)
        if variant == "bm25l":
            return np.log((n + 1) / (df + 0.5))
        if variant == "bm25+":
            return np.where(df > 0, np.log((n + 1) / np.maximum(df, 1)), 0.0)
    raise ValueError(f"unknown BM25 variant {variant!r}")


def length_norm(dl: np.ndarray, avgdl: float, b: float) -> np.ndarray:
    """1 - b + b·dl/avgdl: how much longer than average a chunk is, damped by b."""
    return 1.0 - b + b * dl / avgdl


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0.

    That happens only for tf = 0 with k1 = 0 (and delta = 0), or in an empty
    chunk with b = 1: the term adds nothing there, where a plain division
    would give nan.
    """
    return np.divide(numerator, denominator, out=np.zeros(np.shape(denominator)), where=denominator > 0)


def bm25_tfc(variant: str, tf: np.ndarray, norm: np.ndarray, k1: float, delta: float) -> np.ndarray:
    if variant in ("lucene", "robertson"):
        return _ratio(tf, tf + k1 * norm)
    if variant == "atire":
        return _ratio(tf * (k1 + 1), tf + k1 * norm)
    if variant == "bm25l":
        c = _ratio(tf, norm)
        return _ratio((k1 + 1) * (c + delta), k1 + c + delta)
    if variant == "bm25+":
        return _ratio((k1 + 1) * tf, k1 * norm + tf) + delta
    raise ValueError(f"unknown BM25 variant {variant!r}")


_SLICE = 1 << 16  # postings scored per step when building: ~0.5 MB per temporary

_FORMULAS = {
    "lucene": "idf · tf / (tf + k1·norm)",
    "robertson": "idf · tf / (tf + k1·norm)",
    "atire": "idf · tf·(k1+1) / (tf + k1·norm)",
    "bm25l": "idf · (k1+1)(c+δ)/(k1+c+δ), c = tf/norm",
    "bm25+": "idf · ((k1+1)·tf/(k1·norm + tf) + δ)",
}


@dataclass(frozen=True)
class BM25Scorer(NoAdjustments):
    index: TermIndex
    variant: str
    k1: float
    b: float
    delta: float
    idf: np.ndarray
    avgdl: float
    absent: np.ndarray  # per term: the score a chunk gets without the term (bm25l, bm25+)
    columns: sp.csc_matrix  # chunks x terms, term-major: idf·tfc minus the absent score
    # per term: the largest score a chunk gets from it (MaxScore pruning); None when a weight is negative
    upper: np.ndarray | None = None

    name = "bm25"

    @classmethod
    def fit(cls, index: TermIndex, variant: str = "lucene", k1: float = 1.2, b: float = 0.75,
            delta: float = 0.5, dtype: type = np.float64) -> BM25Scorer:
        """``dtype`` stores the per-posting weights: float64 (the default, what the parity tests
        hold to 1e-9) or float32, half the memory per posting. Scores are still added in float64,
        so float32 weights move a score by at most about 6e-8 of itself per query term (the
        rounding of each stored weight): rankings change only among near-ties."""
        n = index.n_docs
        idf = bm25_idf(variant, index.doc_freq, n)
        avgdl = float(index.doc_len.mean()) if n and index.doc_len.sum() else 1.0
        absent = np.zeros(idf.size)
        if variant in DELTA_VARIANTS:
            absent = idf * bm25_tfc(variant, np.zeros(1), np.ones(1), k1, delta)[0]
        # Term-major counts first, then the scores in place of nothing: the build's peak
        # memory is the counts twice plus one float per posting, not a CSR copy and temporaries.
        counts = narrow_term_major(index.counts)
        doc_norm = length_norm(index.doc_len.astype(np.float64), avgdl, b)
        data: np.ndarray = np.empty(counts.nnz, dtype=dtype)

        def score(start: int, stop: int) -> None:  # bounded temporaries, whatever the size
            for lo, hi, terms in posting_slices(counts.indptr, _SLICE, start, stop):
                docs = counts.indices[lo:hi]
                tfc = bm25_tfc(variant, counts.data[lo:hi].astype(np.float64), doc_norm[docs], k1, delta)
                data[lo:hi] = idf[terms] * tfc - absent[terms]

        in_parts(counts.nnz, _SLICE, score)
        columns = sp.csc_matrix((data, counts.indices, counts.indptr), shape=counts.shape)
        upper = column_maxima(columns) if not data.size or data.min() >= 0 else None
        return cls(index, variant, k1, b, delta, idf, avgdl, absent, columns, upper)

    def arrays(self) -> dict[str, np.ndarray]:
        """What ``from_arrays`` needs to make this scorer again without fitting (kept on disk)."""
        kept = {"idf": self.idf, "absent": self.absent, "avgdl": np.array([self.avgdl]), **csc_arrays(self.columns)}
        return kept if self.upper is None else {**kept, "upper": self.upper}

    @classmethod
    def from_arrays(cls, index: TermIndex, variant: str, k1: float, b: float, delta: float,
                    arrays: dict[str, np.ndarray]) -> BM25Scorer:
        columns = csc_from(arrays, index.counts.shape)
        return cls(index, variant, k1, b, delta, arrays["idf"], float(arrays["avgdl"][0]), arrays["absent"], columns,
                   arrays.get("upper"))

    def query_scores(self, query: QueryTerms) -> QueryScores:
        """The query's scores over all chunks, kept as the chunks its postings touch when they are few."""
        return query_scores(self.columns, query.ids, query.counts, self.floor(query))

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.query_scores(query).dense()

    def top_k(self, query: QueryTerms, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(chunk indices, scores) of the k best chunks, best first, ties to the lower index.

        Equal to ranking ``scores(query)``; skips the chunks that only long, low-weight
        posting lists touch when the rarer terms already decide the top k (MaxScore).
        """
        return ranked_top_k(self.columns, query.ids, query.counts, k, self.upper, self.floor(query))

    def floor(self, query: QueryTerms) -> float:
        """The score of a chunk with none of the query's terms, 0 but for bm25l and bm25+: a chunk the query
        does not match (``engine/topk.py``'s ranking rule), and what every untouched chunk scores."""
        if not query.ids.size or self.variant not in DELTA_VARIANTS:
            return 0.0
        return float(np.dot(self.absent[query.ids], query.counts))

    def scores_batch(self, queries: list[QueryTerms]) -> np.ndarray:
        # one query at a time: a sparse product of many queries is nearly dense and slower
        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        tf = row_values(self.index.counts, doc, query.ids)
        dl = float(self.index.doc_len[doc])
        norm = float(length_norm(np.array([dl]), self.avgdl, self.b)[0])
        tfc = bm25_tfc(self.variant, tf, np.full(tf.size, norm), self.k1, self.delta)
        rows = []
        for t, c, f, w in zip(query.ids, query.counts, tf, tfc):
            if f == 0 and self.variant not in DELTA_VARIANTS:
                continue
            rows.append(TermExplanation(
                term=str(self.index.vocabulary[t]), query_count=int(c), tf=int(f),
                df=int(self.index.doc_freq[t]), idf=float(self.idf[t]), norm=norm,
                weight=float(self.idf[t] * w), query_weight=float(c),
                contribution=float(c * self.idf[t] * w),
            ))
        return Explanation(
            scorer=f"BM25 {self.variant}",
            score=float(sum(r.contribution for r in rows)),
            formula=f"weight = {_FORMULAS[self.variant]} ; contribution = weight × query count",
            terms=rows,
            notes=[f"N = {self.index.n_docs} chunks", f"k1 = {self.k1:g}, b = {self.b:g}"
                   + (f", δ = {self.delta:g}" if self.variant in DELTA_VARIANTS else ""),
                   f"chunk length dl = {dl:g} terms, avgdl = {self.avgdl:.2f}",
                   f"norm = 1 - b + b·dl/avgdl = {norm:.4f}"],
        )


def build(inputs: ScorerInputs) -> BM25Scorer:
    """BM25 on the inputs' term index; its weights kept beside the index when the index is kept on disk."""
    s = inputs.setup
    params = (s.bm25_variant, s.k1, s.b, s.delta)
    arrays = kept_weights(inputs.cache_dir, inputs.index_key, "bm25", params,
                          lambda: BM25Scorer.fit(inputs.index, *params).arrays())
    return BM25Scorer.from_arrays(inputs.index, *params, arrays)
