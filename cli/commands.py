"""The headless subcommands: engine calls and their human or JSON output.

Corpus text, ids, file names and queries are untrusted: every human-readable
line goes out through ``_say`` or ``_tell``, which make control characters
visible, and JSON escapes whatever a terminal could act on.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from contextlib import contextmanager
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ranklens.engine.chunking import check_window, contains_answer, sentence_windows, word_windows
from ranklens.cli.options import COMMAND_LINE
from ranklens.engine.errors import RanklensError
from ranklens.engine.settings import SettingError
from ranklens.engine.loaders import load_corpus, valid_unicode
from ranklens.engine.cache import IndexCache, cache_root
from ranklens.engine.retriever import CACHE_MIN_CHUNKS, Retriever, Workbench, setup_for
from ranklens.engine.setup import Setup
from ranklens.cli.main import terminal_text

if TYPE_CHECKING:
    from ranklens.engine.index.vectors import VectorSet

# What json.dumps(ensure_ascii=False) leaves raw inside strings although a terminal may act on it
# or hide text with it: DEL and C1 controls, zero-width and bidi controls, line and paragraph
# separators, and lone surrogates (which UTF-8 cannot encode). A \u escape keeps the JSON valid.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ud800-\udfff]")
_PROGRESS_EVERY_S = 0.25


def _say(text: str = "") -> None:
    """One piece of human output on stdout, its newlines kept and nothing else raw."""
    print(terminal_text(text, keep_newlines=True))


def _tell(kind: str, text: str) -> None:
    """A warning or note on stderr, one line, as ``ranklens: KIND: text``."""
    print(f"ranklens: {kind}: {terminal_text(text)}", file=sys.stderr)


def _print_json(value: Any) -> int:
    # Streamed piece by piece: a 200 MB corpus' chunks are never one string in memory.
    for piece in json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(value):
        sys.stdout.write(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", piece))
    sys.stdout.write("\n")
    return 0


class _TerminalProgress:
    """Long work (loading, chunking, analysing) on one stderr line that redraws itself.

    Only for a person at a terminal: with stderr a pipe or a file it reports
    nothing, so scripts and logs get no carriage returns. Used as a context, it
    wipes its line on the way out, before warnings or results are printed.
    """

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.width = 0  # characters of the line on screen
        self.last = 0.0

    def __call__(self, done: int, total: int, label: str) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < _PROGRESS_EVERY_S:
            return
        self.last = now
        line = f"ranklens: {label} {done:,}" + (f" of {total:,}" if total else "")
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.width = len(line)

    def __enter__(self) -> _TerminalProgress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            self.width = 0


def _workbench(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int = CACHE_MIN_CHUNKS
               ) -> tuple[Workbench, Setup]:
    """The corpus loaded (its warnings told) and the setup asked for, before anything is indexed."""
    with _TerminalProgress() as progress:
        corpus = load_corpus(args.corpus, progress)
    for warning in corpus.warnings:
        _tell("warning", warning)
    return Workbench(corpus, IndexCache(), cache_min_chunks), setup_for(corpus, overrides, source=COMMAND_LINE)


def _retriever(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int = CACHE_MIN_CHUNKS
               ) -> Retriever:
    workbench, setup = _workbench(args, overrides, cache_min_chunks)
    with _TerminalProgress() as progress:
        retriever = workbench.retriever(setup, progress)
    problems = workbench.cache.problems if workbench.cache else []
    for note in [*retriever.notes, *problems]:
        _tell("note", note)
    return retriever


def _note_k(retriever: Retriever, overrides: dict[str, Any]) -> None:
    """A k asked for beyond the corpus works (every chunk is ranked); say so, since fewer results come back.

    The default k is not the user's doing, so it draws no note on a small corpus.
    """
    chunks = len(retriever.chunks)
    asked = "k" in overrides or "k" in retriever.corpus.settings
    if asked and retriever.setup.k > chunks:
        _tell("note", f"k = {retriever.setup.k} is more than the {chunks} chunk(s) of the corpus: all are ranked")


def _header(retriever: Retriever) -> str:
    return f"# {retriever.corpus.name} · {len(retriever.chunks)} chunks · {retriever.description}"


def run_corpora(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.corpora import bundled_corpora

    rows = bundled_corpora()
    if getattr(args, "json", False):
        return _print_json({"corpora": [{"name": name, "description": description} for name, description in rows]})
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        _say(f"{name:<{width}}  {description}")
    return 0


def run_search(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    _note_k(retriever, overrides)
    query = valid_unicode(args.query)
    if retriever.setup.rerank:
        return _search_reranked(args, retriever, query)
    result = retriever.search(query)
    if args.json:
        return _print_search_json(args, retriever, query, result)
    decimals = retriever.setup.decimals
    _say(_header(retriever))
    if not result.hits:
        _say(f"no results: {result.note}")
        return 0
    ids = [terminal_text(h.chunk.id) for h in result.hits]
    id_width = max(map(len, ids))
    for hit, chunk_id in zip(result.hits, ids):
        _say(f"{hit.rank:>3}  {hit.score:.{decimals}f}  {chunk_id:<{id_width}}  {terminal_text(hit.chunk.text)}")
        if args.explain:
            _print_explanation(retriever.explain(query, hit.index))
    if result.unknown:
        _say(f"(not in the corpus: {', '.join(terminal_text(t) for t in result.unknown)})")
    return 0


def _print_search_json(args: argparse.Namespace, retriever: Retriever, query: str, result: Any) -> int:
    """The search JSON of plain or reranked results: their dict, the setup that ran, explanations on demand."""
    data = result.to_dict(retriever.corpus)
    data["setup"] = retriever.setup.to_dict()  # "scorer" is a label for people; this is for scripts
    if args.explain:
        for row, hit in zip(data["results"], result.hits):
            row["explain"] = retriever.explain(query, hit.index).to_dict()
    return _print_json(data)


def _print_explanation(explanation) -> None:
    _say(f"       {explanation.scorer}: {explanation.formula}")
    for note in explanation.notes:
        _say(f"       {note}")
    if explanation.terms:
        _say(f"       {'term':<16} {'qtf':>3} {'tf':>3} {'df':>5} {'idf':>7} {'norm':>7} {'weight':>7} "
             f"{'q.weight':>8} {'contrib':>8}")
        for t in explanation.terms:
            _say(f"       {terminal_text(t.term)[:16]:<16} {t.query_count:>3} {t.tf:>3} {t.df:>5} {t.idf:>7.4f} "
                 f"{t.norm:>7.4f} {t.weight:>7.4f} {t.query_weight:>8.4f} {t.contribution:>8.4f}")
        _say(f"       {'total':<16} {'':>48} {explanation.total:>8.4f}")


def _search_reranked(args: argparse.Namespace, retriever: Retriever, query: str) -> int:
    from ranklens.engine.rerank import rerank_search

    result = rerank_search(retriever, query)
    if args.json:
        return _print_search_json(args, retriever, query, result)
    d = retriever.setup.decimals
    _say(_header(retriever))  # the setup names the reranker and its top
    if not result.hits:
        _say(f"no results: {result.first.note}")
        return 0
    ids = [terminal_text(h.chunk.id) for h in result.hits]
    id_width = max(map(len, ids))
    _say(f"{'first→re':>8}  {'first':>{d + 3}}  {'rerank':>{d + 4}}  chunk")
    for hit, chunk_id in zip(result.hits, ids):
        rerank = "" if hit.rerank_score is None else f"{hit.rerank_score:.{d}f}"
        _say(f"{hit.first_rank:>3} → {hit.rank:<2}  {hit.first_score:.{d}f}  {rerank:>{d + 4}}  "
             f"{chunk_id:<{id_width}}  {terminal_text(hit.chunk.text)}")
        if args.explain:
            _print_explanation(retriever.explain(query, hit.index))
    if result.first.unknown:
        _say(f"(not in the corpus: {', '.join(terminal_text(t) for t in result.first.unknown)})")
    return 0


def _eval_reranked(args: argparse.Namespace, retriever: Retriever) -> int:
    from ranklens.engine.rerank import evaluate_reranked

    with _TerminalProgress() as progress:
        report = evaluate_reranked(retriever, progress=progress)
    if args.json:
        return _print_json({**report.to_dict(), "setup": retriever.setup.to_dict()})
    first, reranked = report.first.evaluation, report.reranked
    n = len(first.per_question)
    _say(_header(retriever))  # the setup names the reranker and its top
    _say(f"{n} questions with an answer; rank in the first stage → after reranking")
    for a, b in zip(first.per_question, reranked.per_question):
        _say(f"rank {'-' if a.rank is None else a.rank:>3} → {'-' if b.rank is None else b.rank:<3}  "
             f"{terminal_text(a.text)}")
    _say()
    _say(f"{'':<12} {'hit@1':>9} {'hit@3':>9} {'MRR':>6} {'nDCG@10':>8} {'recall@10':>10}")
    for label, m in (("first stage", first.metrics), ("reranked", reranked.metrics)):
        _say(f"{label:<12} {_count(m['hit@1'], n):>9} {_count(m['hit@3'], n):>9} {m['mrr']:>6.3f} "
             f"{m['ndcg@10']:>8.3f} {m['recall@10']:>10.3f}")
    t = report.timing
    _say(f"\nindex {report.first.timing['index_s']:.3f} s · first stage "
         f"{report.first.timing['queries_per_s']:,.0f} queries/s · reranking {t['rerank_s']:.2f} s "
         f"({t['pairs_per_s']:,.0f} pairs/s)")
    return 0


def _eval_weight_sweep(args: argparse.Namespace, retriever: Retriever) -> int:
    from ranklens.engine.experiments.weights import fusion_sweep, grid_lines, verdict_lines

    with _TerminalProgress() as progress:
        sweep = fusion_sweep(retriever, folds=args.folds, progress=progress)
    if args.json:
        return _print_json({"corpus": retriever.corpus.name, "scorer": retriever.setup.describe(),
                            "setup": retriever.setup.to_dict(), "weight_sweep": sweep.to_dict()})
    _say(f"{_header(retriever)} · fusion sweep: weight, method and normalisation")
    for line in grid_lines(sweep) + verdict_lines(sweep):
        _say(line)
    return 0


def run_eval(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    _note_k(retriever, overrides)
    if getattr(args, "weight_sweep", False):
        return _eval_weight_sweep(args, retriever)
    if retriever.setup.rerank:
        return _eval_reranked(args, retriever)
    report = retriever.evaluate()
    if args.json:
        return _print_json({**report.to_dict(), "setup": retriever.setup.to_dict()})
    evaluation = report.evaluation
    n = len(evaluation.per_question)
    _say(_header(retriever))
    _say(f"{n} questions with an answer; {len(retriever.corpus.unanswerable)} without (see `ranklens threshold`)")
    for row in evaluation.per_question:
        rank = "-" if row.rank is None else str(row.rank)
        _say(f"rank {rank:>3}  {terminal_text(row.text)}")
    m = report.metrics
    _say()
    _say(f"{'hit@1':>9} {'hit@3':>9} {'MRR':>6} {'nDCG@10':>8} {'recall@10':>10}")
    _say(f"{_count(m['hit@1'], n):>9} {_count(m['hit@3'], n):>9} {m['mrr']:>6.3f} "
         f"{m['ndcg@10']:>8.3f} {m['recall@10']:>10.3f}")
    t = report.timing
    _say(f"\nindex {t['index_s']:.3f} s · {t['queries_per_s']:,.0f} queries/s · "
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
    _say(_header(retriever))
    _say("top-1 score, questions with an answer in the corpus:")
    _say(f"  minimum {summary['min']:.{d}f}, median {summary['median']:.{d}f}, maximum {summary['max']:.{d}f}")
    _say("top-1 score, questions WITHOUT an answer in the corpus:")
    for q in report.unanswerable:
        _say(f"  {q.top_score:.{d}f}  {terminal_text(q.text)}")
    _say(f"best threshold {report.best_threshold:.{d}f}: accuracy {report.best_accuracy:.3f} "
         f"(answer when the top score is at least the threshold)")
    return 0


def run_chunk(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    try:
        check_window(args.size, args.overlap)
    except SettingError as error:
        raise SettingError(error.setting, error.message, COMMAND_LINE) from None
    text = _read_text(args.file)
    windows = (sentence_windows if args.sentences else word_windows)(text, args.size, args.overlap)
    texts = [text[w.start_char:w.end_char] for w in windows]
    chunks = [{"index": i, "start_word": w.start_word, "text": piece}
              for i, (w, piece) in enumerate(zip(windows, texts))]
    find = None if args.find is None else valid_unicode(args.find)
    found = None if find is None else any(contains_answer(piece, find) for piece in texts)
    # The last window always ends on the last word; counting with text.split() would make a
    # string per word (gigabytes for a 200 MB file).
    words = windows[-1].end_word if windows else 0
    if args.json:
        return _print_json({"words": words, "size": args.size, "overlap": args.overlap,
                            "chunks": chunks, "found": found})
    _say(f"words in the text: {words}")
    line = f"size {args.size:>2}, overlap {args.overlap:>2}: {len(chunks)} chunks"
    if found is not None:
        line += f", answer sentence whole in one chunk: {found}"
    _say(line)
    for i, (w, piece) in enumerate(zip(windows, texts)):
        _say(f"[{i}] word {w.start_word}: {terminal_text(piece)}")
    return 0


def _read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    try:
        with open(name, "rb") as handle:
            return handle.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise RanklensError(f"file not found: {name}") from None
    except IsADirectoryError:
        raise RanklensError(f"{name} is a folder, not a text file") from None
    except OSError as error:
        raise RanklensError(f"cannot read {name}: {error.strerror or error}") from None
    except ValueError as error:  # a NUL character in the name
        raise RanklensError(f"cannot read {name}: {error}") from None


# The command line's names for the index settings, said where a message names one.
_INDEX_FLAGS = {"cells": "--cells", "n_probe": "--probes"}
_HNSW_FLAGS = {"M": "--hnsw-m", "ef_construction": "--ef-construction", "ef_search": "--ef-search"}


@contextmanager
def _flags(names: dict[str, str]) -> Iterator[None]:
    """Engine messages about a setting name the option it came from."""
    from ranklens.engine.index.base import IndexSettingError
    from ranklens.engine.settings import SettingError

    try:
        yield
    except IndexSettingError as error:
        raise RanklensError(error.naming(names.get(error.setting, error.setting))) from None
    except SettingError as error:
        if error.setting not in names:
            raise
        raise RanklensError(f"{names[error.setting]}: {error.message}") from None


def _vectors(args: argparse.Namespace, overrides: dict[str, Any]) -> VectorSet:
    from ranklens.engine.experiments.indexes import corpus_vectors, synthetic_vectors

    if args.synthetic:
        return synthetic_vectors()
    workbench, setup = _workbench(args, overrides)
    with _TerminalProgress() as progress:
        # a scorer that ranks every chunk by a cosine has vectors (LSA, dense): its own are swept, else LSA's
        return corpus_vectors(workbench, setup, progress)


def run_ivf(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.indexes import index_sweep
    from ranklens.engine.index.ivf import IVFIndex, cell_warnings

    with _flags(_INDEX_FLAGS):
        # Known before any vector is computed: fail now, not after a long LSA fit.
        IVFIndex.check_settings(args.cells, args.probes)
        vectors = _vectors(args, overrides)
        with _TerminalProgress() as progress:
            sweep = index_sweep(vectors, "ivf", args.cells, args.probes, progress=progress)
    for warning in cell_warnings(sweep.vectors, sweep.param_value or 1, name="--cells"):
        _tell("warning", warning)
    if args.json:
        return _print_json(sweep.to_dict())
    _say(f"# {sweep.source}: {sweep.vectors:,} vectors x {sweep.dims} dims, "
         f"{sweep.queries} queries, {sweep.param_value} cells")
    _say(f"{'cells visited':>14} {'vectors compared (mean)':>28} {'share':>7} {'recall@10':>10} {'ms/query':>9}")
    for row in sweep.rows:
        _say(f"{row.value:>14} {row.compared_mean:>28.0f} {row.share:>7.1%} {row.recall:>10.3f} "
             f"{row.ms_per_query:>9.3f}")
    return 0


def run_ann(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.indexes import KindSettings, ann_rows, check_sweeps, index_sweeps

    given = [flag for flag in _HNSW_FLAGS.values() if getattr(args, flag[2:].replace("-", "_")) is not None]
    if given and "hnsw" not in args.index:
        raise RanklensError(f"{given[0]}: only the hnsw index uses it (add --index ...,hnsw)")
    options = {} if args.ef_construction is None else {"ef_construction": args.ef_construction}
    settings = {"hnsw": KindSettings(args.hnsw_m, args.ef_search, options)}
    with _flags({"index": "--index", **_HNSW_FLAGS}):
        check_sweeps(args.index, settings)  # unknown names fail before any vector is made
    vectors = _vectors(args, overrides)
    with _TerminalProgress() as progress:
        sweeps = index_sweeps(vectors, args.index, settings, progress)
    for sweep in sweeps:
        for warning in sweep.warnings:
            _tell("warning", f"{sweep.kind}: {warning}")
    if args.json:
        return _print_json({"source": vectors.name, "vectors": len(vectors.vectors), "queries": len(vectors.queries),
                            "rows": ann_rows(sweeps), "indexes": [s.to_dict() for s in sweeps]})
    n, dims = vectors.vectors.shape
    _say(f"# {vectors.name}: {n:,} vectors x {dims} dims, {len(vectors.queries)} queries")
    for sweep in sweeps:
        if sweep.built:
            _say(f"# {sweep.kind}: " + ", ".join(f"{name} {value}" for name, value in sweep.built.items()))
    _say(f"{'index':<8} {'setting':>16} {'compared (mean)':>16} {'share':>7} {'recall@10':>10} {'ms/query':>9} "
         f"{'build s':>8} {'MB':>7}")
    for sweep in sweeps:
        built_as = f"{sweep.param} {sweep.param_value}" if sweep.param else ""
        for row in sweep.rows:
            setting = f"{row.knob} {row.value}" if row.knob else built_as
            _say(f"{sweep.kind:<8} {setting:>16} {row.compared_mean:>16.0f} {row.share:>7.1%} {row.recall:>10.3f} "
                 f"{row.ms_per_query:>9.3f} {sweep.stats.build_s:>8.2f} {sweep.stats.bytes / 1e6:>7.1f}")
    return 0


def run_compare_scorers(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.scorers import compare_scorers

    workbench, setup = _workbench(args, overrides)
    with _TerminalProgress() as progress:
        table = compare_scorers(workbench, setup, progress=progress)
    if not table.scorers:
        raise RanklensError(f"{table.corpus}: no questions with an answer to evaluate")
    for note in dict.fromkeys(note for r in table.scorers for note in r.notes):
        _tell("note", note)
    if args.json:
        return _print_json(table.to_dict())
    n = table.question_count
    _say(f"# {table.corpus} · {n} questions with an answer · ▸ the setup's scorer: {setup.describe()}")
    width = max(len(r.label) for r in table.scorers) + 2
    _say(f"{'scorer':<{width}} {'hit@1':>9} {'hit@3':>9} {'MRR':>6} {'nDCG@10':>8} {'recall@10':>10}")
    for r in table.scorers:
        m = r.evaluation.metrics
        mark = "▸ " if r.scorer == table.current else "  "
        _say(f"{mark + r.label:<{width}} {_count(m['hit@1'], n):>9} {_count(m['hit@3'], n):>9} {m['mrr']:>6.3f} "
             f"{m['ndcg@10']:>8.3f} {m['recall@10']:>10.3f}")
    _say()
    _say(" ".join(f"{r.scorer[:6]:>6}" for r in table.scorers) + "  question (rank of its first relevant chunk)")
    for q in table.questions:
        ranks = " ".join(f"{'-' if rank is None else rank:>6}" for rank in q.ranks)
        _say(f"{ranks}  {terminal_text(q.text)}")
    report = table.threshold
    current = next((r.label for r in table.scorers if r.scorer == table.current), table.current)
    if report is None:
        _say(f"\nthreshold ({current}): {terminal_text(table.threshold_note)}")
    else:
        _say(f"\nthreshold ({current}): best {report.best_threshold:.{setup.decimals}f}, "
             f"accuracy {report.best_accuracy:.3f} (see `ranklens threshold`)")
    return 0


# The command line's names for the chunk sweep's settings.
_SWEEP_FLAGS = {"size": "--sizes", "overlap": "--overlaps"}


def run_sweep_chunks(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.chunking import SWEEP_SIZES, chunk_sweep, sweep_windows

    workbench, setup = _workbench(args, overrides)
    with _flags(_SWEEP_FLAGS):
        windows = sweep_windows(args.sizes or SWEEP_SIZES, args.overlaps, setup.chunker)
    with _TerminalProgress() as progress:
        sweep = chunk_sweep(workbench, setup, windows, progress)
    if args.json:
        return _print_json(sweep.to_dict())
    n = sweep.questions
    _say(f"# {sweep.corpus} · {n} questions with an answer · {sweep.scorer} · chunks by {windows[0].chunker}")
    _say(f"  {'size':>5} {'overlap':>7} {'chunks':>7} {'whole':>7} {'hit@1':>9} {'hit@3':>9} {'MRR':>6} "
         f"{'nDCG@10':>8} {'recall@10':>10}")
    for i, cell in enumerate(sweep.cells):
        m = cell.evaluation.metrics
        mark = "★ " if i == sweep.winner else "  "
        _say(f"{mark}{cell.window.size:>5} {cell.window.overlap:>7} {cell.chunks:>7} {_count(cell.whole / n, n):>7} "
             f"{_count(m['hit@1'], n):>9} {_count(m['hit@3'], n):>9} {m['mrr']:>6.3f} {m['ndcg@10']:>8.3f} "
             f"{m['recall@10']:>10.3f}")
    _say("★ best by MRR, then hit@1, then recall@10 · whole: questions whose answer some chunk holds whole")
    return 0


def run_prompt(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides)
    _note_k(retriever, overrides)
    if retriever.setup.rerank:  # the context is what the reranker put on top
        from ranklens.engine.rerank import rerank_prompt

        prompt = rerank_prompt(retriever, valid_unicode(args.query))
        if getattr(args, "json", False):
            return _print_json({"query": valid_unicode(args.query), "setup": retriever.setup.to_dict(),
                                "prompt": prompt})
        _say(prompt)
        return 0
    query = valid_unicode(args.query)
    if getattr(args, "json", False):
        hits = retriever.search(query).hits
        return _print_json({"query": query, "setup": retriever.setup.to_dict(), "prompt": retriever.prompt(query),
                            "chunks": [{"rank": h.rank, "id": h.chunk.id, "score": h.score} for h in hits]})
    _say(retriever.prompt(query))
    return 0


def run_index(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever = _retriever(args, overrides, cache_min_chunks=0)
    _say(f"{retriever.corpus.name}: {len(retriever.chunks):,} chunks, {retriever.index.vocabulary.size:,} terms, "
         f"ready in {retriever.index_s:.2f} s; the term index is cached under {cache_root()}")
    return 0
