"""IVF: ranklens' IVFIndex against FAISS IndexIVFFlat, same vectors, cells and n_probe list.

Recall@10 is measured against exact inner-product search for both; time per
query is the median over repeats of a whole batch divided by its size. FAISS
runs with its default threads (all cores) and again with one thread, since
ranklens answers one query at a time.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.common import Table, fmt_seconds, fmt_size, median_time
from benchmarks.compare import log
from benchmarks.peers import installed
from benchmarks.worker import TaskFailed, run_task

K = 10
REPEATS = 7  # a batch takes milliseconds: many repeats, or the median is noise


@dataclass(frozen=True)
class VectorSet:
    label: str
    n: int
    nq: int
    cells: int
    probes: tuple[int, ...]
    d: int = 64


SEED_SET = VectorSet("seed 004 (20k × 64)", 20_000, 200, 100, (1, 2, 4, 8, 16, 32, 100))
LARGE_SET = VectorSet("200k × 64", 200_000, 1000, 1000, (1, 2, 4, 8, 16, 32, 64))
QUICK_SET = VectorSet("quick (5k × 64)", 5_000, 50, 20, (1, 4, 20))


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean share of the true top-k found; padding (-1) never matches."""
    return float((found[:, :, None] == truth[:, None, :]).any(axis=2).sum(axis=1).mean() / truth.shape[1])


def ivf_task(args: dict[str, Any], arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """Worker entry point: both libraries on one vector set, rows per n_probe."""
    from ranklens.engine.index.exact import exact_topk
    from ranklens.engine.index.ivf import IVFIndex
    from ranklens.engine.synthetic import synthetic_vectors

    V, Q = synthetic_vectors(n=args["n"], d=args["d"], nq=args["nq"])
    truth = exact_topk(V, Q, K)
    repeats = args["repeats"]
    started = time.perf_counter()
    ours = IVFIndex.build(V, args["cells"])
    result: dict[str, Any] = {"ranklens_build_s": time.perf_counter() - started, "rows": []}
    faiss_index = None
    if args["faiss"]:
        import faiss

        started = time.perf_counter()
        faiss_index = faiss.IndexIVFFlat(faiss.IndexFlatIP(args["d"]), args["d"], args["cells"],
                                         faiss.METRIC_INNER_PRODUCT)
        xb = np.ascontiguousarray(V, dtype=np.float32)
        faiss_index.train(xb)
        faiss_index.add(xb)
        result["faiss_build_s"] = time.perf_counter() - started
        xq = np.ascontiguousarray(Q, dtype=np.float32)
        default_threads = faiss.omp_get_max_threads()
    nq = Q.shape[0]
    for n_probe in args["probes"]:
        found = ours.search(Q, K, n_probe).ids
        row = {"n_probe": n_probe, "ranklens_recall": recall(found, truth),
               "ranklens_ms": median_time(lambda n_probe=n_probe: ours.search(Q, K, n_probe), repeats) * 1000 / nq}
        if faiss_index is not None:
            faiss_index.nprobe = n_probe
            row["faiss_recall"] = recall(faiss_index.search(xq, K)[1], truth)
            row["faiss_ms"] = median_time(lambda: faiss_index.search(xq, K), repeats) * 1000 / nq
            faiss.omp_set_num_threads(1)
            row["faiss_1t_ms"] = median_time(lambda: faiss_index.search(xq, K), repeats) * 1000 / nq
            faiss.omp_set_num_threads(default_threads)
        result["rows"].append(row)
    return result


def run(quick: bool) -> list[Table]:
    sets = [QUICK_SET] if quick else [SEED_SET, LARGE_SET]
    has_faiss = installed("faiss")
    table = Table("IVF: ranklens IVFIndex vs FAISS IndexIVFFlat (inner product), recall@10 against exact search",
                  ["vectors", "cells", "n_probe", "ranklens recall@10", "FAISS recall@10", "Δ recall",
                   "ranklens ms/query", "FAISS ms/query", "FAISS 1-thread ms/query", "ratio ranklens / FAISS"])
    if not has_faiss:
        table.notes.append("FAISS not installed (pip install faiss-cpu): ranklens rows only")
    for vectors in sets:
        args = {"n": vectors.n, "d": vectors.d, "nq": vectors.nq, "cells": vectors.cells,
                "probes": list(vectors.probes), "repeats": 1 if quick else REPEATS, "faiss": has_faiss}
        started = time.perf_counter()
        try:
            result = run_task("benchmarks.bench_ivf", "ivf_task", args, timeout=3600)
        except TaskFailed as failed:
            table.notes.append(f"{vectors.label}: {failed}")
            continue
        log(f"  ivf {vectors.label}: done in {time.perf_counter() - started:.0f} s")
        for row in result["rows"]:
            # FAISS' better time of its default threads and one thread: the stricter comparison
            theirs = min(row["faiss_ms"], row["faiss_1t_ms"]) if "faiss_ms" in row else None
            table.add(vectors.label, vectors.cells, row["n_probe"], f"{row['ranklens_recall']:.3f}",
                      _opt(row, "faiss_recall", "{:.3f}"),
                      f"{row['ranklens_recall'] - row['faiss_recall']:+.3f}" if theirs else "—",
                      f"{row['ranklens_ms']:.3f}", _opt(row, "faiss_ms", "{:.3f}"), _opt(row, "faiss_1t_ms", "{:.3f}"),
                      f"{row['ranklens_ms'] / theirs:.1f}×" if theirs else "—")
        build = f"{vectors.label}: build (k-means + lists) ranklens {fmt_seconds(result['ranklens_build_s'])}"
        if "faiss_build_s" in result:
            build += f", FAISS {fmt_seconds(result['faiss_build_s'])}"
        table.notes.append(build + f"; {vectors.nq} queries, {fmt_size(vectors.n)} vectors")
    table.notes.append("ratio = ranklens ms/query over FAISS' best of default threads and one thread; "
                       "the target is within 3×. Recall uses each library's own k-means (scikit-learn's KMeans "
                       "n_init=1 for ranklens, FAISS' own for FAISS).")
    return [table]


def _opt(row: dict[str, Any], key: str, spec: str) -> str:
    return spec.format(row[key]) if key in row else "—"
