"""Retriever.evaluate streams: each question's metrics come from its own scores as it is answered.

Oracle: the metrics of the dense score vectors (every question scored in
full, ranked by the stable argsort), as the evaluation computed them before
streaming; and no question's scores are alive once the next has been scored. Alive by reference count:
a score vector holds no cycle, so a full collection per row (seconds each in a worker whose heap holds
hundreds of apps) would only hide a vector some cycle kept.
"""
from __future__ import annotations

import weakref

import numpy as np
import pytest

from ranklens.engine.corpus import Chunk, Corpus, Document, Question
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.metrics import QuestionScores, evaluate
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.setup import Setup
from ranklens.engine.topk import QueryScores, floor_of


def synthetic_corpus(n_docs: int = 500, vocab: int = 3000, seed: int = 3) -> Corpus:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    texts = [" ".join(words[np.minimum(rng.zipf(1.2, size=length), vocab) - 1])
             for length in rng.integers(4, 60, n_docs)]
    ids = [f"c{i}" for i in range(n_docs)]
    questions = []
    for q, c in enumerate(rng.choice(n_docs, 40, replace=False).tolist()):
        words_of = texts[c].split()
        picked = rng.choice(len(words_of), min(3, len(words_of)), replace=False)
        # some questions judge a second chunk too, so recall and nDCG are not all-or-nothing
        relevant = {ids[c]: 2, ids[(c + 1) % n_docs]: 1} if q % 3 == 0 else {ids[c]: 1}
        questions.append(Question(f"q{q}", " ".join(words_of[i] for i in picked), relevant))
    return Corpus("synthetic", tuple(Document(i, "", t) for i, t in zip(ids, texts)),
                  tuple(Chunk(i, i, 0, 0, len(t), t) for i, t in zip(ids, texts)), tuple(questions))


def dense_oracle(retriever) -> dict:
    rows = []
    for q in retriever.corpus.answerable:
        rel = retriever.relevant(q)
        query = retriever.query(q.text)
        scores = QueryScores.of(np.asarray(retriever.scorer.scores(query), dtype=float),
                                floor_of(retriever.scorer, query))  # the ranking rule: what the query retrieves
        rows.append(QuestionScores(q.id, q.text, scores,
                                   np.array(list(rel), dtype=np.int64), np.array(list(rel.values()), dtype=float),
                                   retriever.relevant_text(q)))
    return evaluate(rows, retriever.setup.k).to_dict()


@pytest.mark.parametrize("settings", [
    {"scorer": "bm25"}, {"scorer": "bm25", "bm25_variant": "bm25l"}, {"scorer": "bm25", "bm25_variant": "bm25+"},
    {"scorer": "bm25", "bm25_variant": "robertson"}, {"scorer": "tfidf"}, {"scorer": "tfidf", "sublinear_tf": True},
])
def test_streamed_metrics_equal_the_dense_evaluation(settings: dict) -> None:
    retriever = Workbench(synthetic_corpus()).retriever(Setup.from_mapping(settings, source="test"))
    report = retriever.evaluate(latency_sample=3)
    expected = dense_oracle(retriever)
    assert report.evaluation.to_dict() == expected  # every metric and every rank, exactly
    assert 0 < report.metrics["mrr"] < 1  # not a trivial set: some questions miss the top


@pytest.mark.parametrize("scorer", ["tfidf", "bm25", "lsa"])
def test_seed_corpus_evaluation_is_unchanged_by_streaming(scorer: str) -> None:
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": scorer}))
    assert retriever.evaluate(latency_sample=2).evaluation.to_dict() == dense_oracle(retriever)


def test_evaluate_keeps_no_score_vector_per_question() -> None:
    alive: list[weakref.ref] = []
    n = 5000

    def rows():
        rng = np.random.default_rng(0)
        for i in range(20):
            scores = rng.random(n)
            alive.append(weakref.ref(scores))
            # everything but the row being scored (and the one just handed over) is gone
            assert sum(r() is not None for r in alive[:-2]) == 0
            yield QuestionScores(f"q{i}", "", scores, np.array([i]))

    ev = evaluate(rows())
    assert len(ev.per_question) == 20


def test_retriever_evaluate_holds_at_most_one_question_of_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    retriever = Workbench(synthetic_corpus()).retriever(Setup.from_mapping({"scorer": "bm25"}, source="test"))
    alive: list[weakref.ref] = []
    original = retriever.score_batches

    def watched(*args, **kwargs):
        for i, scores in original(*args, **kwargs):
            alive.append(weakref.ref(scores))
            assert sum(r() is not None for r in alive[:-2]) == 0
            yield i, scores

    monkeypatch.setattr(retriever, "score_batches", watched)
    retriever.evaluate(latency_sample=1)
    assert len(alive) == len(retriever.corpus.answerable)
