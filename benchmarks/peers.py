"""The libraries compared, behind one interface.

``prepare`` (untimed) gets the loaded corpus and the query texts and does
what is not part of indexing: building the in-memory corpus, or, in
"same tokens" mode, analysing every text with ranklens' analyzer so that both
libraries index exactly the same terms. ``build`` is timed: texts (or
tokens) in, ready index out. Queries are then addressed by position.
Peer libraries are imported only inside their adapter, so a missing one
costs nothing until it is asked for.
"""
from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.corpus import Chunk, Corpus, Document
from ranklens.engine.retriever import Workbench
from ranklens.engine.setup import Setup
from ranklens.engine.topk import top_k

_SKLEARN_BLOCK = 64

# Python module that must be importable for each measured library.
LIBRARY_MODULES = {
    "ranklens": "ranklens.engine", "bm25s": "bm25s", "rank_bm25": "rank_bm25",
    "sklearn": "sklearn", "faiss": "faiss",
}
_STEMMER_NAMES = {"en": "english", "it": "italian", "es": "spanish"}


def installed(library: str) -> bool:
    return importlib.util.find_spec(LIBRARY_MODULES[library]) is not None


class Engine(Protocol):
    def prepare(self, corpus: Corpus, queries: Sequence[str]) -> None: ...
    def build(self) -> None: ...
    def batch(self, k: int) -> tuple[np.ndarray, np.ndarray]: ...  # (ids, scores), queries x k
    def search(self, i: int, k: int) -> np.ndarray: ...  # query i alone, as a user runs it
    def scores(self, i: int) -> np.ndarray: ...  # query i's score for every chunk


def corpus_from_texts(texts: Sequence[str], name: str = "synthetic") -> Corpus:
    """An in-memory corpus with one document and one chunk per text (what a BEIR loader makes)."""
    ids = [f"d{i}" for i in range(len(texts))]
    return Corpus(
        name=name,
        documents=tuple(Document(d, "", t) for d, t in zip(ids, texts)),
        chunks=tuple(Chunk(d, d, 0, 0, len(t), t) for d, t in zip(ids, texts)),
    )


def head(corpus: Corpus, n: int) -> Corpus:
    """The first n chunks of a corpus: a small warm-up corpus of the same shape."""
    return dataclasses.replace(corpus, chunks=tuple(corpus.chunks[:n]))


def index_texts(corpus: Corpus, setup: Setup) -> list[str]:
    """The texts ranklens indexes for ``setup`` (title + text when index_title), given to every peer."""
    return list(Workbench(corpus).index_texts(corpus.chunks, setup.index_title))


def ranklens_tokens(corpus: Corpus, setup: Setup, queries: Sequence[str]) -> tuple[list[list[str]], list[list[str]]]:
    analyzer = Analyzer.from_setup(setup)
    return analyzer.terms_many(index_texts(corpus, setup)), analyzer.terms_many(queries)


# Space-joined tokens split back by this pattern give exactly the tokens: no analyzer token
# (a regex match, maybe stemmed) contains white space.
_JOINED_TOKENS = {"token_pattern": r"\S+", "lowercase": False, "fold_accents": False, "stopwords": "none",
                  "stem": "none", "index_title": False}


def joined(tokens: Sequence[Sequence[str]]) -> list[str]:
    return [" ".join(t) for t in tokens]


