"""The fusion sweep (`ranklens eval CORPUS --scorer fusion --weight-sweep`) on the real collections.

    python -m benchmarks.bench_fusion_sweep                      # bm25+lsa and bm25+tfidf on each collection
    python -m benchmarks.bench_fusion_sweep --reference          # also the per-candidate definition (slow)
    python -m benchmarks.bench_fusion_sweep --fuse bm25,tfidf,lsa --out sweep.md

Per collection and fusion: the parts scoring every answerable question (the floor: the sweep
scores each question once per part and cannot cost less), the whole sweep (24 candidate
fusions, each part alone, 5-fold cross-validation and the paired tests), and what it adds
over the floor. ``--reference`` also times the straightforward definition the sweep is
tested against (tests/test_fusion_sweep_fast.py: every candidate fused over all chunks and
scored by ``score_question``, the sweep before its pool) and checks the numbers are equal.
Memory is the peak RSS each step adds (benchmarks.common.measure); the index is built untimed.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.common import fmt_bytes, fmt_ratio, fmt_seconds, measure, report
from benchmarks.corpora import real_collections
from ranklens.engine.experiments.weights import candidates, fusion_sweep
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Retriever, Workbench, setup_for
from ranklens.engine.scoring.fusion import FusionScorer

FUSES = ("bm25,lsa", "bm25,tfidf")


def score_parts(retriever: Retriever) -> None:
    """What the sweep spends scoring: each part on each answerable question."""
    assert isinstance(retriever.scorer, FusionScorer)
    for question in retriever.corpus.answerable:
        query = retriever.query(question.text)
        for part in retriever.scorer.parts:
            np.asarray(part.scores(query), dtype=np.float64)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuse", action="append", help=f"parts to fuse, repeatable (default {' and '.join(FUSES)})")
    parser.add_argument("--reference", action="store_true", help="also time the per-candidate definition")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    collections = real_collections()
    if not collections:
        print("bench_fusion_sweep: no real collections found (../shared/data next to the repository)",
              file=sys.stderr)
        return 2
    if args.reference:
        from tests.test_fusion_sweep_fast import oracle_tables
    lines = [f"Fusion sweep, {platform.machine()} ({os.cpu_count()} cores), "
             f"{time.strftime('%Y-%m-%d %H:%M')}; default setup (no stop words, no stemming), rrf_k 60.", "",
             "| collection | chunks | questions | fusion | parts scoring | sweep | sweep beyond scoring "
             "| sweep peak | definition | definition peak | sweep / definition | same numbers |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for collection in collections:
        corpus = load_corpus(collection.path)
        workbench = Workbench(corpus)
        for fuse in args.fuse or FUSES:
            retriever = workbench.retriever(setup_for(corpus, {"scorer": "fusion", "fuse": fuse}))
            score_parts(retriever)  # warm: lazy imports and caches are not the sweep
            floor = measure(lambda: score_parts(retriever))  # noqa: B023
            sweep = measure(lambda: fusion_sweep(retriever))  # noqa: B023
            cells = ["—", "—", "—", "—"]
            if args.reference:
                definition = measure(lambda: oracle_tables(retriever, candidates()))  # noqa: B023
                table, alone = definition.value
                same = (sweep.value.ndcg == tuple(float(m) for m in table.mean(axis=0))
                        and sweep.value.part_ndcg == tuple(float(m) for m in alone.mean(axis=0)))
                cells = [fmt_seconds(definition.seconds), fmt_bytes(definition.peak_bytes),
                         fmt_ratio(sweep.seconds, definition.seconds), "yes" if same else "NO"]
            lines.append(f"| {collection.name} | {len(retriever.chunks):,} | {len(corpus.answerable):,} | {fuse} "
                         f"| {fmt_seconds(floor.seconds)} | {fmt_seconds(sweep.seconds)} "
                         f"| {fmt_seconds(sweep.seconds - floor.seconds)} | {fmt_bytes(sweep.peak_bytes)} | "
                         + " | ".join(cells) + " |")
            print(lines[-1], file=sys.stderr)
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
