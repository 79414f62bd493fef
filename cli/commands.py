"""The retrieval subcommands: corpora, search, eval, threshold, chunk, prompt, index.

Each is an ``add_<command>`` (its parser, plain argparse) and a ``run_<command>`` (engine
calls, human or JSON output), listed in the subcommand table (``cli/subcommands.py``).
Engine modules are imported inside the runs: the table is read before the TUI's first paint.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ranklens.cli.backend import failed_questions
from ranklens.cli.metric_columns import metric_cells, metric_headers, say_metric_notes
from ranklens.cli.options import COMMAND_LINE, add_setup_options, add_workspace_options, int_at_least
from ranklens.cli.output import TerminalProgress, print_explanation, print_json, say, tell, terminal_text
from ranklens.cli.setup_args import indexed, judged_retriever, workbench
from ranklens.cli.setup_args import retriever as setup_retriever
from ranklens.engine.chunking.chunkers import CHUNKER_TABLE, CHUNKERS
from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.neural.models import Reranker
    from ranklens.engine.retriever import EvalReport, Retriever, SearchResult

STANDARD_INPUT = "-"  # a file or query argument naming standard input


def add_corpora(sub: Any) -> None:
    corpora = sub.add_parser("corpora", help="list bundled corpora")
    corpora.add_argument("--json", action="store_true")


def add_search(sub: Any) -> None:
    search = sub.add_parser("search", help="rank chunks for a query")
    search.add_argument("corpus")
    search.add_argument("query", help="the query, or - to read it from standard input")
    search.add_argument("--explain", action="store_true", help="show how each score is made, term by term")
    search.add_argument("--json", action="store_true")
    add_setup_options(search)


def add_eval(sub: Any) -> None:
    evaluate = sub.add_parser("eval", help="hit@k, MRR, nDCG, recall on the corpus' questions")
    evaluate.add_argument("corpus")
    evaluate.add_argument("--json", action="store_true")
    evaluate.add_argument("--weight-sweep", action="store_true",
                          help="fusion: nDCG@10 at each weight of the first fused scorer, the best one, and its "
                               "k-fold cross-validated value")
    evaluate.add_argument("--folds", type=int_at_least("--folds", 2), default=5,
                          help="folds of the weight sweep's cross-validation (default 5)")
    add_workspace_options(evaluate)
    add_setup_options(evaluate)


def add_threshold(sub: Any) -> None:
    threshold = sub.add_parser("threshold", help="can a score threshold tell answerable questions apart?")
    threshold.add_argument("corpus")
    threshold.add_argument("--json", action="store_true")
    add_workspace_options(threshold)
    add_setup_options(threshold)


def add_chunk(sub: Any) -> None:
    chunk = sub.add_parser("chunk", help="cut a text file into chunks")
    chunk.add_argument("file", help="a text file, or - for standard input")
    chunk.add_argument("--size", type=int_at_least("--size", 1), required=True,
                       help="chunk size in the chunker's unit (words; characters for recursive and markdown; "
                            "model tokens for tokens)")
    chunk.add_argument("--overlap", type=int_at_least("--overlap", 0), default=0)
    chunk.add_argument("--chunker", choices=CHUNKERS, default="words", help="how the text is cut (default words)")
    chunk.add_argument("--sentences", dest="chunker", action="store_const", const="sentences",
                       help="pack whole sentences (--overlap in sentences); short for --chunker sentences")
    chunk.add_argument("--find", metavar="TEXT", help="is TEXT whole inside some chunk?")
    chunk.add_argument("--json", action="store_true")


def add_prompt(sub: Any) -> None:
    prompt = sub.add_parser("prompt", help="the prompt a model would receive")
    prompt.add_argument("corpus")
    prompt.add_argument("query", help="the query, or - to read it from standard input")
    prompt.add_argument("--json", action="store_true")
    add_setup_options(prompt)


def add_index(sub: Any) -> None:
    index = sub.add_parser("index", help="analyse a corpus now and keep its term index for next time")
    index.add_argument("corpus")
    add_setup_options(index)


def _note_k(retriever: Retriever, overrides: dict[str, Any]) -> None:
    """A k asked for beyond the corpus works (every chunk is ranked); say so, since fewer results come back.

    The default k is not the user's doing, so it draws no note on a small corpus.
    """
    chunks = len(retriever.chunks)
    asked = "k" in overrides or "k" in retriever.corpus.settings
    if asked and retriever.setup.k > chunks:
        tell("note", f"k = {retriever.setup.k} is more than the {chunks} chunk(s) of the corpus: all are ranked")


def _header(retriever: Retriever) -> str:
    return f"# {retriever.corpus.name} · {len(retriever.chunks)} chunks · {retriever.description}"


def run_corpora(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.corpora import bundled_corpora

    rows = bundled_corpora()
    if getattr(args, "json", False):
        return print_json({"corpora": [{"name": name, "description": description} for name, description in rows]})
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        say(f"{name:<{width}}  {description}")
    return 0


def run_search(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    query = query_text(args.query)
    retriever = setup_retriever(args, overrides)
    _note_k(retriever, overrides)
    if retriever.setup.rerank:
        from ranklens.engine.neural.rerank import reranker_for

        # A reranker that cannot load is bad input, as for eval: one line and exit status 2, no results printed
        # (a script reading them would take the first stage for the reranked ranking it asked for).
        return _search_reranked(args, retriever, query, reranker_for(retriever))
    result = retriever.search(query)
    if args.json:
        return _print_search_json(args, retriever, query, result)
    print_search(retriever, result, args.explain)
    return 0


def print_search(retriever: Retriever, result: SearchResult, explain: bool = False) -> None:
    """A search's text: the corpus and setup, then a line per hit (with ``explain``, its score term by term)."""
    from ranklens.engine.backends.base import Unplaced

    decimals = retriever.setup.decimals
    say(_header(retriever))
    ranked = result.ranked()
    if not ranked:
        say(f"no results: {result.note}")
        return
    ids = [terminal_text(h.run_id if isinstance(h, Unplaced) else h.chunk.id) for h in ranked]
    id_width = max(map(len, ids))
    for hit, shown_id in zip(ranked, ids):
        # a user's retriever's hit the corpus cannot place keeps its rank, said so, with its text when it has one
        text = f"(not in the corpus) {hit.text or ''}".rstrip() if isinstance(hit, Unplaced) else hit.chunk.text
        say(f"{hit.rank:>3}  {hit.score:.{decimals}f}  {shown_id:<{id_width}}  {terminal_text(text)}")
        if explain and not isinstance(hit, Unplaced):
            print_explanation(retriever.explain(result.query, hit.index))
    if result.unknown:
        say(f"(not in the corpus: {', '.join(terminal_text(t) for t in result.unknown)})")


