"""TF-IDF on the Zipf corpora: ranklens against scikit-learn's TfidfVectorizer and a sparse product."""
from __future__ import annotations

from benchmarks.common import Table
from benchmarks.compare import (OWN, PROCESS_COLUMN, RATIOS, SPEED_COLUMNS, Contender, Options, ratio_table,
                                results_table, run_synthetic_sizes)

SETUP = {"scorer": "tfidf"}  # scikit-learn's defaults: smooth idf, raw tf, L2-normalised rows
CONTENDERS = [Contender("ranklens", OWN), Contender("sklearn", OWN, install="scikit-learn")]


def run(sizes: list[int], options: Options) -> list[Table]:
    groups = run_synthetic_sizes("tfidf", sizes, SETUP, CONTENDERS, options)
    results = results_table("TF-IDF (scikit-learn defaults), Zipf corpora, top-10", "chunks", groups,
                            [*SPEED_COLUMNS, PROCESS_COLUMN])
    results.notes += [
        "scikit-learn: build = TfidfVectorizer().fit_transform(texts); queries = vectorizer.transform(batch) "
        "and one sparse product per 64 queries (ranklens scores query by query).",
        f"max abs score diff over the full score vectors of the first {options.sample_queries} queries.",
    ]
    return [results, ratio_table("TF-IDF ratios, ranklens / scikit-learn", "chunks", groups,
                                 [*RATIOS, ("peak memory (whole process)", "process_peak_bytes")])]
