"""The measuring protocol every text-retrieval section shares, run inside a worker process.

For one library on one corpus: a warm-up on a small slice (lazy imports and
first-call caches are not indexing), then the build with its time and peak
memory, for each query mix (the Zipf mix; on synthetic corpora also the
rare-term mix) the batch of queries (median of repeats) and single-query
latencies, the peak memory of the whole worker process, and what the parent
needs to compare libraries: each query's top-k ids and scores and the full
score vectors of a few queries.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any
from collections.abc import Callable, Iterator

import numpy as np

from benchmarks.common import latencies_ms, measure, percentile, process_peak_bytes
from benchmarks.peers import Engine, corpus_from_texts, head, make_engine
from ranklens.engine.corpus import Corpus
from ranklens.engine.measuring.metric_table import NDCG
from ranklens.engine.measuring.metrics import QuestionScores, score_question
from ranklens.engine.setup import Setup
from ranklens.engine.topk import top_k

K = 10
RECALL_DEPTH = 100
WARM_UP_CHUNKS = 200


def load(source: dict[str, Any]) -> tuple[Corpus, list[str], list[dict[int, int]] | None, dict[str, tuple[int, int]]]:
    """(corpus, query texts, relevance per query or None, query mixes) for a synthetic or a real corpus.

    A mix names a slice of the query texts: "zipf" (the corpus' own questions on a real
    collection) and, on a synthetic corpus, "rare" (``Synthetic.rare_queries``).
    """
    if "synthetic" in source:
        from benchmarks.corpora import Synthetic

        spec = Synthetic(source["synthetic"])
        texts = spec.texts()
        zipf = spec.query_texts()[:source["queries"]]
        rare = spec.rare_queries(texts, source["queries"])[0] if source.get("rare", True) else []
        mixes = {"zipf": (0, len(zipf))} | ({"rare": (len(zipf), len(zipf) + len(rare))} if rare else {})
        return corpus_from_texts(texts), zipf + rare, None, mixes
    from benchmarks.corpora import DATA
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.judging.positions import ChunkJudge

    corpus = load_corpus(DATA / source["real"])
    questions = corpus.answerable[:source["queries"]]
    judge = ChunkJudge(corpus.chunks)  # the engine's judgment rules, no index built
    return corpus, [q.text for q in questions], [judge.relevant(q) for q in questions], {"zipf": (0, len(questions))}


def engine_task(args: dict[str, Any], arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Worker entry point: measure ``args["library"]`` on ``args["source"]``."""
    corpus, queries, relevant, mixes = load(args["source"])
    setup = Setup.from_mapping(args["setup"], source="benchmark")
    make = lambda: make_engine(args["library"], setup, args["pretokenized"], args.get("language"))  # noqa: E731
    result, engine = measure_engine(make, corpus, queries, args["latency_queries"], args["sample_queries"],
                                    args["repeats"], arrays, mixes)
    if relevant is not None:
        result.update(quality(engine, relevant))
    result["process_peak_bytes"] = process_peak_bytes()  # load, index, every query: the whole worker
    return result


@contextmanager
def answering(engine: Engine, lo: int, hi: int) -> Iterator[None]:
    """``engine.batch`` answers only queries [lo, hi) meanwhile (every adapter keeps its queries in ``queries``)."""
    every = engine.queries  # type: ignore[attr-defined]
    engine.queries = every[lo:hi]  # type: ignore[attr-defined]
    try:
        yield
    finally:
        engine.queries = every  # type: ignore[attr-defined]


def measure_engine(make: Callable[[], Engine], corpus: Corpus, queries: list[str], latency_queries: int,
                   sample_queries: int, repeats: int, arrays: dict[str, np.ndarray],
                   mixes: dict[str, tuple[int, int]] | None = None) -> tuple[dict[str, Any], Engine]:
    """Build, then each query mix: batch throughput, single-query latency. Keys of a mix other
    than "zipf" carry its name as a suffix (``queries_per_s_rare``); ids and top scores of all
    mixes go to ``arrays`` one after the other, for the agreement check."""
    mixes = mixes or {"zipf": (0, len(queries))}
    warm = make()
    warm.prepare(head(corpus, WARM_UP_CHUNKS), queries[:5])
    warm.build()
    warm.batch(K)
    del warm
    engine = make()
    engine.prepare(corpus, queries)
    built = measure(engine.build)
    result: dict[str, Any] = {"chunks": len(corpus.chunks), "queries": len(queries), "build_s": built.seconds,
                              "peak_bytes": built.peak_bytes}
    all_ids, all_scores = [], []
    for name, (lo, hi) in mixes.items():
        suffix = "" if name == "zipf" else f"_{name}"
        batch_times = []
        with answering(engine, lo, hi):
            for _ in range(max(1, repeats)):
                timed = measure(lambda: engine.batch(K))
                batch_times.append(timed.seconds)
        ids, scores = timed.value
        all_ids.append(ids)
        all_scores.append(scores)
        latencies = latencies_ms(lambda i: engine.search(i, K), range(lo, lo + min(latency_queries, hi - lo)))
        result.update({f"queries_per_s{suffix}": (hi - lo) / float(np.median(batch_times)),
                       f"batch_peak_bytes{suffix}": timed.peak_bytes,
                       f"p50_ms{suffix}": percentile(latencies, 50), f"p99_ms{suffix}": percentile(latencies, 99)})
    arrays.update(ids=np.concatenate(all_ids), top_scores=np.concatenate(all_scores),
                  sample_scores=np.stack([engine.scores(i) for i in range(min(sample_queries, len(queries)))]))
    return result, engine


def quality(engine: Engine, relevant: list[dict[int, int]]) -> dict[str, float]:
    """nDCG@10 (the engine's definition, graded) and recall@100 from each query's full score vector."""
    ndcg, recall = [], []
    for i, rel in enumerate(relevant):
        scores = engine.scores(i).astype(np.float64)
        ids = np.fromiter(rel.keys(), dtype=np.int64, count=len(rel))
        grades = np.fromiter(rel.values(), dtype=np.float64, count=len(rel))
        ndcg.append(score_question(QuestionScores(str(i), "", scores, ids, grades)).values[NDCG])
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
