"""TF-IDF against scikit-learn, BM25 against bm25s: same numbers for the same settings and tokens."""
from __future__ import annotations

import numpy as np
import pytest

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.bm25 import BM25Scorer
from ranklens.engine.scoring.tfidf import TfidfScorer
from ranklens.engine.setup import Setup
from ranklens.engine.text.termindex import TermIndex
from ranklens.engine.topk import top_k
from tests.support.files import beir_folder


def zipf_corpus(n_docs: int = 400, vocab: int = 3000, seed: int = 7) -> list[str]:
    """Deterministic documents whose word frequencies follow a Zipf law, lengths vary 5..120."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    lengths = rng.integers(5, 120, n_docs)
    return [" ".join(words[np.minimum(rng.zipf(1.3, size=length), vocab) - 1]) for length in lengths]


def studio_alfa_texts() -> list[str]:
    return [c.text for c in load_corpus("studio-alfa").chunks]


# Queries that repeat a term: raw and sublinear tf differ on the query side only when one does.
REPEATING = ["ferie ferie ferie permessi", "password password cambio", "fattura fattura fattura fattura scarto"]


def studio_alfa_queries() -> list[str]:
    return [q.text for q in load_corpus("studio-alfa").questions] + REPEATING


def zipf_queries() -> list[str]:
    plain = [" ".join(f"w{i}" for i in range(j, j + 4)) for j in range(0, 60, 3)]
    return plain + [f"w{j} w{j} w{j} w{j + 1} w{j + 7} w{j + 7}" for j in range(0, 30, 5)]


CORPORA = {
    "studio-alfa": (studio_alfa_texts, studio_alfa_queries),
    "zipf": (zipf_corpus, zipf_queries),
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


def test_a_query_repeating_a_term_weighs_it_sublinearly_as_scikit_learn_does() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = zipf_corpus()
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    expected = vectorizer.fit_transform(texts)
    scorer = TfidfScorer.fit(TermIndex.build(texts, Analyzer.from_setup(Setup())), sublinear_tf=True)
    once, thrice = "w1 w5", "w1 w1 w1 w5"
    for query in (once, thrice):
        theirs = (expected @ vectorizer.transform([query]).T).toarray().ravel()
        assert np.abs(scorer.scores(scorer.index.query(query)) - theirs).max() < 1e-9
    # the query vectors differ by the weight of w1: 1 + ln 3 against 1, before normalising
    assert not np.allclose(scorer.scores(scorer.index.query(once)), scorer.scores(scorer.index.query(thrice)))


@pytest.mark.filterwarnings("ignore:Your stop_words may be inconsistent")
def test_tfidf_with_stop_words_and_stemming_equals_scikit_learn_tokenising_by_itself() -> None:
    """scikit-learn splits, lowercases and drops stop words with its own analyzer; PyStemmer stems after."""
    import Stemmer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from stop_words import get_stop_words

    texts, queries = studio_alfa_texts(), studio_alfa_queries()
    stop = [w for w in get_stop_words("it") if not any(c.isdigit() for c in w)]
    split = TfidfVectorizer(stop_words=stop).build_analyzer()
    stemmer = Stemmer.Stemmer("italian")
    vectorizer = TfidfVectorizer(analyzer=lambda text: stemmer.stemWords(split(text)))
    expected = vectorizer.fit_transform(texts)
    scorer = TfidfScorer.fit(TermIndex.build(texts, Analyzer.from_setup(Setup(stopwords="it", stem="it"))))
    assert list(scorer.index.vocabulary) == vectorizer.get_feature_names_out().tolist()
    assert np.abs(scorer.matrix.toarray() - expected.toarray()).max() < 1e-9
    for query in queries:
        theirs = (expected @ vectorizer.transform([query]).T).toarray().ravel()
        assert np.abs(scorer.scores(scorer.index.query(query)) - theirs).max() < 1e-9


def test_answering_a_batch_gives_the_peers_scores(tmp_path) -> None:  # noqa: ANN001
    """Retriever.score_batches, the path eval and the benchmarks take, against bm25s and scikit-learn."""
    import bm25s
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts, queries = zipf_corpus(), zipf_queries()
    corpus = load_corpus(beir_folder(tmp_path / "zipf", [{"_id": f"d{i}", "text": t} for i, t in enumerate(texts)]))
    bench = Workbench(corpus)
    reference = bm25s.BM25(method="bm25+", k1=1.2, b=0.75, delta=0.5, dtype="float64")
    reference.index([t.split() for t in texts], show_progress=False)
    bm25 = bench.retriever(setup_for(corpus, {"scorer": "bm25", "bm25_variant": "bm25+", "delta": 0.5}))
    for i, row in bm25.score_batches(queries):
        terms = [t for t in queries[i].split() if t in reference.vocab_dict]
        expected = reference.get_scores(terms) if terms else np.zeros(len(texts))
        assert np.abs(np.asarray(row) - expected).max() < 1e-9, queries[i]
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    matrix = vectorizer.fit_transform(texts)
    tfidf = bench.retriever(setup_for(corpus, {"scorer": "tfidf", "sublinear_tf": True}))
    for i, row in tfidf.score_batches(queries):
        expected = (matrix @ vectorizer.transform([queries[i]]).T).toarray().ravel()
        assert np.abs(np.asarray(row) - expected).max() < 1e-9, queries[i]


def test_an_lsa_query_vector_is_scipys_sparse_product_bit_for_bit() -> None:
    """LSA folds a query in by adding each term's row of the components in term order, the sums scipy's
    sparse row times the components makes (a sparse row per query cost most of an LSA question's time)."""
    import scipy.sparse as sp

    from ranklens.engine.scoring.lsa import LsaScorer

    index = TermIndex.build(zipf_corpus(), Analyzer.from_setup(Setup()))
    lsa = LsaScorer.fit(TfidfScorer.fit(index), 40)
    for text in zipf_queries():
        query = index.query(text)
        weights = lsa.tfidf.query_weights(query)
        row = sp.csr_matrix((weights, (np.zeros(query.ids.size, dtype=np.int64), query.ids)),
                            shape=(1, lsa.tfidf.idf.size))
        direct = np.asarray(row @ np.ascontiguousarray(lsa.components.T)).ravel()
        assert np.array_equal(lsa.encode_query(query), direct / (np.linalg.norm(direct) + 1e-12)), text
