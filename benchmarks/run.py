"""ranklens against its peers: one table per section, all measured in this run.

    python -m benchmarks.run                       # everything at 10k, 100k, 1M chunks
    python -m benchmarks.run --sizes 10k --only bm25,tfidf
    python -m benchmarks.run --quick               # the smoke run: 2k chunks, a few seconds
    python -m benchmarks.run --out benchmarks/RESULTS-tables.md

Sections: bm25, tfidf (Zipf corpora at --sizes), ivf (synthetic vectors),
tui (first paint), real (the collections in ../shared/data, when present), documents (PDF
extraction against pypdf's own, a 1,000-file folder of documents opened and re-opened);
scale (cold index, warm open and search, the TUI, beside tantivy: asked for by
name, ``--only scale --sizes 1m``, minutes and GBs at 1M).
Each library runs in a fresh worker process per corpus (see worker.py);
progress goes to stderr, the tables to stdout and to --out.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks import bench_bm25, bench_documents, bench_ivf, bench_real, bench_scale, bench_tfidf, bench_tui
from benchmarks.common import Table
from benchmarks.compare import Options, log

SECTIONS = ("bm25", "tfidf", "ivf", "tui", "real", "documents", "scale")
DEFAULT_SECTIONS = ("bm25", "tfidf", "ivf", "tui", "real", "documents")
DEFAULT_SIZES = "10k,100k,1m"
QUICK_SIZES = [2_000]
VERSIONED = ("numpy", "scipy", "scikit-learn", "bm25s", "rank-bm25", "faiss-cpu", "tantivy", "PyStemmer", "textual")


def parse_size(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    try:
        value = int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (examples: 10k, 100k, 1m)") from None
    if value < 100:
        raise argparse.ArgumentTypeError(f"size {text!r} is too small (at least 100 chunks)")
    return value


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark ranklens against bm25s, rank_bm25, scikit-learn, FAISS.")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="corpus sizes in chunks (default %(default)s)")
    parser.add_argument("--only", default=",".join(DEFAULT_SECTIONS),
                        help=f"sections to run, of {', '.join(SECTIONS)} (default: all but scale)")
    parser.add_argument("--quick", action="store_true", help="smoke run: tiny sizes, few queries, one repeat")
    parser.add_argument("--queries", type=int, default=None, help="queries per corpus (default 1000, quick 100)")
    parser.add_argument("--out", type=Path, help="also write the tables as markdown to this file")
    parser.add_argument("--no-eval-job", action="store_true",
                        help="bm25: skip the whole-process `ranklens eval` vs bm25s job (minutes at 1m)")
    args = parser.parse_args(argv)
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.only if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r} (choose from {', '.join(SECTIONS)})")
    args.sizes = QUICK_SIZES if args.quick else [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    return args


def machine() -> Table:
    """What the numbers were measured on: no host name, no path."""
    table = Table("Machine", ["what", "value"])
    table.add("date", datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))
    table.add("cores", os.cpu_count())
    table.add("memory", _memory())
    table.add("processor", _processor())
    table.add("Python", platform.python_version())
    for name in VERSIONED:
        try:
            table.add(name, importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            table.add(name, "not installed")
    table.add("BLAS", _blas())
    return table


def _memory() -> str:
    try:
        kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))
        return f"{kib / 2**20:.1f} GiB"
    except (OSError, StopIteration):
        return "unknown"


def _processor() -> str:
    try:
        return next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown"


def _blas() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(f"{p['internal_api']} {p.get('version')} {p.get('architecture')} kernel, "
                     f"{p['num_threads']} threads" for p in pools) or "none found"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    queries = args.queries or (100 if args.quick else 1000)
    options = Options(quick=args.quick, queries=queries, latency_queries=20 if args.quick else 200,
                      sample_queries=5 if args.quick else 10, eval_job=not args.no_eval_job)
    runners = {
        "bm25": lambda: bench_bm25.run(args.sizes, options),
        "tfidf": lambda: bench_tfidf.run(args.sizes, options),
        "ivf": lambda: bench_ivf.run(args.quick),
        "tui": lambda: bench_tui.run(args.quick),
        "real": lambda: bench_real.run(options),
        "documents": lambda: bench_documents.run(args.quick),
        "scale": lambda: bench_scale.run(args.sizes, args.quick),
    }
    tables = [machine()]
    print(tables[0].markdown(), flush=True)
    for section in args.only:
        started = time.perf_counter()
        log(f"{section}…")
        for table in runners[section]():
            print(table.markdown(), flush=True)
            tables.append(table)
        log(f"{section}: {time.perf_counter() - started:.0f} s")
    if args.out:
        args.out.write_text("\n".join(t.markdown() for t in tables), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
