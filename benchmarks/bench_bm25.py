"""BM25 on the Zipf corpora: ranklens against bm25s (numpy backend) and rank_bm25.

Two inputs, stated in every row: each library's own tokenizer from the raw
texts (what a user gets end to end; no stop words, no stemming, the same
token pattern), and the same tokens (ranklens' analyzer output handed to both
libraries, so only indexing and scoring are compared).
"""
from __future__ import annotations

from benchmarks.common import Table, fmt_size
from benchmarks.compare import OWN, SAME, SPEED_COLUMNS, Contender, Options, ratio_table, results_table, run_synthetic_sizes

SETUP = {"scorer": "bm25", "bm25_variant": "lucene", "k1": 1.2, "b": 0.75}
RANK_BM25_LIMIT = 10_000
CONTENDERS = [
    Contender("ranklens", OWN),
    Contender("bm25s", OWN),
    Contender("ranklens", SAME),
    Contender("bm25s", SAME),
    Contender("rank_bm25", SAME, max_chunks=RANK_BM25_LIMIT, install="rank-bm25",
              limit_reason=f"not run above {fmt_size(RANK_BM25_LIMIT)} chunks (pure Python, minutes per batch)"),
]


def run(sizes: list[int], options: Options) -> list[Table]:
    groups = run_synthetic_sizes("bm25", sizes, SETUP, CONTENDERS, options)
    results = results_table("BM25 (lucene, k1 1.2, b 0.75), Zipf corpora, top-10", "chunks", groups, SPEED_COLUMNS)
    results.notes += [
        f"{options.queries} queries of 2–8 words drawn from each corpus' own Zipf vocabulary; batch = all of "
        f"them, top-10 each; p50/p99 over {options.latency_queries} single queries (analysis included).",
        "own tokenizer: ranklens' analyzer vs bm25s.tokenize, both (?u)\\b\\w\\w+\\b, lowercase, no stop words, "
        "no stemming; same tokens: ranklens' analyzer output given to both (analysis untimed; ranklens gets "
        "the tokens joined by spaces and its timed build splits them again).",
        "bm25s runs its defaults (float32 scores, one thread); rank_bm25 is BM25Okapi (its idf differs from "
        "lucene's, so its scores and rankings are not expected to agree).",
        "peak memory = peak RSS added by the build in a fresh process per library, over the RSS before it.",
    ]
    return [results, ratio_table("BM25 ratios, ranklens / peer", "chunks", groups)]
