"""A backend written the way a plug-in author would: one module with ``open`` and ``push``, registered by one line.

The toy engine keeps a collection as one JSON file in a folder (``toy:FOLDER``,
the collection ``FOLDER/NAME.json``): the fingerprint ranklens pushes with every
collection, and the chunks' texts as indexed. Opened, it indexes those texts
itself with the engine's own analyzer and BM25 (the settings the fingerprint
recorded), and ranks a query by its text, as an external engine would.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.backends.base import PushReport
from ranklens.engine.backends.fingerprint import differences, fingerprint
from ranklens.engine.backends.registry import BackendSpec
from ranklens.engine.corpus import Corpus
from ranklens.engine.errors import RanklensError
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.retriever import Retriever, Workbench
from ranklens.engine.scoring.base import Scorer
from ranklens.engine.scoring.bm25 import BM25Scorer
from ranklens.engine.setup import Setup
from ranklens.engine.text.termindex import QueryTerms, TermIndex
from ranklens.engine.topk import top_k
from ranklens.engine.measuring.trec import atomic_write

SCHEME = "toy:"
SPEC = BackendSpec("toy", "toy", (SCHEME,), "toy:FOLDER", "toy:FOLDER (a folder of JSON collections)",
                   open="tests.support.toy_backend:ToyBackend.open", push="tests.support.toy_backend:push",
                   ranks_what="a toy collection ranks by BM25", pushes_what="a toy collection holds BM25's texts")


def _file(target: str, collection: str) -> Path:
    return Path(target[len(SCHEME):]) / f"{collection}.json"


class ToyBackend:
    """A collection of the toy engine, opened: its chunks indexed here, in memory."""

    def __init__(self, target: str, collection: str | None) -> None:
        self.target, self.collection = target, collection or ""
        self.stored: dict[str, Any] | None = None
        if collection is not None:
            self._load(collection)

    @classmethod
    def open(cls, target: str, collection: str | None = None) -> ToyBackend:
        if not Path(target[len(SCHEME):]).is_dir():
            raise RanklensError(f"{target}: no such folder")
        return cls(target, collection)

    def _load(self, collection: str) -> dict[str, Any]:
        path = _file(self.target, collection)
        if not path.is_file():
            raise RanklensError(f"{self.target}: no collection {collection!r}")
        stored = json.loads(path.read_text(encoding="utf-8"))
        setup = Setup.from_mapping(stored["fingerprint"]["settings"])  # a stop list by language, not from a file
        self.index = TermIndex.build(stored["texts"], Analyzer.from_setup(setup))
        self.bm25 = BM25Scorer.fit(self.index, setup.bm25_variant, setup.k1, setup.b)
        self.collection, self.stored = collection, stored["fingerprint"]
        return self.stored

    @property
    def label(self) -> str:
        return f"{self.target} collection {self.collection}"

    @property
    def notes(self) -> list[str]:
        return []

    def ranking(self, setup: Setup, corpus: Corpus) -> Setup:
        if self.stored is None:
            self._load(corpus.name)
        return setup if setup.scorer == "bm25" else setup.replace(scorer="bm25")

    def fingerprint(self) -> dict[str, Any]:
        return self.stored or {}

    def check(self, retriever: Retriever) -> None:
        stored = self.stored if self.stored is not None else self._load(retriever.corpus.name)
        problems = differences(stored, fingerprint(retriever))
        if problems:
            raise RanklensError(f"collection {self.collection!r} was pushed with other settings: "
                                + "; ".join(problems))

    def _scores(self, query: QueryTerms) -> np.ndarray:
        return self.bm25.scores(self.index.query(query.text))  # the engine analyses the text itself

    def search(self, query: QueryTerms, k: int, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        scores = self._scores(query)
        best = top_k(scores, k)
        best = best[scores[best] > 0]  # as a search engine answers: chunks sharing a term
        return best.astype(np.int64), scores[best]

    def search_batch(self, queries: list[QueryTerms], k: int, scorer: Scorer) -> list[tuple[np.ndarray, np.ndarray]]:
        return [self.search(query, k, scorer) for query in queries]

    def score_of(self, query: QueryTerms, chunk: int, scorer: Scorer) -> float:
        return float(self._scores(query)[chunk])

    def rank_of(self, query: QueryTerms, relevant: np.ndarray, scorer: Scorer, depth: int) -> int | None:
        return None  # no cheaper way than its top depth: the registry's contract allows saying so

    def close(self) -> None:
        pass


def push(retriever: Retriever, target: str, collection: str | None = None, replace: bool = False,
         progress: Progress = no_progress, batch: int = 256, *, dense: Any = None) -> PushReport:
    started = time.perf_counter()
    collection = collection or retriever.corpus.name
    path = _file(target, collection)
    existed = path.exists()
    if existed and not replace:
        raise RanklensError(f"{target}: collection {collection!r} exists (--replace replaces it)")
    path.parent.mkdir(parents=True, exist_ok=True)
    texts = Workbench(retriever.corpus).index_texts(retriever.chunks, retriever.setup.index_title)
    progress(0, 1, "pushing")
    atomic_write(path, json.dumps({"fingerprint": fingerprint(retriever), "texts": texts}, ensure_ascii=False))
    progress(1, 1, "pushing")
    return PushReport(target, collection, path.name, path.name if existed else None, len(texts),
                      time.perf_counter() - started)
