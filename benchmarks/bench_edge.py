"""Evaluation through a Qdrant Edge shard (``qdrant:PATH``) beside ranklens' own index, in the same run.

    python -m benchmarks.bench_edge [--corpus cranfield|zipf-N] [--rounds 3] [--questions 300]

Each step runs in a process of its own (``benchmarks.peak`` records its peak
resident memory): ``local`` builds ranklens' BM25 lucene index and evaluates;
``push`` builds the same index and pushes it into a fresh Edge shard (the push
time alone, and chunks/s); ``edge`` loads the corpus, builds the term index the
queries are analysed with and the checks read, opens the shard and evaluates
through it. ``local`` and ``edge`` alternate for ``--rounds`` rounds on the
same machine at the same time; the table keeps each one's best queries/s
(the machine is shared: the best round is the least disturbed) and its
median. The queries/s is ``ranklens eval``'s: every answerable question
scored, ranked to depth 1000 (through the shard) and reduced to its metrics;
each process evaluates twice, the first as a one-shot ``ranklens eval`` does
(the shard's pages read from disk as they are touched), the second warm.

Needs the qdrant extra. The real collections are read from ../shared/data
beside the repository; ``zipf-N`` is the benchmarks' synthetic Zipf corpus of
N chunks with ``--questions`` rare-term questions (benchmarks/corpora.py).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.corpora import DATA, Synthetic

BM25 = {"scorer": "bm25"}  # lucene, k1 1.2, b 0.75: what a shard holds


def corpus_path(name: str, questions: int) -> Path:
    if name.startswith("zipf-"):
        return Synthetic(int(name.split("-", 1)[1].replace("k", "000").replace("m", "000000"))).beir_folder(questions)
    return DATA / name


def worker(step: str, corpus: str, target: str) -> dict[str, Any]:
    """One step, in this process: what it measured, as JSON-ready numbers."""
    from ranklens.engine.backends.qdrant import open_collection, push
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for

    started = time.perf_counter()
    loaded = load_corpus(corpus)
    setup = setup_for(loaded, BM25)
    if step == "edge":
        backend = open_collection(target)
        retriever = Workbench(loaded, backend=backend).retriever(setup)
    else:
        retriever = Workbench(loaded).retriever(setup)
    ready = time.perf_counter() - started
    if step == "push":
        report = push(retriever, target, replace=True, batch=1024)
        return {"chunks": report.chunks, "push_s": report.seconds, "ready_s": ready}
    cold = retriever.evaluate(latency_sample=100)  # what a one-shot `ranklens eval` measures
    warm = retriever.evaluate(latency_sample=100)  # the same questions again: caches and the shard's pages warm
    return {"chunks": len(retriever.chunks), "ready_s": ready, "qps": cold.timing["queries_per_s"],
            "warm_qps": warm.timing["queries_per_s"], "p50_ms": warm.timing["p50_ms"], "metrics": cold.metrics}


def run_step(step: str, corpus: Path, target: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        out = subprocess.run([sys.executable, "-m", "benchmarks.peak", str(peak_file), "benchmarks.bench_edge",
                              "--worker", step, str(corpus), target], capture_output=True, text=True, check=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result["peak_mib"] = int(peak_file.read_text()) / 2**20
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="cranfield")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--questions", type=int, default=300, help="questions of a zipf-N corpus")
    parser.add_argument("--worker", nargs=3, metavar=("STEP", "CORPUS", "TARGET"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        step, corpus, target = args.worker
        print(json.dumps(worker(step, corpus, target)))
        return 0
    corpus = corpus_path(args.corpus, args.questions)
    with tempfile.TemporaryDirectory() as folder:
        target = f"qdrant:{folder}"
        pushed = run_step("push", corpus, target)
        rounds: dict[str, list[dict[str, Any]]] = {"local": [], "edge": []}
        for _ in range(args.rounds):
            for step in rounds:
                rounds[step].append(run_step(step, corpus, target))
    print(f"### {args.corpus}: {pushed['chunks']:,} chunks, BM25 lucene, {args.rounds} rounds alternating\n")
    print("| | build (load + index, or open) s | push s (chunks/s) | queries/s, first eval: best, median | "
          "queries/s, second eval: best, median | p50 ms | peak MiB | nDCG@10 | MRR |")
    print("|---|---|---|---|---|---|---|---|---|")
    best, warm = {}, {}
    for step, results in rounds.items():
        qps, again = [r["qps"] for r in results], [r["warm_qps"] for r in results]
        best[step], warm[step] = max(qps), max(again)
        metrics = results[0]["metrics"]
        push_cell = f"{pushed['push_s']:.2f} ({pushed['chunks'] / pushed['push_s']:,.0f})" if step == "edge" else ""
        print(f"| {'ranklens own index' if step == 'local' else 'through an Edge shard'} | "
              f"{statistics.median(r['ready_s'] for r in results):.2f} | {push_cell} | "
              f"{max(qps):,.0f}, {statistics.median(qps):,.0f} | {max(again):,.0f}, {statistics.median(again):,.0f} | "
              f"{statistics.median(r['p50_ms'] for r in results):.2f} | "
              f"{max(r['peak_mib'] for r in results):.0f} | {metrics['ndcg@10']:.4f} | "
              f"{metrics['mrr']:.4f} |")
    print(f"\nthrough the shard / own index, best queries/s: {best['edge'] / best['local']:.2f}x first eval, "
          f"{warm['edge'] / warm['local']:.2f}x second; "
          f"the push process' peak: {pushed['peak_mib']:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