def rows_top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Plain numpy top-k per row (argpartition then sort), as a user of a peer library writes it."""
    k = min(k, scores.shape[1])
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    ids = np.take_along_axis(part, order, axis=1)
    return ids, np.take_along_axis(scores, ids, axis=1)


class RanklensEngine:
    """ranklens through its public path, ``Workbench.retriever``: from the texts, or from given tokens.

    Given tokens, ranklens indexes them joined by spaces under a setup that only splits on white
    space, so the analysis it times is a split, while the scorer and its parameters are the setup's.
    """

    def __init__(self, setup: Setup, pretokenized: bool = False) -> None:
        self.setup, self.pretokenized = setup, pretokenized

    def prepare(self, corpus: Corpus, queries: Sequence[str]) -> None:
        self.corpus, self.build_setup = corpus, self.setup
        if self.pretokenized:
            doc_tokens, query_tokens = ranklens_tokens(corpus, self.setup, queries)
            self.corpus = corpus_from_texts(joined(doc_tokens), name=f"{corpus.name} (tokens)")
            self.build_setup = self.setup.replace(**_JOINED_TOKENS)
            self.queries = joined(query_tokens)
        else:
            self.queries = list(queries)

    def build(self) -> None:
        self.retriever = Workbench(self.corpus).retriever(self.build_setup)

    def batch(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        ids = np.full((len(self.queries), k), -1, dtype=np.int64)
        scores = np.full((len(self.queries), k), np.nan)
        for i, row in self.retriever.score_batches(self.queries):
            top = top_k(row, k)
            ids[i, :top.size], scores[i, :top.size] = top, row[top]
        return ids, scores

    def search(self, i: int, k: int) -> np.ndarray:
        return np.array([h.index for h in self.retriever.search(self.queries[i], k).hits], dtype=np.int64)

    def scores(self, i: int) -> np.ndarray:
        return self.retriever.scores(self.retriever.query(self.queries[i]))


class Bm25sEngine:
    """bm25s, numpy backend, its default float32 scores; its own tokenizer or ranklens' tokens."""

    queries: list[Any]  # texts, or ranklens' tokens of each

    def __init__(self, setup: Setup, pretokenized: bool = False, language: str | None = None) -> None:
        self.setup, self.pretokenized = setup, pretokenized
        import bm25s

        self.bm25s = bm25s
        self.model = bm25s.BM25(method=setup.bm25_variant, k1=setup.k1, b=setup.b, delta=setup.delta,
                                backend="numpy")
        # bm25s' own stop list and PyStemmer for a language, as its documentation runs it; none otherwise
        self.tokenize_options: dict[str, Any] = {"stopwords": [], "stemmer": None, "show_progress": False}
        if language:
            import Stemmer

            stem = Stemmer.Stemmer(_STEMMER_NAMES[language]).stemWords
            self.tokenize_options.update(stopwords=language, stemmer=stem)

    def prepare(self, corpus: Corpus, queries: Sequence[str]) -> None:
        if self.pretokenized:
            self.doc_tokens, self.queries = ranklens_tokens(corpus, self.setup, queries)
        else:
            self.texts, self.queries = index_texts(corpus, self.setup), list(queries)

    def build(self) -> None:
        docs = self.doc_tokens if self.pretokenized else self.bm25s.tokenize(self.texts, **self.tokenize_options)
        self.model.index(docs, show_progress=False)

    def _query_tokens(self, queries: list):
        return queries if self.pretokenized else self.bm25s.tokenize(queries, **self.tokenize_options)

    def batch(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        ids, scores = self.model.retrieve(self._query_tokens(self.queries), k=k, show_progress=False)
        return ids.astype(np.int64), scores.astype(np.float64)

    def search(self, i: int, k: int) -> np.ndarray:
        return self.model.retrieve(self._query_tokens([self.queries[i]]), k=k, show_progress=False)[0][0]

    def scores(self, i: int) -> np.ndarray:
        tokens = (self.queries[i] if self.pretokenized else
                  self.bm25s.tokenize(self.queries[i], return_ids=False, **self.tokenize_options)[0])
        if not tokens:  # bm25s.get_scores rejects an empty query
            return np.zeros(self.model.scores["num_docs"])
        return self.model.get_scores(tokens).astype(np.float64)


class RankBm25Engine:
    """rank_bm25's BM25Okapi over ranklens' tokens (it has no tokenizer of its own)."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup

    def prepare(self, corpus: Corpus, queries: Sequence[str]) -> None:
        self.doc_tokens, self.queries = ranklens_tokens(corpus, self.setup, queries)

    def build(self) -> None:
        from rank_bm25 import BM25Okapi

        self.model = BM25Okapi(self.doc_tokens, k1=self.setup.k1, b=self.setup.b)

    def scores(self, i: int) -> np.ndarray:
        return np.asarray(self.model.get_scores(self.queries[i]), dtype=np.float64)

    def search(self, i: int, k: int) -> np.ndarray:
        return rows_top_k(self.scores(i)[None, :], k)[0][0]

    def batch(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        tops = [rows_top_k(self.scores(i)[None, :], k) for i in range(len(self.queries))]
        return np.concatenate([t[0] for t in tops]), np.concatenate([t[1] for t in tops])


class SklearnTfidfEngine:
    """scikit-learn's TfidfVectorizer (defaults = ranklens' TF-IDF defaults) and a sparse product."""

    def __init__(self, setup: Setup) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vectorizer = TfidfVectorizer(token_pattern=setup.token_pattern, lowercase=setup.lowercase,
                                          sublinear_tf=setup.sublinear_tf)

    def prepare(self, corpus: Corpus, queries: Sequence[str]) -> None:
        self.texts, self.queries = index_texts(corpus, Setup()), list(queries)

    def build(self) -> None:
        self.matrix = self.vectorizer.fit_transform(self.texts)

    def _scores(self, queries: list[str]) -> np.ndarray:
        return np.asarray((self.matrix @ self.vectorizer.transform(queries).T).T.toarray())

    def scores(self, i: int) -> np.ndarray:
        return self._scores([self.queries[i]])[0]

    def search(self, i: int, k: int) -> np.ndarray:
        return rows_top_k(self._scores([self.queries[i]]), k)[0][0]

    def batch(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        # blocks of 64 queries: (64 x N) dense scores at a time, as scikit-learn users batch
        tops = [rows_top_k(self._scores(self.queries[s:s + _SKLEARN_BLOCK]), k)
                for s in range(0, len(self.queries), _SKLEARN_BLOCK)]
        return np.concatenate([t[0] for t in tops]), np.concatenate([t[1] for t in tops])


def make_engine(library: str, setup: Setup, pretokenized: bool, language: str | None = None) -> Engine:
    if library == "ranklens":
        return RanklensEngine(setup, pretokenized)
    if library == "bm25s":
        return Bm25sEngine(setup, pretokenized, language)
    if library == "rank_bm25":
        return RankBm25Engine(setup)
    if library == "sklearn":
        return SklearnTfidfEngine(setup)
    raise ValueError(f"unknown library {library!r}")
