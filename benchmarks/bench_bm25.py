"""BM25 on the Zipf corpora: ranklens against bm25s (numpy backend) and rank_bm25.

Two inputs, stated in every row: each library's own tokenizer from the raw
texts (what a user gets end to end; no stop words, no stemming, the same
token pattern), and the same tokens (ranklens' analyzer output handed to both
libraries, so only indexing and scoring are compared). Two query mixes: the
Zipf mix (2–8 words drawn from the corpus' own law, most of them frequent)
and the rare-term mix (the 4 rarest words of a random chunk: short postings).

Then the evaluation job as a user runs it, each in a process of its own:
``ranklens eval`` on the corpus written as a BEIR folder with rare-term
questions, against bm25s loading, indexing and answering the same questions.
"""
from __future__ import annotations

import json
import os
import tempfile

from benchmarks.common import Table, fmt_bytes, fmt_rate, fmt_ratio, fmt_seconds, fmt_size
from benchmarks.compare import (MIX_COLUMNS, MIX_RATIOS, OWN, SAME, Contender, Options, log, ratio_table, results_table,
                                run_synthetic_sizes)
from benchmarks.corpora import Synthetic
from benchmarks.peers import installed
from benchmarks.worker import TaskFailed, run_module

SETUP = {"scorer": "bm25", "bm25_variant": "lucene", "k1": 1.2, "b": 0.75}
RANK_BM25_LIMIT = 10_000
EVAL_QUESTIONS = 300  # as in issue 9's measurement
CONTENDERS = [
    Contender("ranklens", OWN),
    Contender("bm25s", OWN),
    Contender("ranklens", SAME),
    Contender("bm25s", SAME),
    Contender("rank_bm25", SAME, max_chunks=RANK_BM25_LIMIT, install="rank-bm25",
              limit_reason=f"not run above {fmt_size(RANK_BM25_LIMIT)} chunks (pure Python, minutes per batch)"),
]


def run(sizes: list[int], options: Options) -> list[Table]:
    groups = run_synthetic_sizes("bm25", sizes, SETUP, CONTENDERS, options, rare=True)
    results = results_table("BM25 (lucene, k1 1.2, b 0.75), Zipf corpora, top-10", "chunks", groups, MIX_COLUMNS)
    results.notes += [
        f"Columns without a mix name are the Zipf mix: {options.queries} queries of 2–8 words drawn from each "
        f"corpus' own Zipf vocabulary; rare mix: "
        f"{options.queries} queries of the 4 rarest distinct words of a random chunk. Batch = all queries of a mix, "
        f"top-10 each; p50/p99 over {options.latency_queries} single queries of each mix (analysis included).",
        "own tokenizer: ranklens' analyzer vs bm25s.tokenize, both (?u)\\b\\w\\w+\\b, lowercase, no stop words, "
        "no stemming; same tokens: ranklens' analyzer output given to both (tokenizing untimed).",
        "ranklens' build analyses on every core from 50k chunks (helper processes, engine/text/batch_analysis.py; "
        "their memory not counted); "
        "bm25s runs its defaults (float32 scores, one thread); rank_bm25 is BM25Okapi (its idf differs from "
        "lucene's, so its scores and rankings are not expected to agree).",
        "peak memory (build) = peak RSS added by the build in a fresh process per library, over the RSS before it; "
        "peak memory (whole process) = the worker's peak RSS from start to end (imports, loading the texts, "
        "analysis for 'same tokens', index, both query mixes, the agreement samples).",
        "same top-10 columns: over the queries of both mixes.",
    ]
    tables = [results, ratio_table("BM25 ratios, ranklens / peer", "chunks", groups, MIX_RATIOS)]
    if installed("bm25s") and options.eval_job:
        tables.append(eval_table(sizes, options))
    return tables


def eval_table(sizes: list[int], options: Options) -> Table:
    """``ranklens eval`` against bm25s index + retrieve, each a whole process: wall time and peak RSS."""
    questions = 20 if options.quick else EVAL_QUESTIONS
    table = Table(f"Evaluation job, whole process: `ranklens eval` vs bm25s index + retrieve ({questions} "
                  "rare-term questions)",
                  ["chunks", "library", "job", "wall time", "index", "queries/s", "peak memory (whole process)",
                   "peak memory ratio ranklens / bm25s"])
    for n in sizes:
        folder = Synthetic(n).beir_folder(questions)
        timeout = options.timeout(n)
        ours = theirs = None
        with tempfile.TemporaryDirectory(prefix="ranklens-bench-xdg-") as cache:
            # an empty cache folder: the index is built, as on a first run, not read back
            args = ["eval", str(folder), "--json", "--scorer", "bm25", "--bm25-variant", str(SETUP["bm25_variant"]),
                    "--k1", str(SETUP["k1"]), "--b", str(SETUP["b"])]
            try:
                ours = run_module("ranklens.cli", args, timeout, env={**os.environ, "XDG_CACHE_HOME": cache})
            except TaskFailed as failed:
                table.add(fmt_size(n), "ranklens", "ranklens eval", str(failed), "—", "—", "—", "—")
        try:
            theirs = run_module("benchmarks.bm25s_eval", [str(folder), str(SETUP["k1"]), str(SETUP["b"])], timeout)
        except TaskFailed as failed:
            table.add(fmt_size(n), "bm25s", "index + retrieve", str(failed), "—", "—", "—", "—")
        ratio = fmt_ratio(ours.peak_bytes, theirs.peak_bytes) if ours and theirs else "—"
        for library, job, done in (("ranklens", "ranklens eval --json", ours), ("bm25s", "index + retrieve", theirs)):
            if done is None:
                continue
            log(f"  eval {fmt_size(n)} · {library}: {done.seconds:.0f} s, exit {done.returncode}")
            try:
                report = json.loads(done.stdout)
            except ValueError:
                table.add(fmt_size(n), library, job, f"exit {done.returncode}: {done.stderr.strip()[-160:]}",
                          "—", "—", "—", "—")
                continue
            timing = report.get("timing", report)
            table.add(fmt_size(n), library, job, fmt_seconds(done.seconds), fmt_seconds(timing["index_s"]),
                      fmt_rate(timing["queries_per_s"]), fmt_bytes(done.peak_bytes),
                      ratio if library == "ranklens" else "")
    table.notes += [
        "Each job is one fresh process from start to end; peak memory is that process' peak RSS (VmHWM, read "
        "as it exits): interpreter, imports, reading corpus.jsonl, index, every question.",
        "ranklens eval builds its index (an empty cache folder), ranks every question in full (rank of the gold "
        "chunk, nDCG@10, recall@10) and times 200 single searches; bm25s tokenizes, indexes and retrieves the "
        "top 10 of every question in one call.",
    ]
    return table
