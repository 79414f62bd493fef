"""TF-IDF built term-major, a slice at a time, gives the weights of the chunk-major computation.

Oracles: scipy's chunk-major normalisation (weights, row norms by scipy's row
sum, a diagonal product), bit for bit; scikit-learn's TfidfVectorizer within
1e-12; explanations whose contributions add up to the score.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.scoring import tfidf as tfidf_module
from ranklens.engine.scoring.tfidf import TfidfScorer, tf_weight
from ranklens.engine.setup import Setup
from ranklens.engine.text.termindex import TermIndex


def texts(n_docs: int = 700, vocab: int = 5000, seed: int = 2) -> list[str]:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    out = [" ".join(words[np.minimum(rng.zipf(1.2, size=length), vocab) - 1])
           for length in rng.integers(1, 200, n_docs)]
    out[5] = ""  # a chunk without terms: norm 0, no weights
    return out


def chunk_major(index: TermIndex, sublinear: bool) -> sp.csr_matrix:
    idf = np.log((1.0 + index.n_docs) / (1.0 + index.doc_freq)) + 1.0
    weighted = index.counts.astype(np.float64)
    weighted.data = tf_weight(weighted.data, sublinear) * idf[weighted.indices]
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    unit = sp.csr_matrix(sp.diags(scale) @ weighted)
    unit.sort_indices()
    return unit


@pytest.mark.parametrize("sublinear", [False, True])
@pytest.mark.parametrize("step", [7, 1000, 1 << 16])  # slices that cut rows and columns anywhere
def test_term_major_build_equals_the_chunk_major_one_bit_for_bit(sublinear: bool, step: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tfidf_module, "_SLICE", step)
    index = TermIndex.build(texts(), Analyzer.from_setup(Setup()))
    scorer = TfidfScorer.fit(index, sublinear)
    expected = chunk_major(index, sublinear)
    got = scorer.matrix
    assert np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
    assert np.array_equal(got.data, expected.data)
    assert np.array_equal(scorer.columns.toarray(), expected.toarray())


def test_weights_equal_scikit_learn_and_explanations_add_up() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = texts()
    scorer = TfidfScorer.fit(TermIndex.build(docs, Analyzer.from_setup(Setup())))
    expected = TfidfVectorizer().fit_transform(docs)
    assert np.abs(scorer.columns.toarray() - expected.toarray()).max() < 1e-12
    query = scorer.index.query("w1 w7 w300 w4999 w3")
    scores = scorer.scores(query)
    for doc in np.argsort(-scores, kind="stable")[:20].tolist():
        explanation = scorer.explain(query, doc)
        assert explanation.score == pytest.approx(scores[doc], abs=1e-12)
        assert sum(t.contribution for t in explanation.terms) == pytest.approx(scores[doc], abs=1e-12)
        for term in explanation.terms:
            assert term.weight == scorer.matrix[doc, scorer.index.term_ids[term.term]]


def test_the_explanation_counts_one_known_term_in_the_singular() -> None:
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for

    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "tfidf"}))
    one = retriever.explain("password", retriever.search("password").hits[0].index)
    two = retriever.explain("password ferie", retriever.search("password ferie").hits[0].index)
    assert "‖query‖ over 1 known term" in one.notes and "‖query‖ over 2 known terms" in two.notes
