"""Analysed texts as a sparse chunk x term count matrix, shared by every scorer.

Built once per (chunking, analysis); TF-IDF, BM25 and LSA are weightings of
it. The vocabulary is sorted like scikit-learn's so that column order (which
randomised SVD depends on) matches ``TfidfVectorizer`` exactly.
"""
from __future__ import annotations

import gc
from collections import defaultdict
from dataclasses import dataclass
from itertools import chain
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from engine.analysis import Analyzer
from engine.progress import Progress, no_progress

_BATCH = 5000


@dataclass(frozen=True)
class QueryTerms:
    """A query after analysis: the distinct in-vocabulary term ids and their counts."""

    text: str
    terms: tuple[str, ...]  # every analysed term, repeats kept, in order
    ids: np.ndarray  # distinct term ids present in the vocabulary
    counts: np.ndarray  # how often each of ``ids`` occurs in the query

    @property
    def empty(self) -> bool:
        return not self.terms

    @property
    def matched(self) -> bool:
        return self.ids.size > 0


@dataclass(frozen=True)
class TermIndex:
    analyzer: Analyzer
    counts: sp.csr_matrix  # chunks x terms, raw term counts
    vocabulary: np.ndarray  # term strings, sorted; column j is vocabulary[j]
    term_ids: dict[str, int]
    doc_freq: np.ndarray  # chunks containing each term
    doc_len: np.ndarray  # analysed terms per chunk

    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    @classmethod
    def build(cls, texts: Sequence[str], analyzer: Analyzer, progress: Progress = no_progress) -> "TermIndex":
        vocab: defaultdict[str, int] = defaultdict()
        vocab.default_factory = vocab.__len__  # first sight of a term gives it the next id
        lookup = vocab.__getitem__
        id_parts: list[np.ndarray] = []
        lengths = np.zeros(len(texts), dtype=np.int64)
        total = len(texts)
        # Millions of short-lived token lists make the cyclic garbage collector scan over
        # and over (a third of analysis time); they hold no cycles, so pause it.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for start in range(0, total, _BATCH):
                batch = analyzer.terms_many(texts[start:start + _BATCH])
                lengths[start:start + len(batch)] = [len(t) for t in batch]
                id_parts.append(np.fromiter(map(lookup, chain.from_iterable(batch)), dtype=np.int32))
                progress(min(start + _BATCH, total), total, "analysing")
        finally:
            if collecting:
                gc.enable()
        ids = np.concatenate(id_parts) if id_parts else np.zeros(0, dtype=np.int32)
        term_list = list(vocab)
        order = np.array(sorted(range(len(term_list)), key=term_list.__getitem__), dtype=np.int64)
        terms = np.array(term_list, dtype=object)
        new_id = np.empty(len(terms), dtype=np.int32)
        new_id[order] = np.arange(len(terms), dtype=np.int32)
        rows = np.repeat(np.arange(total, dtype=np.int32), lengths)
        counts = sp.csr_matrix(
            (np.ones(ids.size, dtype=np.int32), (rows, new_id[ids] if ids.size else ids)),
            shape=(total, len(terms)),
        )
        counts.sum_duplicates()
        counts.sort_indices()
        vocabulary = terms[order]
        doc_freq = np.bincount(counts.indices, minlength=len(terms)).astype(np.int64)
        return cls(
            analyzer=analyzer,
            counts=counts,
            vocabulary=vocabulary,
            term_ids={t: i for i, t in enumerate(vocabulary)},
            doc_freq=doc_freq,
            doc_len=lengths,
        )

    def query(self, text: str) -> QueryTerms:
        terms = tuple(self.analyzer.terms(text))
        known = [self.term_ids[t] for t in terms if t in self.term_ids]
        ids, counts = np.unique(np.array(known, dtype=np.int64), return_counts=True)
        return QueryTerms(text=text, terms=terms, ids=ids, counts=counts.astype(np.float64))