def _print_search_json(args: argparse.Namespace, retriever: Retriever, query: str, result: Any) -> int:
    """The search JSON of plain or reranked results: their dict, the setup that ran, explanations on demand."""
    data = result.to_dict(retriever.corpus)
    data["setup"] = retriever.setup.to_dict()  # "scorer" is a label for people; this is for scripts
    if args.explain:
        chunk_rows = [row for row in data["results"] if not row.get("not_in_corpus")]
        for row, hit in zip(chunk_rows, result.hits):
            row["explain"] = retriever.explain(query, hit.index).to_dict()
    return print_json(data)


def _search_reranked(args: argparse.Namespace, retriever: Retriever, query: str, reranker: Reranker) -> int:
    from ranklens.engine.neural.rerank import rerank_search

    result = rerank_search(retriever, query, reranker=reranker)
    if args.json:
        return _print_search_json(args, retriever, query, result)
    d = retriever.setup.decimals
    say(_header(retriever))  # the setup names the reranker and its top
    if not result.hits:
        say(f"no results: {result.first.note}")
        return 0
    ids = [terminal_text(h.chunk.id) for h in result.hits]
    id_width = max(map(len, ids))
    say(f"{'first→re':>8}  {'first':>{d + 3}}  {'rerank':>{d + 4}}  chunk")
    for hit, chunk_id in zip(result.hits, ids):
        rerank = "" if hit.rerank_score is None else f"{hit.rerank_score:.{d}f}"
        say(f"{hit.first_rank:>3} → {hit.rank:<2}  {hit.first_score:.{d}f}  {rerank:>{d + 4}}  "
            f"{chunk_id:<{id_width}}  {terminal_text(hit.chunk.text)}")
        if args.explain:
            print_explanation(retriever.explain(query, hit.index))
    if result.first.unknown:
        say(f"(not in the corpus: {', '.join(terminal_text(t) for t in result.first.unknown)})")
    return 0


def _eval_reranked(args: argparse.Namespace, retriever: Retriever, judged: Judged) -> int:
    from ranklens.engine.neural.rerank import evaluate_reranked

    with TerminalProgress() as progress:
        report = evaluate_reranked(retriever, progress=progress)
    if args.json:
        return print_json({**report.to_dict(), "setup": retriever.setup.to_dict(), "judgments": judged.to_dict()})
    first, reranked = report.first.evaluation, report.reranked
    say(_header(retriever))  # the setup names the reranker and its top
    say(f"{judged.describe()}; rank in the first stage → after reranking")
    for a, b in zip(first.per_question, reranked.per_question):
        say(f"rank {'-' if a.rank is None else a.rank:>3} → {'-' if b.rank is None else b.rank:<3}  "
            f"{terminal_text(a.text)}")
    n = len(first.per_question)
    say()
    say(f"{'':<12} {metric_headers()}")
    for label, m in (("first stage", first.metrics), ("reranked", reranked.metrics)):
        say(f"{label:<12} {metric_cells(m, n)}")
    say_metric_notes()
    t = report.timing
    say(f"\nindex {report.first.timing['index_s']:.3f} s · first stage "
        f"{report.first.timing['queries_per_s']:,.0f} queries/s · reranking {t['rerank_s']:.2f} s "
        f"({t['pairs_per_s']:,.0f} pairs/s)")
    return 0


