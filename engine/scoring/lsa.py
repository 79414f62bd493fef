"""LSA: TruncatedSVD (random_state=0) of the TF-IDF matrix, cosine in the reduced space.

This is the lesson's stand-in for embeddings: an encoder learned from the
corpus itself. scikit-learn is imported here, lazily, when LSA is first fit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from collections.abc import Sequence

import numpy as np

from ranklens.engine.scoring.dense import unit_rows
from ranklens.engine.scoring.explain import Explanation
from ranklens.engine.scoring.registry import ScorerInputs
from ranklens.engine.scoring.tfidf import TfidfScorer
from ranklens.engine.text.termindex import QueryTerms


def usable_dims(requested: int, n_docs: int, n_terms: int) -> int:
    """TruncatedSVD needs fewer components than features; keep below both sizes."""
    return max(1, min(requested, n_terms - 1, n_docs))


@dataclass(frozen=True)
class LsaScorer:
    tfidf: TfidfScorer
    dims: int
    components: np.ndarray  # dims x terms
    vectors: np.ndarray  # chunks x dims, unit rows
    notes: list[str] = field(default_factory=list)

    name = "lsa"

    def effective_settings(self) -> dict[str, Any]:
        return {"dims": self.dims}

    @classmethod
    def fit(cls, tfidf: TfidfScorer, dims: int) -> LsaScorer:
        from sklearn.decomposition import TruncatedSVD

        n_docs, n_terms = tfidf.matrix.shape
        used = usable_dims(dims, n_docs, n_terms)
        notes = []
        if used != dims:
            notes.append(f"LSA dims clamped from {dims} to {used} ({n_docs} chunks, {n_terms} terms)")
        if n_terms < 2 or n_docs < 1:
            components = np.zeros((used, n_terms))
        else:
            # One chunk has no variance: scikit-learn's explained-variance ratio (unused here) divides
            # 0 by 0 and would print a RuntimeWarning on the user's terminal.
            with np.errstate(invalid="ignore", divide="ignore"):
                svd = TruncatedSVD(n_components=used, random_state=0).fit(tfidf.matrix)
            components = svd.components_
        vectors = unit_rows(np.asarray(tfidf.matrix @ components.T))
        return cls(tfidf, used, components, vectors, notes)

    @cached_property
    def _by_term(self) -> np.ndarray:
        """``components`` transposed, C-ordered: scipy copied the transposed view whole on every query."""
        return np.ascontiguousarray(self.components.T)

    def encode_query(self, query: QueryTerms) -> np.ndarray:
        # Each term's row added in term order from 0, as scipy's sparse row times a matrix adds them (a
        # sparse row made per query cost 0.5 ms, most of an LSA question's time in an evaluation).
        q = np.zeros(self.dims)
        for weight, row in zip(self.tfidf.query_weights(query).tolist(), self._by_term[query.ids]):
            q += weight * row
        return q / (np.linalg.norm(q) + 1e-12)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for texts, as for queries: this makes LSA an ``Encoder``."""
        index = self.tfidf.index
        return np.stack([self.encode_query(index.query(t)) for t in texts]) if texts else np.zeros((0, self.dims))

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.vectors @ self.encode_query(query)

    def floor(self, query: QueryTerms) -> float:
        """-inf: a cosine ranks every chunk; 0 for a query with no LSA direction (no term of the corpus), whose
        every chunk scores 0: it matches nothing (``engine/topk.py``'s ranking rule)."""
        return -np.inf if self.encode_query(query).any() else 0.0

    def scores_batch(self, queries: list[QueryTerms]) -> np.ndarray:
        return np.stack([self.encode_query(q) for q in queries]) @ self.vectors.T

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        q = self.encode_query(query)
        d = self.vectors[doc]
        top = np.argsort(-np.abs(q * d), kind="stable")[:5]
        notes = [f"dimension {i}: chunk {d[i]:+.3f} × query {q[i]:+.3f} = {d[i] * q[i]:+.4f}" for i in top]
        return Explanation(
            scorer=f"LSA {self.dims} dims",
            score=float(d @ q),
            formula="cosine of chunk and query in the SVD space: Σ_i chunk_i × query_i (largest terms below)",
            terms=[],
            notes=notes + self.notes,
        )


def build(inputs: ScorerInputs) -> LsaScorer:
    # LSA decomposes the plain TF-IDF matrix (the lesson's), whatever sublinear_tf says
    tfidf = inputs.scorer("tfidf", inputs.setup.replace(sublinear_tf=False))
    assert isinstance(tfidf, TfidfScorer)
    return LsaScorer.fit(tfidf, inputs.setup.dims)
