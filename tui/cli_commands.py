"""The headless subcommands: engine calls and their human or JSON output."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.chunking import check_window, contains_answer, sentence_windows, word_windows
from engine.errors import RanklensError
from engine.loaders import load_corpus
from engine.cache import IndexCache, cache_root
from engine.retriever import CACHE_MIN_CHUNKS, Retriever, Workbench, setup_for


def _print_json(value: Any) -> int:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def _clean(text: str) -> str:
    """Corpus text for a terminal: control characters shown, never sent raw."""
    from tui.safe import clean

    return clean(text, keep_newlines=False)


def _retriever(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int = CACHE_MIN_CHUNKS
               ) -> Retriever:
    corpus = load_corpus(args.corpus)
    for warning in corpus.warnings:
        print(f"ranklens: warning: {_clean(warning)}", file=sys.stderr)
    cache = IndexCache()
    retriever = Workbench(corpus, cache, cache_min_chunks).retriever(setup_for(corpus, overrides))
    for note in [*retriever.notes, *cache.problems]:
        print(f"ranklens: note: {_clean(note)}", file=sys.stderr)
    return retriever


def _header(retriever: Retriever) -> str:
    return f"# {retriever.corpus.name} · {len(retriever.chunks)} chunks · {retriever.setup.describe()}"


def run_corpora(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from corpora import bundled_corpora

    rows = bundled_corpora()
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        print(f"{name:<{width}}  {description}")
    return 0


def run_search(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    result = retriever.search(args.query)
    if args.json:
        data = result.to_dict(retriever.corpus)
        if args.explain:
            for row, hit in zip(data["results"], result.hits):
                row["explain"] = retriever.explain(args.query, hit.index).to_dict()
        return _print_json(data)
    decimals = retriever.setup.decimals
    print(_header(retriever))
    if result.note:
        print(f"no results: {result.note}")
        return 0
    id_width = max(len(_clean(h.chunk.id)) for h in result.hits)
    for hit in result.hits:
        print(f"{hit.rank:>3}  {hit.score:.{decimals}f}  {_clean(hit.chunk.id):<{id_width}}  {_clean(hit.chunk.text)}")
        if args.explain:
            _print_explanation(retriever.explain(args.query, hit.index))
    if result.unknown:
        print(f"(not in the corpus: {', '.join(_clean(t) for t in result.unknown)})")
    return 0


def _print_explanation(explanation) -> None:
    print(f"       {explanation.scorer}: {explanation.formula}")
    for note in explanation.notes:
        print(f"       {note}")
    if explanation.terms:
        print(f"       {'term':<16} {'qtf':>3} {'tf':>3} {'df':>5} {'idf':>7} {'norm':>7} {'weight':>7} "
              f"{'q.weight':>8} {'contrib':>8}")
        for t in explanation.terms:
            print(f"       {_clean(t.term)[:16]:<16} {t.query_count:>3} {t.tf:>3} {t.df:>5} {t.idf:>7.4f} "
                  f"{t.norm:>7.4f} {t.weight:>7.4f} {t.query_weight:>8.4f} {t.contribution:>8.4f}")
        print(f"       {'total':<16} {'':>48} {explanation.total:>8.4f}")


def run_eval(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    report = retriever.evaluate()
    if args.json:
        return _print_json(report.to_dict())
    evaluation = report.evaluation
    n = len(evaluation.per_question)
    print(_header(retriever))
    print(f"{n} questions with an answer; {len(retriever.corpus.unanswerable)} without (see `ranklens threshold`)")
    for row in evaluation.per_question:
        rank = "-" if row.rank is None else str(row.rank)
        print(f"rank {rank:>3}  {_clean(row.text)}")
    m = report.metrics
    print()
    print(f"{'hit@1':>9} {'hit@3':>9} {'MRR':>6} {'nDCG@10':>8} {'recall@10':>10}")
    print(f"{_count(m['hit@1'], n):>9} {_count(m['hit@3'], n):>9} {m['mrr']:>6.3f} "
          f"{m['ndcg@10']:>8.3f} {m['recall@10']:>10.3f}")
    t = report.timing
    print(f"\nindex {t['index_s']:.3f} s · {t['queries_per_s']:,.0f} queries/s · "
          f"p50 {t['p50_ms']:.2f} ms · p99 {t['p99_ms']:.2f} ms")
    return 0


def _count(fraction: float, n: int) -> str:
    return f"{round(fraction * n)}/{n}"


def run_threshold(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    report = retriever.threshold()
    if args.json:
        return _print_json(report.to_dict())
    d = retriever.setup.decimals
    summary = report.answerable_summary
    print(_header(retriever))
    print("top-1 score, questions with an answer in the corpus:")
    print(f"  minimum {summary['min']:.{d}f}, median {summary['median']:.{d}f}, maximum {summary['max']:.{d}f}")
    print("top-1 score, questions WITHOUT an answer in the corpus:")
    for q in report.unanswerable:
        print(f"  {q.top_score:.{d}f}  {_clean(q.text)}")
    print(f"best threshold {report.best_threshold:.{d}f}: accuracy {report.best_accuracy:.3f} "
          f"(answer when the top score is at least the threshold)")
    return 0


def run_chunk(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    check_window(args.size, args.overlap)
    text = _read_text(args.file)
    windows = (sentence_windows if args.sentences else word_windows)(text, args.size, args.overlap)
    chunks = [{"index": i, "start_word": w.start_word, "text": text[w.start_char:w.end_char]}
              for i, w in enumerate(windows)]
    found = None if args.find is None else any(contains_answer(c["text"], args.find) for c in chunks)
    words = len(text.split())
    if args.json:
        return _print_json({"words": words, "size": args.size, "overlap": args.overlap,
                            "chunks": chunks, "found": found})
    print(f"words in the text: {words}")
    line = f"size {args.size:>2}, overlap {args.overlap:>2}: {len(chunks)} chunks"
    if found is not None:
        line += f", answer sentence whole in one chunk: {found}"
    print(line)
    for c in chunks:
        print(f"[{c['index']}] word {c['start_word']}: {_clean(c['text'])}")
    return 0


def _read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    try:
        with open(name, "rb") as handle:
            return handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise RanklensError(f"file not found: {name}")
    except IsADirectoryError:
        raise RanklensError(f"{name} is a folder, not a text file")
    except OSError as error:
        raise RanklensError(f"cannot read {name}: {error.strerror}")


def run_ivf(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from engine.ivf import cell_warnings, sweep, sweep_to_dict
    from engine.vectors import corpus_set, synthetic_set

    if args.synthetic:
        source = synthetic_set()
    else:
        source = corpus_set(_retriever(args, {**overrides, "scorer": "lsa"}))
    cells = args.cells or source.default_cells
    probes = args.probes or source.default_probes(cells)
    rows = sweep(source.vectors, source.queries, cells, probes)
    for warning in cell_warnings(len(source.vectors), cells):
        print(f"ranklens: warning: {warning}", file=sys.stderr)
    if args.json:
        return _print_json({"source": source.name, "cells": cells, "vectors": len(source.vectors),
                            "queries": len(source.queries), **sweep_to_dict(rows)})
    print(f"# {source.name}: {len(source.vectors):,} vectors x {source.vectors.shape[1]} dims, "
          f"{len(source.queries)} queries, {cells} cells")
    print(f"{'cells visited':>14} {'vectors compared (mean)':>28} {'share':>7} {'recall@10':>10} {'ms/query':>9}")
    for row in rows:
        print(f"{row.n_probe:>14} {row.compared_mean:>28.0f} {row.share:>7.1%} {row.recall:>10.3f} "
              f"{row.ms_per_query:>9.3f}")
    return 0


def run_prompt(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    print(retriever.prompt(args.query))
    return 0


def run_index(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides, cache_min_chunks=0)
    print(f"{retriever.corpus.name}: {len(retriever.chunks):,} chunks, {retriever.index.vocabulary.size:,} terms, "
          f"ready in {retriever.index_s:.2f} s; the term index is cached under {cache_root()}")
    return 0