def _eval_weight_sweep(args: argparse.Namespace, retriever: Retriever, judged: Judged) -> int:
    from ranklens.engine.experiments.weights import fusion_sweep, grid_lines, verdict_lines

    with TerminalProgress() as progress:
        sweep = fusion_sweep(retriever, folds=args.folds, progress=progress)
    if args.json:
        return print_json({"corpus": retriever.corpus.name, "scorer": retriever.setup.describe(),
                           "setup": retriever.setup.to_dict(), "weight_sweep": sweep.to_dict(),
                           "judgments": judged.to_dict()})
    say(f"{_header(retriever)} · {judged.describe()} · fusion sweep: weight, method and normalisation")
    for line in grid_lines(sweep) + verdict_lines(sweep):
        say(line)
    return 0


def run_eval(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever, judged = judged_retriever(args, overrides)
    _note_k(retriever, overrides)
    if getattr(args, "weight_sweep", False):
        return _eval_weight_sweep(args, retriever, judged)
    if retriever.setup.rerank:
        return _eval_reranked(args, retriever, judged)
    if retriever.setup.ann is not None:
        return _eval_approximate(args, retriever, judged)
    report = retriever.evaluate()
    if args.json:
        return print_json({**report.to_dict(), "setup": retriever.setup.to_dict(), "judgments": judged.to_dict(),
                           **failed_questions(retriever)})
    print_eval(retriever, report, judged)
    return 0


def print_eval(retriever: Retriever, report: EvalReport, judged: Judged) -> None:
    """An evaluation's text: each question's rank, the metrics' table, the timings."""
    evaluation = report.evaluation
    n = len(evaluation.per_question)
    say(_header(retriever))
    say(f"{judged.describe()}; {len(retriever.corpus.unanswerable)} without an answer (see `ranklens threshold`)")
    for row in evaluation.per_question:
        rank = "-" if row.rank is None else str(row.rank)
        say(f"rank {rank:>3}  {terminal_text(row.text)}")
    say()
    say(metric_headers())
    say(metric_cells(report.metrics, n))
    say_metric_notes()
    t = report.timing
    say(f"\nindex {t['index_s']:.3f} s · {t['queries_per_s']:,.0f} queries/s · "
        f"p50 {t['p50_ms']:.2f} ms · p99 {t['p99_ms']:.2f} ms")


def _eval_approximate(args: argparse.Namespace, retriever: Retriever, judged: Judged) -> int:
    """Eval through the approximate index, beside exact search over the same vectors."""
    from ranklens.engine.ann.ranking import exact_twin, kept_share

    exact = exact_twin(retriever)
    with TerminalProgress() as progress:
        report = retriever.evaluate(progress)
        exact_report = exact.evaluate(progress)
        kept = kept_share(retriever, exact, progress)
    if args.json:
        return print_json({**report.to_dict(), "setup": retriever.setup.to_dict(),
                           "exact": {"metrics": exact_report.metrics, "timing": exact_report.timing},
                           **kept.to_dict(), "judgments": judged.to_dict()})
    n = len(report.evaluation.per_question)
    say(_header(retriever))
    say(f"{judged.describe()}; rank through the index → exactly")
    for a, b in zip(report.evaluation.per_question, exact_report.evaluation.per_question):
        say(f"rank {'-' if a.rank is None else a.rank:>3} → {'-' if b.rank is None else b.rank:<3}  "
            f"{terminal_text(a.text)}")
    say()
    say(f"{'':<12} {metric_headers()}")
    for label, r in ((retriever.setup.ann or "", report), ("exact", exact_report)):
        say(f"{label:<12} {metric_cells(r.metrics, n)}")
    say_metric_notes()
    say(f"\n{kept.kept:.1%} of exact's top 10 kept (mean over {kept.questions} questions) · "
        f"{report.timing['queries_per_s']:,.0f} queries/s through {retriever.setup.ann}, "
        f"{exact_report.timing['queries_per_s']:,.0f} exactly · p50 {report.timing['p50_ms']:.2f} ms against "
        f"{exact_report.timing['p50_ms']:.2f} ms")
    return 0


def run_threshold(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    retriever, judged = judged_retriever(args, overrides)
    report = retriever.threshold()
    if args.json:
        return print_json({**report.to_dict(), "judgments": judged.to_dict()})
    d = retriever.setup.decimals
    summary = report.answerable_summary
    say(_header(retriever))
    say(f"{judged.describe()}; {len(report.unanswerable)} without an answer")
    say("top-1 score, questions with an answer in the corpus:")
    say(f"  minimum {summary['min']:.{d}f}, median {summary['median']:.{d}f}, maximum {summary['max']:.{d}f}")
    say("top-1 score, questions WITHOUT an answer in the corpus:")
    for q in report.unanswerable:
        say(f"  {q.top_score:.{d}f}  {terminal_text(q.text)}")
    say(f"best threshold {report.best_threshold:.{d}f}: accuracy {report.best_accuracy:.3f} "
        f"(answer when the top score is at least the threshold)")
    return 0


def run_chunk(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.chunking.cutting import check_window, contains_answer, cut
    from ranklens.engine.corpus.loaders import valid_unicode
    from ranklens.engine.settings import SettingError

    try:
        check_window(args.size, args.overlap)
    except SettingError as error:
        raise SettingError(error.setting, error.message, COMMAND_LINE) from None
    text = _read_text(args.file)
    windows = cut(text, args.size, args.overlap, args.chunker)
    texts = [text[w.start_char:w.end_char] for w in windows]
    chunks = [{"index": i, "start_word": w.start_word, "start": w.start_char, "end": w.end_char, "text": piece}
              for i, (w, piece) in enumerate(zip(windows, texts))]
    find = None if args.find is None else valid_unicode(args.find)
    found = None if find is None else any(contains_answer(piece, find) for piece in texts)
    # The last window always ends on the last word; counting with text.split() would make a
    # string per word (gigabytes for a 200 MB file).
    words = windows[-1].end_word if windows else 0
    if args.json:
        return print_json({"words": words, "chunker": args.chunker, "size": args.size, "overlap": args.overlap,
                           "chunks": chunks, "found": found})
    say(f"words in the text: {words}")
    line = f"size {args.size:>2}, overlap {args.overlap:>2}: {len(chunks)} chunks"
    if args.chunker != "words":
        line = f"{CHUNKER_TABLE[args.chunker].window_label(args.size, args.overlap)}: {len(chunks)} chunks"
    if found is not None:
        line += f", answer sentence whole in one chunk: {found}"
    say(line)
    for i, (w, piece) in enumerate(zip(windows, texts)):
        say(f"[{i}] word {w.start_word}: {terminal_text(piece)}")
    return 0


def query_text(argument: str) -> str:
    """The QUERY argument's text: standard input's when it is ``-`` (as ``chunk -`` reads its text), less the
    line break that ends it; lone surrogates (undecodable bytes in an argument) replaced."""
    from ranklens.engine.corpus.loaders import valid_unicode

    return valid_unicode(_read_text(argument).rstrip("\r\n") if argument == STANDARD_INPUT else argument)


def _read_text(name: str) -> str:
    if name == STANDARD_INPUT:
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


def run_prompt(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    query = query_text(args.query)
    retriever = setup_retriever(args, overrides)
    _note_k(retriever, overrides)
    if retriever.setup.rerank:  # the context is what the reranker put on top
        from ranklens.engine.neural.rerank import rerank_prompt

        prompt = rerank_prompt(retriever, query)
        if getattr(args, "json", False):
            return print_json({"query": query, "setup": retriever.setup.to_dict(), "prompt": prompt})
        say(prompt)
        return 0
    if getattr(args, "json", False):
        from ranklens.engine.backends.base import Unplaced

        result = retriever.search(query)  # one search: a user's retriever is asked once, the chunks are the prompt's
        ranked = result.ranked()
        return print_json({"query": query, "setup": retriever.setup.to_dict(), "prompt": retriever.prompt_of(result),
                           "chunks": [{"rank": h.rank, "id": h.run_id, "score": h.score, "not_in_corpus": True}
                                      if isinstance(h, Unplaced) else {"rank": h.rank, "id": h.chunk.id,
                                                                       "score": h.score} for h in ranked]})
    say(retriever.prompt(query))
    return 0


def run_index(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    bench, setup, _ = workbench(args, overrides, cache_min_chunks=0)
    retriever = indexed(bench, setup)
    cache = bench.cache
    assert cache is not None  # the command line's workbench always has one
    kept = "could not be cached (the warning above says why)" if cache.unsaved else f"is cached under {cache.root}"
    say(f"{retriever.corpus.name}: {len(retriever.chunks):,} chunks, {retriever.index.vocabulary.size:,} terms, "
        f"ready in {retriever.index_s:.2f} s; the term index {kept}")
    return 0
