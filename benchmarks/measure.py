"""The measuring protocol every text-retrieval section shares, run inside a worker process.

For one library on one corpus: a warm-up on a small slice (lazy imports and
first-call caches are not indexing), then the build with its time and peak
memory, the batch of queries (median of repeats), single-query latencies,
and what the parent needs to compare libraries: each query's top-k ids and
scores and the full score vectors of a few queries.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from benchmarks.common import latencies_ms, measure, percentile
from benchmarks.peers import Engine, corpus_from_texts, head, make_engine
from ranklens.engine.corpus import Corpus
from ranklens.engine.metrics import QuestionScores, score_question
from ranklens.engine.setup import Setup
from ranklens.engine.topk import top_k

K = 10
RECALL_DEPTH = 100
WARM_UP_CHUNKS = 200


def load(source: dict[str, Any]) -> tuple[Corpus, list[str], list[dict[int, int]] | None]:
    """(corpus, query texts, relevance per query or None) for a synthetic or a real corpus."""
    if "synthetic" in source:
        from benchmarks.corpora import Synthetic

        spec = Synthetic(source["synthetic"])
        return corpus_from_texts(spec.texts()), spec.query_texts()[:source["queries"]], None
    from benchmarks.corpora import DATA
    from ranklens.engine.loaders import load_corpus
    from ranklens.engine.retriever import Retriever

    corpus = load_corpus(DATA / source["real"])
    questions = corpus.answerable[:source["queries"]]
    # Retriever.relevant needs only the chunks: reuse the engine's judgement rules, no index built
    judge = Retriever(corpus, Setup(), list(corpus.chunks), None, None)  # type: ignore[arg-type]
    return corpus, [q.text for q in questions], [judge.relevant(q) for q in questions]


def engine_task(args: dict[str, Any], arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Worker entry point: measure ``args["library"]`` on ``args["source"]``."""
    corpus, queries, relevant = load(args["source"])
    setup = Setup.from_mapping(args["setup"], source="benchmark")
    make = lambda: make_engine(args["library"], setup, args["pretokenized"], args.get("language"))  # noqa: E731
    result, engine = measure_engine(make, corpus, queries, args["latency_queries"], args["sample_queries"],
                                    args["repeats"], arrays)
    if relevant is not None:
        result.update(quality(engine, relevant))
    return result


def measure_engine(make: Callable[[], Engine], corpus: Corpus, queries: list[str], latency_queries: int,
                   sample_queries: int, repeats: int, arrays: dict[str, np.ndarray]) -> tuple[dict[str, Any], Engine]:
    warm = make()
    warm.prepare(head(corpus, WARM_UP_CHUNKS), queries[:5])
    warm.build()
    warm.batch(K)
    del warm
    engine = make()
    engine.prepare(corpus, queries)
    built = measure(engine.build)
    batch_times = []
    for _ in range(max(1, repeats)):
        timed = measure(lambda: engine.batch(K))
        batch_times.append(timed.seconds)
    ids, scores = timed.value  # type: ignore[misc]
    latencies = latencies_ms(lambda i: engine.search(i, K), range(min(latency_queries, len(queries))))
    arrays.update(ids=ids, top_scores=scores,
                  sample_scores=np.stack([engine.scores(i) for i in range(min(sample_queries, len(queries)))]))
    return {
        "chunks": len(corpus.chunks),
        "queries": len(queries),
        "build_s": built.seconds,
        "peak_bytes": built.peak_bytes,
        "queries_per_s": len(queries) / float(np.median(batch_times)),
        "batch_peak_bytes": timed.peak_bytes,
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
    }, engine


def quality(engine: Engine, relevant: list[dict[int, int]]) -> dict[str, float]:
    """nDCG@10 (the engine's definition, graded) and recall@100 from each query's full score vector."""
    ndcg, recall = [], []
    for i, rel in enumerate(relevant):
        scores = engine.scores(i).astype(np.float64)
        ids = np.fromiter(rel.keys(), dtype=np.int64, count=len(rel))
        grades = np.fromiter(rel.values(), dtype=np.float64, count=len(rel))
        ndcg.append(score_question(QuestionScores(str(i), "", scores, ids, grades)).ndcg)
        found = np.intersect1d(top_k(scores, RECALL_DEPTH), ids).size
        recall.append(found / len(rel) if rel else 0.0)
    return {"ndcg@10": float(np.mean(ndcg)), f"recall@{RECALL_DEPTH}": float(np.mean(recall))}


def agreement(reference: dict[str, Any], other: dict[str, Any]) -> dict[str, float]:
    """How far ``other`` is from ``reference``: identical top-k lists, identical up to ties, max |Δscore|.

    "Up to ties" accepts a different order or choice among chunks whose
    scores are equal within float32 precision (bm25s scores in float32, and
    argpartition orders ties arbitrarily): the two top-k score lists match.
    """
    same = float((reference["ids"] == other["ids"]).all(axis=1).mean())
    a = np.nan_to_num(reference["top_scores"], nan=-1.0)
    b = np.nan_to_num(other["top_scores"], nan=-1.0)
    tied = float(np.isclose(a, b, rtol=1e-5, atol=1e-6).all(axis=1).mean())
    diff = float(np.abs(reference["sample_scores"] - other["sample_scores"]).max())
    return {"same_top": same, "same_up_to_ties": tied, "max_score_diff": diff}
