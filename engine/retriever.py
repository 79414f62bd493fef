"""A corpus indexed under one setup: search, explain, evaluate, threshold, prompt.

``Workbench`` owns a corpus and caches what setups share: chunks per
chunking, the term index per (chunking, analysis), scorers per their
parameters. The CLI builds one retriever; the TUI keeps one workbench and asks
it for retrievers as settings change, so switching scorer never re-analyses.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import cast
from collections.abc import Iterator, Sequence

import numpy as np

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.backends.base import Backend, Unplaced, Unplacing, attached_backend, over_backend
from ranklens.engine.storage.cache import IndexCache, corpus_index_key, index_key
from ranklens.engine.chunking.cutting import chunk_documents
from ranklens.engine.corpus import Chunk, Corpus, Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.ann.ranking import check_approximate
from ranklens.engine.judging.grades import GRADE_KEY
from ranklens.engine.judging.counted import Carried
from ranklens.engine.judging.positions import ChunkJudge
from ranklens.engine.measuring.measures.covered_text import RelevantText
from ranklens.engine.measuring.metric_table import depth
from ranklens.engine.measuring.metrics import Evaluation, QuestionScores, ThresholdReport, evaluate, threshold_analysis
from ranklens.engine.neural.model_names import default_model
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.prompt import build_prompt
from ranklens.engine.corpus.source import chunk_source, citation
from ranklens.engine.scoring.base import BatchTopK, Scorer, TouchedScores, capable
from ranklens.engine.scoring.explain import Explanation
from ranklens.engine.scoring.registry import ScorerInputs, ScorerSpec, spec
from ranklens.engine.chunking.chunkers import default_window
from ranklens.engine.setup import Setup
from ranklens.engine.corpus.tables import ChunkTable, DocumentTable, index_texts, take
from ranklens.engine.text.termindex import QueryTerms, TermIndex
from ranklens.engine.topk import PendingScores, QueryScores, floor_of, rank_around, top_k

MAX_CHUNKINGS = 3  # chunkings kept in memory per corpus (a chunk sweep visits many)
MAX_TERM_INDEXES = 4  # term indexes kept, across chunkings and analysis settings
CACHE_MIN_CHUNKS = 20_000  # below this, analysing is faster than reading a cache
BATCH_CELLS = 8_000_000  # scores held at once when answering many questions: 64 MB of floats
TOP_AHEAD_BATCH = 64  # questions per progress report, and per round trip of an engine's batched top k


def setup_for(corpus: Corpus, *overrides: dict, source: str = "settings") -> Setup:
    """The corpus' own settings, then the caller's: how every front end builds a setup.

    Raw documents (no passages of their own) are chunked at their chunker's default (100/20 words)
    unless a layer says otherwise; the setup names that chunking, so what it shows and steps from is what runs.
    The dense model is the lesson's e5-small for a corpus in a language the lesson covers,
    when the neural extra has it (``model_names.default_model``).
    """
    own = {key: value for key, value in corpus.settings.items() if key != GRADE_KEY}  # the corpus', not the setup's
    layers = (own, *overrides)
    sized = any(layer.get("size") is not None for layer in layers)
    chunker = next((layer["chunker"] for layer in reversed(layers) if layer.get("chunker") is not None), "words")
    base: dict = {} if corpus.chunks or sized else dict(zip(("size", "overlap"), default_window(chunker)))
    language = corpus.settings.get("language")
    model = default_model(language if isinstance(language, str) else None)
    if model is not None:
        base["model"] = model
    setup = Setup.from_mapping(base, *layers, source=source)
    check_approximate(setup, source)
    return setup


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int
    index: int  # position of the chunk in ``Retriever.chunks``
    chunk: Chunk
    score: float

    @classmethod
    def ranked(cls, indices: Sequence[int], chunks: Sequence[Chunk], scores: Sequence[float]) -> list[Hit]:
        """Hits ranked 1, 2, ... from parallel lists: made through the slots' descriptors, as
        ``StoredChunk.of_rows`` makes chunks (a frozen dataclass' ``__init__`` costs twice as much,
        microseconds a search)."""
        new, (rank, index, chunk, score) = object.__new__, _HIT_SETTERS
        hits = []
        for r, (i, c, v) in enumerate(zip(indices, chunks, scores), 1):
            hit = new(cls)
            rank(hit, r)
            index(hit, i)
            chunk(hit, c)
            score(hit, v)
            hits.append(hit)
        return hits


_HIT_SETTERS = tuple(Hit.__dict__[field].__set__ for field in ("rank", "index", "chunk", "score"))


@dataclass(frozen=True)
class SearchResult:
    query: str
    scorer: str
    hits: list[Hit]
    terms: tuple[str, ...]  # the query's terms after analysis
    unknown: tuple[str, ...]  # terms the corpus does not contain
    note: str = ""  # why there are no hits, when there are none
    # a user's own retriever's hits that are no chunk of the corpus, each at its rank (``hits`` skip those ranks)
    unplaced: tuple[Unplaced, ...] = ()

    def ranked(self) -> list[Hit | Unplaced]:
        """The hits and the results that are no chunk, by rank."""
        if not self.unplaced:
            return list(self.hits)
        return sorted([*self.hits, *self.unplaced], key=lambda hit: hit.rank)

    def to_dict(self, corpus: Corpus) -> dict:
        return {
            "query": self.query,
            "scorer": self.scorer,
            "terms": list(self.terms),
            "note": self.note,
            "results": [
                {
                    "rank": h.rank,
                    "id": h.chunk.id,
                    "score": h.score,
                    "document": corpus.document(h.chunk.doc_id).title or h.chunk.doc_id,
                    "doc_id": h.chunk.doc_id,
                    "text": h.chunk.text,
                    "source": chunk_source(corpus.document(h.chunk.doc_id), h.chunk),
                } if isinstance(h, Hit) else
                {"rank": h.rank, "id": h.id, "score": h.score, "document": None, "doc_id": None, "text": h.text,
                 "not_in_corpus": True}
                for h in self.ranked()
            ],
        }


@dataclass(repr=False, eq=False)
class Workbench:
    """A corpus and what its setups have built (chunkings, term indexes, scorers), shared among them.

    A cache, not a value: two workbenches are equal only when they are the same object (and hash so), so
    comparing two contexts never compares their caches.
    """

    corpus: Corpus
    # term indexes of corpora this large are kept on disk between runs (None: never)
    cache: IndexCache | None = None
    cache_min_chunks: int = CACHE_MIN_CHUNKS
    # an external engine ranking the chunks (engine/backends/); the local scorer then only explains
    backend: Backend | None = field(default_factory=attached_backend)
    # Built pieces, most recently used last. Chunkings and term indexes are bounded (a chunk
    # sweep over a large corpus must not keep every chunking); evicting one drops what was
    # built on it. Keys are settings, never object ids, so an evicted object's id reused
    # later cannot alias a stale entry.
    _chunkings: OrderedDict = field(default_factory=OrderedDict)
    _term_indexes: OrderedDict = field(default_factory=OrderedDict)
    _scorers: dict = field(default_factory=dict)
    _index_keys: dict = field(default_factory=dict)  # term key -> the key its index is kept under on disk
    # approximate indexes over a scorer's vectors, per (scorer key, kind, build setting): built once
    _indexes: dict = field(default_factory=dict)
    # the TUI asks from several worker threads; one build at a time keeps caches whole
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def __repr__(self) -> str:
        return f"Workbench({self.corpus!r})"

    def with_questions(self, corpus: Corpus) -> Workbench:
        """A workbench on ``corpus``, this one's corpus with other questions (a workspace applied),
        sharing its chunkings, term indexes and scorers: nothing is chunked or indexed again."""
        if corpus.documents is not self.corpus.documents or corpus.chunks is not self.corpus.chunks:
            raise ValueError("with_questions: the corpus must share this workbench's documents and chunks")
        return replace(self, corpus=corpus)

    def with_backend(self, backend: Backend | None) -> Workbench:
        """This workbench ranking through ``backend`` (None: ranklens' own index), sharing its chunkings,
        term indexes and scorers (the local scorers explain the backend's scores): nothing is built again."""
        return replace(self, backend=backend)

    def retriever(self, setup: Setup, progress: Progress = no_progress) -> Retriever:
        with self._lock:
            started = time.perf_counter()
            if self.backend is not None:
                setup = self.backend.ranking(setup, self.corpus)  # the collection's scorer; its local twin explains
            chunk_key = self._chunk_key(setup)
            chunks = self._chunking(chunk_key, setup, progress)
            term_key = (chunk_key, setup.index_title, Analyzer.from_setup(setup).key)
            index = self._term_index(term_key, setup, chunks, progress)
            scorer = self._scorer(term_key, setup, index, setup.scorer, progress)
            if setup.ann is not None and spec(setup.scorer).vectors:  # a lexical part of an experiment ranks exactly
                scorer = self._approximate(term_key, setup, scorer, progress)
            if scorer.effective_settings():
                setup = setup.replace(**scorer.effective_settings())  # describe what ran (clamped LSA dims)
            retriever = Retriever(self.corpus, setup, chunks, index, scorer, index_s=time.perf_counter() - started)
            return retriever if self.backend is None else over_backend(retriever, self.backend)

    def chunks(self, setup: Setup, progress: Progress = no_progress) -> Sequence[Chunk]:
        """The chunks ``setup`` ranks, without building its index or scorer (a dense model's encoding)."""
        with self._lock:
            if self.backend is not None:
                setup = self.backend.ranking(setup, self.corpus)
            return self._chunking(self._chunk_key(setup), setup, progress)

    def _chunk_key(self, setup: Setup) -> tuple:
        if setup.size is None and len(self.corpus.chunks) > 0:
            return ("native",)
        return (setup.chunker, *((setup.size, setup.overlap) if setup.size else default_window(setup.chunker)))

    def _chunking(self, key: tuple, setup: Setup, progress: Progress) -> Sequence[Chunk]:
        if key in self._chunkings:
            self._chunkings.move_to_end(key)
            return self._chunkings[key]
        chunks: Sequence[Chunk]
        if key == ("native",):
            chunks = self.corpus.chunks  # a corpus from the cache keeps its chunks on disk: no copy
        else:
            chunks = chunk_documents(self.corpus.documents, key[1], key[2], key[0], progress)
        if not chunks:
            raise RanklensError(f"{self.corpus.name}: no text to index (every document is empty)")
        self._chunkings[key] = chunks
        while len(self._chunkings) > MAX_CHUNKINGS:
            old, _ = self._chunkings.popitem(last=False)
            for term_key in [k for k in self._term_indexes if k[0] == old]:
                self._drop_term_index(term_key)
        return chunks

    def _term_index(self, key: tuple, setup: Setup, chunks: Sequence[Chunk], progress: Progress) -> TermIndex:
        if key in self._term_indexes:
            self._term_indexes.move_to_end(key)
            return self._term_indexes[key]
        analyzer = Analyzer.from_setup(setup)
        index, self._index_keys[key] = self._load_or_build(chunks, key, analyzer, progress)
        self._term_indexes[key] = index
        while len(self._term_indexes) > MAX_TERM_INDEXES:
            self._drop_term_index(next(iter(self._term_indexes)))
        return index

    def _drop_term_index(self, key: tuple) -> None:
        del self._term_indexes[key]
        self._index_keys.pop(key, None)
        for scorer_key in [k for k in self._scorers if k[0] == key]:
            del self._scorers[scorer_key]
        for built in [k for k in self._indexes if k[0] == key]:
            del self._indexes[built]

    def _approximate(self, term_key: tuple, setup: Setup, scorer: Scorer, progress: Progress) -> Scorer:
        """``scorer`` ranking through the setup's approximate index, built once per vector set and build setting."""
        from ranklens.engine.ann.ranking import approximate, build_index, build_key

        key = (term_key, spec(setup.scorer).key(setup), build_key(setup))
        if key not in self._indexes:
            self._indexes[key] = build_index(scorer, setup, progress)
        return approximate(scorer, self._indexes[key], setup)

    def _load_or_build(self, chunks: Sequence[Chunk], term_key: tuple, analyzer: Analyzer,
                       progress: Progress) -> tuple[TermIndex, str | None]:
        """The term index and the key it is kept under on disk (None: not kept)."""
        with_title = term_key[1]
        if self.cache is None or len(chunks) < self.cache_min_chunks:
            return TermIndex.build(self.index_texts(chunks, with_title), analyzer, progress), None
        progress(0, 1, "checking the index cache")
        if term_key[0] == ("native",) and self.corpus.fingerprint:
            # the corpus' own chunks of files whose digest is known: no need to read every text for a key
            key = corpus_index_key(self.corpus.fingerprint, with_title, analyzer)
        else:
            key = index_key(self.index_texts(chunks, with_title), analyzer)
        index = self.cache.load(key, analyzer)
        if index is None:
            index = TermIndex.build(self.index_texts(chunks, with_title), analyzer, progress)
            self.cache.save(key, index)
        return index, key

    def index_texts(self, chunks: Sequence[Chunk], with_title: bool) -> Sequence[str]:
        if chunks is self.corpus.chunks and isinstance(chunks, ChunkTable) \
                and isinstance(self.corpus.documents, DocumentTable):
            return index_texts(self.corpus.documents, with_title)
        if not with_title:
            return [c.text for c in chunks]
        titles = {d.id: d.title for d in self.corpus.documents}
        return [f"{titles[c.doc_id]} {c.text}" if titles[c.doc_id] else c.text for c in chunks]

    def _scorer(self, term_key: tuple, setup: Setup, index: TermIndex, name: str,
                progress: Progress = no_progress) -> Scorer:
        """The named scorer on ``index``, built once per (index, the settings it reads)."""
        scorer_spec = spec(name)
        key = (term_key, scorer_spec.key(setup))
        if key not in self._scorers:
            def other(part: str, part_setup: Setup) -> Scorer:
                return self._scorer(term_key, part_setup, index, part, progress)

            chunks = self._chunkings[term_key[0]]  # term_key: (chunk key, index_title, analysis)

            def texts() -> Sequence[str]:
                return self.index_texts(chunks, term_key[1])

            cache_dir = self.cache.root if self.cache is not None else None
            self._scorers[key] = scorer_spec.builder()(ScorerInputs(index, setup, other, texts, cache_dir, progress,
                                                                    self._index_keys.get(term_key)))
        return self._scorers[key]


@dataclass(repr=False)
class Retriever:
    corpus: Corpus
    setup: Setup
    chunks: Sequence[Chunk]
    index: TermIndex
    scorer: Scorer
    index_s: float = 0.0
    source: str = ""  # the external engine ranking (a backend's label), "" when ranklens ranks

    def __repr__(self) -> str:
        return f"Retriever({self.corpus!r}, {self.setup.describe()!r})"

    @classmethod
    def build(cls, corpus: Corpus, setup: Setup, progress: Progress = no_progress) -> Retriever:
        return Workbench(corpus).retriever(setup, progress)

    @property
    def notes(self) -> list[str]:
        """Adjustments made to the setup (LSA dims clamped, ...), for the user to see."""
        return list(self.scorer.notes)

    def query(self, text: str) -> QueryTerms:
        return self.index.query(text)

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.scorer.scores(query)

    def search(self, text: str, k: int | None = None) -> SearchResult:
        """The top k chunks for ``text``; no hits, with a note, when nothing can match."""
        k = self.setup.k if k is None else k
        if k < 1:
            raise RanklensError(f"k must be at least 1 (got {k})")
        query = self.query(text)
        unknown = query.unknown
        describe = self.description
        needs_terms = self._needs_terms  # a neural encoder reads the text itself
        if query.empty and (needs_terms or not text.strip()):
            return SearchResult(text, describe, [], (), (), note="no query terms after analysis")
        if not query.matched and needs_terms:
            return SearchResult(text, describe, [], query.terms, unknown,
                                note="none of the query's terms occurs in the corpus")
        # scored as far as the top k needs: touched chunks only, long low-weight postings skipped
        scores = PendingScores(self.scorer, query, len(self.chunks))
        top, values = scores.retrieved_top(k)  # not kept: a chunk the query does not match (engine/topk.py)
        unplaced = self._unplaced(query, k)
        if not top.size and not unplaced:  # the terms weigh nothing: idf 0 (BM25 robertson, atire), no LSA direction
            return SearchResult(text, describe, [], query.terms, unknown,
                                note="every chunk scores 0 for the query's terms")
        rows = top.tolist()
        hits = Hit.ranked(rows, take(self.chunks, rows), values.tolist())
        if unplaced:  # the hits keep the ranks around those of the retriever's results that are no chunk
            taken = np.array([u.rank for u in unplaced], dtype=np.int64)
            hits = [replace(hit, rank=rank_around(hit.rank, taken)) for hit in hits]
            hits = [hit for hit in hits if hit.rank <= k]
        return SearchResult(text, describe, hits, query.terms, unknown, unplaced=tuple(unplaced))

    def _unplaced(self, query: QueryTerms, k: int | None) -> list[Unplaced]:
        """The results of the query's top ``k`` (None: as deep as the scorer ranks) that are no chunk (a user's
        own retriever's), by rank."""
        if not capable(self.scorer, Unplacing):
            return []
        scorer = cast(Unplacing, self.scorer)
        return scorer.unplaced(query, scorer.depth if k is None else k)

    def explain(self, text: str, chunk_index: int) -> Explanation:
        return self.scorer.explain(self.query(text), chunk_index)

    def relevant(self, question: Question) -> dict[int, int]:
        """Chunk index -> grade for a question, under this retriever's chunking (``ChunkJudge``)."""
        return self._judge.relevant(question)

    def relevant_text(self, question: Question) -> RelevantText:
        """The question's relevant text, for the span measures (``ChunkJudge.relevant_text``)."""
        return self._judge.relevant_text(question)

    def carried(self) -> Carried:
        """How many of the questions' judgments of chunks count under this chunking by their text (``ChunkJudge``)."""
        counts = [self._judge.carried(q) for q in self.corpus.questions]
        return Carried(sum(c.moved for c in counts), sum(c.carried for c in counts))

    def judged(self, question: Question) -> dict[int, int]:
        """Chunk index -> grade (0: judged not relevant) for every chunk a question's judgments decide."""
        return self._judge.judged(question)

    # The setup is frozen: what search reads of it is worked out once, not on every query.
    @cached_property
    def _spec(self) -> ScorerSpec:
        return spec(self.setup.scorer)

    @cached_property
    def _needs_terms(self) -> bool:
        return self._spec.needs_terms(self.setup)

    @cached_property
    def description(self) -> str:
        """The setup as described, and the engine ranking it when not ranklens ("· through qdrant:PATH ...")."""
        return self.setup.describe() + (f" · through {self.source}" if self.source else "")

    @cached_property
    def _judge(self) -> ChunkJudge:
        return ChunkJudge(self.chunks, self.corpus.questions, self.corpus.documents)

    def score_batches(self, texts: Sequence[str], progress: Progress = no_progress,
                      label: str = "scoring") -> Iterator[tuple[int, QueryScores | PendingScores]]:
        """(position, scores over all chunks) for each text, in order.

        The scores read like the dense vector (``np.asarray``, indexing,
        ``top_k``, ``max``) and carry the query's ``floor``, so ``retrieved_top``
        and ``retrieved_rank`` keep the ranking rule. From BM25 and TF-IDF they are ``PendingScores``:
        computed when asked, a top-k by MaxScore pruning and a full vector
        as the touched chunks only when the postings are short, so nothing
        of size N is made for such a query. Other scorers answer a
        memory-bounded batch at a time.
        """
        if capable(self.scorer, TouchedScores):
            # one query at a time (a batch product would be dense, and stacking rows costs copies), except
            # that an engine is asked for a batch's top k at once: what an evaluation reads first
            ahead = max(depth(), self.setup.k) if capable(self.scorer, BatchTopK) else 0
            for start in range(0, len(texts), TOP_AHEAD_BATCH):
                queries = [self.query(text) for text in texts[start:start + TOP_AHEAD_BATCH]]
                tops = cast(BatchTopK, self.scorer).top_k_batch(queries, ahead) if ahead else [None] * len(queries)
                for offset, (query, top) in enumerate(zip(queries, tops, strict=True)):
                    yield start + offset, PendingScores(self.scorer, query, len(self.chunks), top, ahead)
                progress(start + len(queries), len(texts), label)
            return
        size = max(1, min(64, BATCH_CELLS // max(1, len(self.chunks))))
        for start in range(0, len(texts), size):
            batch = [self.query(t) for t in texts[start:start + size]]
            scores = self.scorer.scores_batch(batch)
            for offset, query in enumerate(batch):
                yield start + offset, QueryScores.of(scores[offset], floor_of(self.scorer, query))
            progress(min(start + size, len(texts)), len(texts), label)

    def evaluate(self, progress: Progress = no_progress, latency_sample: int = 200) -> EvalReport:
        """Metrics over the answerable questions, in file order, with timings.

        Throughput is the whole batch of questions scored and ranked, index
        excluded; latency is single queries (search as a user runs it) on up to
        ``latency_sample`` of them. ``latency_sample`` 0 times no single query and
        leaves ``p50_ms``/``p99_ms`` out: for a caller that shows no timing (the
        experiments), whose questions would each be answered twice.
        """
        questions = self.corpus.answerable
        if not questions:
            raise RanklensError(f"{self.corpus.name}: no questions with an answer to evaluate")
        texts = [q.text for q in questions]
        judged = [self.relevant(q) for q in questions]  # judgments are not answering: before the clock
        texts_judged = [self.relevant_text(q) for q in questions]

        def rows() -> Iterator[QuestionScores]:
            # Streamed: evaluate() reduces each question to its rank and metrics as it
            # arrives, so no score vector outlives its question.
            for i, scores in self.score_batches(texts, progress, "evaluating"):
                if self.setup.k > depth():
                    top_k(scores, self.setup.k)  # answering includes ranking: the throughput counts it
                relevant = judged[i]
                # as deep as the full rank reads: the ranks the retriever's results that are no chunk hold
                unplaced = self._unplaced(scores.query, None) if isinstance(scores, PendingScores) else []
                yield QuestionScores(questions[i].id, questions[i].text, scores,
                                     np.fromiter(relevant.keys(), dtype=np.int64, count=len(relevant)),
                                     np.fromiter(relevant.values(), dtype=np.float64, count=len(relevant)),
                                     texts_judged[i], tuple(u.rank for u in unplaced))

        started = time.perf_counter()
        evaluation = evaluate(rows(), self.setup.k)  # scoring, ranking and metrics of every question
        batch_s = time.perf_counter() - started
        latencies = []
        for text in texts[:latency_sample]:
            tick = time.perf_counter()
            self.search(text)
            latencies.append((time.perf_counter() - tick) * 1000)
        timing = {
            "index_s": self.index_s,
            "queries_per_s": len(texts) / batch_s if batch_s > 0 else float("inf"),
        }
        if latencies:
            timing |= {"p50_ms": float(np.percentile(latencies, 50)), "p99_ms": float(np.percentile(latencies, 99))}
        return EvalReport(self.corpus.name, self.description, evaluation, timing)

    def top_scores(self, questions: Sequence[Question], progress: Progress = no_progress) -> list[float]:
        """Each question's top score, 0 when it retrieves nothing (and below 0: a cosine's): a user's retriever's
        first result's even when the corpus cannot place it, as that is the score it would answer on."""
        tops = []
        for _, scores in self.score_batches([q.text for q in questions], progress, "scoring"):
            first = self._unplaced(scores.query, 1) if isinstance(scores, PendingScores) else []
            tops.append(first[0].score if first else float(scores.retrieved_top(1)[1].max(initial=0.0)))
        return tops

    def threshold(self, progress: Progress = no_progress) -> ThresholdReport:
        """Can the top score tell answerable questions from unanswerable ones?"""
        answerable, unanswerable = self.corpus.answerable, self.corpus.unanswerable
        if not answerable or not unanswerable:
            raise RanklensError(
                f"{self.corpus.name}: threshold analysis needs answerable and unanswerable questions "
                f"(has {len(answerable)} and {len(unanswerable)})"
            )
        scores = self.top_scores([*answerable, *unanswerable], progress)
        split = len(answerable)
        return threshold_analysis(
            [(q.id, q.text, s) for q, s in zip(answerable, scores[:split])],
            [(q.id, q.text, s) for q, s in zip(unanswerable, scores[split:])],
        )

    def prompt(self, text: str, k: int | None = None) -> str:
        """The prompt a model would get: the top k results as context, labelled by document."""
        return self.prompt_of(self.search(text, k))

    def prompt_of(self, result: SearchResult) -> str:
        """The prompt of a search's results, in their order. A user's retriever's result that the corpus cannot
        place is quoted with its own text, labelled by its id as runs name it; one without a text gives the prompt
        nothing, and is left out."""
        passages = []
        for hit in result.ranked():
            if not isinstance(hit, Unplaced):
                passages.append(self._cited(hit.chunk))
            elif hit.text:
                passages.append((hit.run_id, hit.text))
        return build_prompt(result.query, passages)

    def prompt_for(self, text: str, chunks: Sequence[Chunk]) -> str:
        """The prompt for ``text`` with ``chunks`` as its context, in their order."""
        return build_prompt(text, [self._cited(c) for c in chunks])

    def _cited(self, chunk: Chunk) -> tuple[str, str]:
        """A chunk cited by its document's file, page and headings where they are known
        (``engine/corpus/source.py``), else by its title or id, with its text."""
        return citation(self.corpus.document(chunk.doc_id), chunk), chunk.text


@dataclass(frozen=True)
class EvalReport:
    corpus: str
    scorer: str
    evaluation: Evaluation
    timing: dict[str, float]

    @property
    def metrics(self) -> dict[str, float]:
        return self.evaluation.metrics

    def to_dict(self) -> dict:
        return {"corpus": self.corpus, "scorer": self.scorer, **self.evaluation.to_dict(), "timing": self.timing}
