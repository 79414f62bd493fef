"""HNSW: ranklens (usearch) against FAISS IndexHNSWFlat at equal M, ef_construction and ef_search.

    python -m benchmarks.bench_hnsw                 # the lesson's synthetic set, 20,000 x 64, 200 queries
    python -m benchmarks.bench_hnsw --out hnsw.md

Both build on one thread (usearch's graph is then reproducible; FAISS is given
the same), over the same float32 unit vectors, with M 16 and ef_construction 128;
each ef_search row is recall@10 against exact search and queries/s for the whole
batch of queries on one thread, plus the distances each computed per query.
Needs usearch (the hnsw extra) and faiss-cpu (the bench extra).
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.common import report
from ranklens.engine.ann.exact import exact_topk
from ranklens.engine.ann.hnsw import EF_CONSTRUCTION, EF_LADDER, HNSWIndex
from ranklens.engine.ann.vectors import synthetic_set


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f.tolist()) & set(t.tolist())) / truth.shape[1] for f, t in zip(found, truth)]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    try:
        import faiss
    except ImportError:
        print("bench_hnsw: needs faiss-cpu (pip install 'ranklens[bench]')", file=sys.stderr)
        return 2
    faiss.omp_set_num_threads(1)
    data = synthetic_set()
    V, Q = data.vectors.astype(np.float32), data.queries.astype(np.float32)
    truth = exact_topk(data.vectors, data.queries, 10)

    started = time.perf_counter()
    ours = HNSWIndex.build(V, args.m)
    ours_build = time.perf_counter() - started
    started = time.perf_counter()
    theirs = faiss.IndexHNSWFlat(V.shape[1], args.m, faiss.METRIC_INNER_PRODUCT)
    theirs.hnsw.efConstruction = EF_CONSTRUCTION
    theirs.add(V)
    theirs_build = time.perf_counter() - started

    lines = [f"HNSW on {data.name}: {len(V):,} x {V.shape[1]}, {len(Q)} queries, M {args.m}, "
             f"ef_construction {EF_CONSTRUCTION}, one thread, {platform.machine()} ({os.cpu_count()} cores).",
             f"Build: ranklens/usearch {ours_build:.2f} s ({ours.stats.bytes / 1e6:.1f} MB), "
             f"FAISS {theirs_build:.2f} s.", "",
             "| ef_search | recall@10 ranklens | recall@10 FAISS | queries/s ranklens | queries/s FAISS "
             "| compared ranklens | compared FAISS |",
             "|---|---|---|---|---|---|---|"]
    for ef in EF_LADDER:
        started = time.perf_counter()
        found = ours.search(Q, 10, ef)
        ours_s = time.perf_counter() - started
        theirs.hnsw.efSearch = ef
        # a SWIG global the stubs do not list (a type: ignore would be unused where faiss is absent)
        stats = getattr(faiss.cvar, "hnsw_stats")  # noqa: B009
        stats.reset()
        started = time.perf_counter()
        _, ids = theirs.search(Q, 10)
        theirs_s = time.perf_counter() - started
        lines.append(f"| {ef} | {recall(found.ids, truth):.3f} | {recall(ids, truth):.3f} | {len(Q) / ours_s:,.0f} "
                     f"| {len(Q) / theirs_s:,.0f} | {found.compared.mean():,.0f} "
                     f"| {stats.ndis / len(Q):,.0f} |")
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
