"""TF-IDF against scikit-learn, BM25 against bm25s: same numbers for the same settings and tokens."""
from __future__ import annotations

import numpy as np
import pytest

from ranklens.engine.analysis import Analyzer
from ranklens.engine.loaders import load_corpus
from ranklens.engine.scoring.bm25 import BM25Scorer
from ranklens.engine.scoring.tfidf import TfidfScorer
from ranklens.engine.setup import Setup
from ranklens.engine.termindex import TermIndex
from ranklens.engine.topk import top_k


def zipf_corpus(n_docs: int = 400, vocab: int = 3000, seed: int = 7) -> list[str]:
    """Deterministic documents whose word frequencies follow a Zipf law, lengths vary 5..120."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    lengths = rng.integers(5, 120, n_docs)
    return [" ".join(words[np.minimum(rng.zipf(1.3, size=length), vocab) - 1]) for length in lengths]


def studio_alfa_texts() -> list[str]:
    return [c.text for c in load_corpus("studio-alfa").chunks]


def studio_alfa_queries() -> list[str]:
    return [q.text for q in load_corpus("studio-alfa").questions]


CORPORA = {
    "studio-alfa": (studio_alfa_texts, studio_alfa_queries),
    "zipf": (zipf_corpus, lambda: [" ".join(f"w{i}" for i in range(j, j + 4)) for j in range(0, 60, 3)]),
}
TFIDF_SETTINGS = [
    ({}, {}),
    ({"sublinear_tf": True}, {"sublinear_tf": True}),
    ({"fold_accents": True}, {"strip_accents": "unicode"}),
    ({"token_pattern": r"[a-z0-9]+"}, {"token_pattern": r"[a-z0-9]+"}),
    ({"stopwords": "it"}, {"stop_words": "it"}),
]


@pytest.mark.filterwarnings("ignore:Your stop_words may be inconsistent")  # sklearn re-tokenises "c'è"
@pytest.mark.parametrize("corpus_name", CORPORA)
@pytest.mark.parametrize(("ours", "theirs"), TFIDF_SETTINGS)
def test_tfidf_equals_scikit_learn(corpus_name: str, ours: dict, theirs: dict) -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts_of, queries_of = CORPORA[corpus_name]
    texts, queries = texts_of(), queries_of()
    analyzer = Analyzer.from_setup(Setup(**ours))
    if theirs.get("stop_words") == "it":
        theirs = {**theirs, "stop_words": sorted(analyzer.stopwords)}
    vectorizer = TfidfVectorizer(**theirs)
    expected = vectorizer.fit_transform(texts)
    scorer = TfidfScorer.fit(TermIndex.build(texts, analyzer), ours.get("sublinear_tf", False))
    assert list(scorer.index.vocabulary) == vectorizer.get_feature_names_out().tolist()
    assert np.abs(scorer.matrix.toarray() - expected.toarray()).max() < 1e-9
    for query in queries:
        theirs_scores = (expected @ vectorizer.transform([query]).T).toarray().ravel()
        ours_scores = scorer.scores(scorer.index.query(query))
        assert np.abs(ours_scores - theirs_scores).max() < 1e-9
        assert list(top_k(ours_scores, 5)) == list(np.argsort(-theirs_scores, kind="stable")[:5])


def test_tfidf_with_stemming_equals_scikit_learn_given_the_same_terms() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = studio_alfa_texts()
    analyzer = Analyzer.from_setup(Setup(stopwords="it", stem="it"))
    vectorizer = TfidfVectorizer(analyzer=analyzer.terms)
    expected = vectorizer.fit_transform(texts).toarray()
    scorer = TfidfScorer.fit(TermIndex.build(texts, analyzer))
    assert np.abs(scorer.matrix.toarray() - expected).max() < 1e-9


@pytest.mark.parametrize("variant", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
@pytest.mark.parametrize("corpus_name", CORPORA)
def test_bm25_equals_bm25s(variant: str, corpus_name: str) -> None:
    import bm25s

    texts_of, queries_of = CORPORA[corpus_name]
    texts, queries = texts_of(), queries_of()
    analyzer = Analyzer.from_setup(Setup(stopwords="it") if corpus_name == "studio-alfa" else Setup())
    tokens = analyzer.terms_many(texts)
    reference = bm25s.BM25(method=variant, k1=1.2, b=0.75, delta=0.5, dtype="float64")
    reference.index(tokens, show_progress=False)
    ours = BM25Scorer.fit(TermIndex.build(texts, analyzer), variant, k1=1.2, b=0.75, delta=0.5)
    for query in queries:
        query_terms = [t for t in analyzer.terms(query) if t in reference.vocab_dict]
        if not query_terms:
            continue
        expected = reference.get_scores(query_terms)
        got = ours.scores(ours.index.query(query))
        assert np.abs(got - expected).max() < 1e-9
        assert list(top_k(got, 10)) == list(np.argsort(-expected, kind="stable")[:10])


def test_bm25_batch_scores_equal_single_queries() -> None:
    texts = zipf_corpus()
    index = TermIndex.build(texts, Analyzer.from_setup(Setup()))
    for scorer in (BM25Scorer.fit(index, "bm25+"), TfidfScorer.fit(index, True)):
        queries = [index.query(f"w{i} w{i + 1} w{i}") for i in range(0, 40, 4)]
        batch = scorer.scores_batch(queries)
        for row, query in zip(batch, queries):
            assert np.allclose(row, scorer.scores(query), atol=1e-12)
