"""Where ranklens spends its time on a big Zipf corpus: cProfile of the BM25 build and queries.

    python benchmarks/profile_bm25.py --chunks 1m            # build, single queries, batch
    python benchmarks/profile_bm25.py --chunks 100k --top 30

Prints the functions with the most own time (cProfile ``tottime``) for the
index build and for a batch of queries, and splits a single query into its
steps (analysis, scoring, top-k) with medians over the queries.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time

from benchmarks.corpora import Synthetic
from benchmarks.peers import corpus_from_texts
from benchmarks.run import parse_size
from ranklens.engine.retriever import Retriever, Workbench
from ranklens.engine.setup import Setup
from ranklens.engine.topk import top_k

K = 10


def profiled(label: str, step, top: int):
    profile = cProfile.Profile()
    started = time.perf_counter()
    value = profile.runcall(step)
    elapsed = time.perf_counter() - started
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    print(f"## {label}: {elapsed:.2f} s under cProfile\n")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000], "\n")
    return value


def query_steps(retriever: Retriever, queries: list[str]) -> None:
    """Median ms of each step of a single query, as Retriever.search runs them."""
    steps: dict[str, list[float]] = {"analysis (Retriever.query)": [], "scores (scorer.scores)": [],
                                     "top-k (engine.topk.top_k)": [], "whole search": []}
    for text in queries:
        t0 = time.perf_counter()
        query = retriever.query(text)
        t1 = time.perf_counter()
        scores = retriever.scores(query)
        t2 = time.perf_counter()
        top_k(scores, K)
        t3 = time.perf_counter()
        retriever.search(text, K)
        t4 = time.perf_counter()
        for name, seconds in zip(steps, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            steps[name].append(seconds * 1000)
    print(f"## single query, medians over {len(queries)} queries\n")
    for name, values in steps.items():
        print(f"- {name}: {statistics.median(values):.2f} ms (p99 {sorted(values)[int(len(values) * 0.99) - 1]:.2f})")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=parse_size, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--top", type=int, default=20, help="functions listed per profile")
    args = parser.parse_args()
    spec = Synthetic(args.chunks)
    corpus = corpus_from_texts(spec.texts())
    queries = spec.query_texts()[:args.queries]
    retriever = profiled("build: Workbench.retriever (texts in, ready index out)",
                         lambda: Workbench(corpus).retriever(Setup()), args.top)
    query_steps(retriever, queries)
    profiled(f"batch: {len(queries)} queries through Retriever.score_batches + top_k",
             lambda: [top_k(s, K) for _, s in retriever.score_batches(queries)], args.top)
    profiled(f"single: {len(queries)} × Retriever.search", lambda: [retriever.search(q, K) for q in queries], args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
