"""Analysed texts as a sparse chunk x term count matrix, shared by every scorer.

Built once per (chunking, analysis); TF-IDF, BM25 and LSA are weightings of
it. The vocabulary is sorted like scikit-learn's so that column order (which
randomised SVD depends on) matches ``TfidfVectorizer`` exactly.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.text.batch_analysis import BatchAnalysis
from ranklens.engine.work.gc_pause import gc_paused
from ranklens.engine.work.progress import Progress, chunks_per_s, no_progress


_REMAP = 1 << 20  # postings remapped at once: 8 MB of ids widened to intp


class _Pieces:
    """Arrays appended batch by batch, joined once at the end.

    Small per-batch arrays live on the C heap, which does not shrink after they are
    freed: every ``_MERGE`` pieces are merged into one large array (mapped memory,
    returned to the system when freed), so the heap holds a few batches, not the corpus.
    """

    _MERGE = 64

    def __init__(self, dtype) -> None:
        self.dtype = dtype
        self.merged: list[np.ndarray] = []
        self.recent: list[np.ndarray] = []

    def append(self, piece: np.ndarray) -> None:
        self.recent.append(piece)
        if len(self.recent) >= self._MERGE:
            self.merged.append(np.concatenate(self.recent))
            self.recent.clear()

    def joined(self) -> np.ndarray:
        """Everything appended, in order, as one array; the pieces are dropped."""
        parts, self.merged, self.recent = self.merged + self.recent, [], []
        out = np.empty(sum(part.size for part in parts), dtype=self.dtype)
        at = 0
        parts.reverse()
        while parts:  # each piece dropped once copied: the peak is the whole once and a piece, not twice
            part = parts.pop()
            out[at:at + part.size] = part
            at += part.size
        return out


def narrow_counts(counts: np.ndarray) -> np.ndarray:
    """Term counts in the narrowest unsigned type that holds them (uint8 for most corpora): a byte per posting,
    not four, through the BM25 and TF-IDF builds, whose transposes and weights are a build's peak. The array
    itself when it is that narrow already."""
    narrow = np.min_scalar_type(int(counts.max())) if counts.size else np.dtype(np.uint8)
    return counts.astype(narrow, copy=False)


@dataclass(frozen=True)
class QueryTerms:
    """A query after analysis: the distinct in-vocabulary term ids and their counts."""

    text: str
    terms: tuple[str, ...]  # every analysed term, repeats kept, in order
    ids: np.ndarray  # distinct term ids present in the vocabulary
    counts: np.ndarray  # how often each of ``ids`` occurs in the query
    unknown: tuple[str, ...] = ()  # distinct terms the vocabulary lacks, in query order

    @property
    def empty(self) -> bool:
        return not self.terms

    @property
    def matched(self) -> bool:
        return self.ids.size > 0


@dataclass(frozen=True)
class TermIndex:
    analyzer: Analyzer
    counts: sp.csr_matrix  # chunks x terms, raw term counts (built: in the narrowest unsigned type that holds them)
    vocabulary: np.ndarray  # term strings, sorted; column j is vocabulary[j]
    term_ids: dict[str, int]
    doc_freq: np.ndarray  # chunks containing each term
    doc_len: np.ndarray  # analysed terms per chunk

    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    @classmethod
    def build(cls, texts: Sequence[str], analyzer: Analyzer, progress: Progress = no_progress,
              helpers: int | None = None) -> TermIndex:
        """The index of ``texts``; ``helpers``: processes analysing batches beside this one
        (None: one per spare core for a large corpus, see ``batch_analysis``). Any number
        of helpers gives the same index."""
        total = len(texts)
        lengths = np.zeros(total, dtype=np.int64)
        row_terms = _Pieces(np.int32)  # each chunk's distinct term ids, chunk by chunk
        row_counts = _Pieces(np.int32)
        row_sizes = _Pieces(np.int64)
        started = time.perf_counter()
        with gc_paused(), BatchAnalysis(texts, analyzer, progress, helpers) as batches:  # millions of token lists
            for start, batch in batches:
                done = start + len(batch.lengths)
                lengths[start:done] = batch.lengths
                row_terms.append(batch.terms)
                row_counts.append(batch.counts)
                row_sizes.append(batch.sizes.astype(np.int64))
                elapsed = time.perf_counter() - started
                progress(done, total, f"analysing · {chunks_per_s(done / elapsed)}" if elapsed > 0 else "analysing")
        term_list = batches.vocabulary.words
        order = np.array(sorted(range(len(term_list)), key=term_list.__getitem__), dtype=np.int64)
        new_id = np.empty(len(term_list), dtype=np.int32)
        new_id[order] = np.arange(len(term_list), dtype=np.int32)
        indptr = np.zeros(total + 1, dtype=np.int64)
        np.cumsum(row_sizes.joined(), out=indptr[1:])
        # one list at a time, remapped in place: the peak is the postings twice and a half, not four times
        indices = row_terms.joined()
        # first-seen ids to sorted-vocabulary ids, a slice at a time and clipped (every id is in range):
        # np.take's default mode would buffer a copy of the whole output, and widen the ids to intp at once
        for start in range(0, len(indices), _REMAP):
            part = indices[start:start + _REMAP]
            np.take(new_id, part, out=part, mode="clip")
        data = row_counts.joined()
        data = narrow_counts(data)
        counts = sp.csr_matrix((data, indices, indptr), shape=(total, len(term_list)))
        counts.sort_indices()
        vocabulary = np.array(term_list, dtype=object)[order]
        doc_freq = np.bincount(counts.indices, minlength=len(term_list)).astype(np.int64)
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
        lookup = self.term_ids.get
        seen: dict[int, int] = {}
        unknown: dict[str, None] = {}
        for term in terms:  # a query has a handful of terms: a dict beats np.unique's fixed cost
            i = lookup(term)
            if i is not None:
                seen[i] = seen.get(i, 0) + 1
            else:
                unknown[term] = None
        order = sorted(seen)
        return QueryTerms(text=text, terms=terms, ids=np.array(order, dtype=np.int64),
                          counts=np.array([seen[i] for i in order], dtype=np.float64), unknown=tuple(unknown))
