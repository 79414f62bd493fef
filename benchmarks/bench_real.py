"""BM25 on the real collections (Cranfield, SQuAD-it, XQuAD-es), as their READMEs run it.

k1 0.9, b 0.4, the collection's language for stop words and Snowball stemming,
documents indexed as title + text (as BEIR's BM25 runs do). bm25s runs once
with its own tokenizer, stop list and PyStemmer (the READMEs' local check)
and once on ranklens' tokens, next to ranklens given the same tokens.
"""
from __future__ import annotations

from benchmarks.common import Table
from benchmarks.compare import (OWN, QUALITY_COLUMNS, SAME, SPEED_COLUMNS, Contender, Options, ratio_table,
                               results_table, run_contenders)
from benchmarks.corpora import real_collections

CONTENDERS = [Contender("ranklens", OWN), Contender("bm25s", OWN),
              Contender("ranklens", SAME), Contender("bm25s", SAME)]
QUICK_COLLECTION = "xquad_es"  # the smallest, for the smoke run


def run(options: Options) -> list[Table]:
    collections = real_collections()
    if options.quick:
        collections = [c for c in collections if c.name == QUICK_COLLECTION]
    if not collections:
        return [Table("BM25 on real collections", [],
                      notes=["skipped: no real collections found (../shared/data next to the repository)"])]
    groups = []
    for collection in collections:
        setup = {"scorer": "bm25", "k1": 0.9, "b": 0.4, "stopwords": collection.language,
                 "stem": collection.language, "index_title": True}
        # all answerable questions, unless --queries asks for fewer (the smoke run)
        source = {"real": collection.name, "queries": options.queries if options.quick else None}
        outcomes = run_contenders(collection.name, source, 0, setup, CONTENDERS, options, collection.language)
        groups.append((collection.name, outcomes))
    table = results_table("BM25 on real collections (lucene, k1 0.9, b 0.4, stop words + stemming)", "collection",
                          groups, QUALITY_COLUMNS + SPEED_COLUMNS)
    table.notes += [
        "nDCG@10 (graded qrels, the engine's definition) and recall@100 computed the same way for every row, "
        "from each question's full score vector; batch = all answerable questions.",
        "bm25s own tokenizer uses its own stop lists (NLTK's), ranklens uses the stop-words package: the rows "
        "differ by that; bm25s on the same tokens must match ranklens.",
    ]
    return [table, ratio_table("BM25 on real collections, ratios ranklens / bm25s", "collection", groups)]
