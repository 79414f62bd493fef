"""The experiment subcommands: ivf, ann, compare-scorers, sweep chunks.

Each turns one thing and measures: an index's knob against exact search, every scorer
under one setup, chunker x size x overlap (printed by ``cli/chunk_lab.py``). Parsers (``add_<command>``) and runs
(``run_<command>``), listed in the subcommand table (``cli/subcommands.py``); engine
modules are imported inside the runs. The runs print the engine's
``engine/experiments/`` tables, the same ones the TUI's tabs show.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ranklens.cli.metric_columns import metric_cells, metric_headers, say_metric_notes
from ranklens.cli.options import Parser, add_setup_options, add_workspace_options, int_at_least, int_list, names
from ranklens.cli.output import TerminalProgress, print_json, say, tell, terminal_text
from ranklens.cli.setup_args import workbench
from ranklens.engine.chunking.chunkers import CHUNKERS
from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.ann.vectors import VectorSet

# IVF's comparisons count its centroids, as the seed's table does: said under every table that shows them.
_CENTROIDS = "{who}compared includes {cells} centroids, as the seed counts: share may pass 100%"
# The command line's names for the chunk sweep's settings.
_SWEEP_FLAGS = {"size": "--sizes", "overlap": "--overlaps"}


def _vector_source(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("corpus", nargs="?", help="use the corpus' LSA vectors")
    source.add_argument("--synthetic", action="store_true", help="the lesson's 20,000 x 64 synthetic set")


def add_ivf(sub: Any) -> None:
    ivf = sub.add_parser("ivf", help="what an IVF index costs in recall")
    _vector_source(ivf)
    ivf.add_argument("--cells", type=int_at_least("--cells", 1))
    ivf.add_argument("--probes", type=int_list("--probes", 1))
    ivf.add_argument("--json", action="store_true")
    add_setup_options(ivf, with_k=False)


def add_ann(sub: Any) -> None:
    from ranklens.engine.ann.knobs import declared, kind_knobs

    ann = sub.add_parser("ann", help="approximate indexes against exact search, each over its knob's ladder")
    _vector_source(ann)
    ann.add_argument("--index", type=names, default=["exact", "ivf"], metavar="KIND,KIND",
                     help=f"index kinds to measure: {', '.join(declared())} (default exact,ivf)")
    for kind, knob in kind_knobs():  # each kind's settings, as it declares them
        flag = knob.flag_for(kind)
        if knob.role == "knob":
            ann.add_argument(flag, type=int_list(flag, knob.minimum), metavar="N,N", help=f"{kind}: {knob.help}")
        else:
            default = "" if knob.default is None else f" (default {knob.default})"
            ann.add_argument(flag, type=int_at_least(flag, knob.minimum), metavar="N",
                             help=f"{kind}: {knob.help}{default}")
    ann.add_argument("--json", action="store_true")
    add_setup_options(ann, with_k=False)


def add_compare_scorers(sub: Any) -> None:
    compare = sub.add_parser("compare-scorers", help="every scorer's metrics on the corpus' questions, side by side")
    compare.add_argument("corpus")
    compare.add_argument("--json", action="store_true")
    add_workspace_options(compare)
    add_setup_options(compare)


def add_sweep(sub: Any) -> None:
    sweep = sub.add_parser("sweep", help="vary one setting and measure: sweep chunks")
    experiments = sweep.add_subparsers(dest="experiment", metavar="chunks", required=True, parser_class=Parser)
    chunks = experiments.add_parser("chunks", help="chunker x size x overlap, each tested against the setup's "
                                    "chunking on the judged questions")
    chunks.add_argument("corpus")
    chunks.add_argument("--chunkers", type=_chunkers, metavar="A,B",
                        help="chunkers compared, each over its sizes (default: the setup's chunker; "
                             f"{', '.join(CHUNKERS)})")
    chunks.add_argument("--sizes", type=_chunker_values("--sizes", 1), action="append", metavar="[CHUNKER:]N,N",
                        help="chunk sizes in the chunker's unit, for every chunker or, prefixed, for one; repeat "
                             "for several (default: the chunker's, words 20,40,60,100; characters 250,500,1000,2000; "
                             "tokens 64,128,256,512)")
    chunks.add_argument("--overlaps", type=_chunker_values("--overlaps", 0), action="append", metavar="[CHUNKER:]M,M",
                        help="overlaps tried with every size, for every chunker or, prefixed, for one "
                             "(default 0 and a quarter of the size; 0 and 1 sentence)")
    chunks.add_argument("--json", action="store_true")
    add_workspace_options(chunks)
    add_setup_options(chunks)


def _chunkers(text: str) -> list[str]:
    chosen = names(text)
    unknown = [name for name in chosen if name not in CHUNKERS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"--chunkers: unknown chunker {(unknown or [text])[0]!r} "
                                         f"(choose from {', '.join(CHUNKERS)})")
    return list(dict.fromkeys(chosen))


@contextmanager
def _flags(flags: dict[str, str]) -> Iterator[None]:
    """Engine messages about a setting name the option it came from."""
    from ranklens.engine.ann.base import IndexSettingError
    from ranklens.engine.settings import SettingError

    try:
        yield
    except IndexSettingError as error:
        raise RanklensError(error.naming(flags.get(error.setting, error.setting))) from None
    except SettingError as error:
        if error.setting not in flags:
            raise
        raise RanklensError(f"{flags[error.setting]}: {error.message}") from None


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _vectors(args: argparse.Namespace, overrides: dict[str, Any]) -> VectorSet:
    from ranklens.engine.experiments.indexes import corpus_vectors, synthetic_vectors

    if args.synthetic:
        return synthetic_vectors()
    bench, setup, _ = workbench(args, overrides)
    with TerminalProgress() as progress:
        # a scorer that ranks every chunk by a cosine has vectors (LSA, dense): its own are swept, else LSA's
        return corpus_vectors(bench, setup, progress)


def run_ivf(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.indexes import index_sweep
    from ranklens.engine.ann.ivf import IVFIndex, cell_warnings

    with _flags({knob.name: knob.flag_for("ivf") for knob in IVFIndex.settings}):
        # Known before any vector is computed: fail now, not after a long LSA fit.
        IVFIndex.check_settings(args.cells, args.probes)
        vectors = _vectors(args, overrides)
        with TerminalProgress() as progress:
            sweep = index_sweep(vectors, "ivf", args.cells, args.probes, progress=progress)
    for warning in cell_warnings(sweep.vectors, sweep.param_value or 1, name="--cells"):
        tell("warning", warning)
    if args.json:
        return print_json(sweep.to_dict())
    say(f"# {sweep.source}: {sweep.vectors:,} vectors x {sweep.dims} dims, "
        f"{sweep.queries} queries, {sweep.param_value} cells")
    say(f"{'cells visited':>14} {'compared + centroids':>28} {'share':>7} {'recall@10':>10} {'ms/query':>9}")
    for row in sweep.rows:
        say(f"{row.value:>14} {row.compared_mean:>28.0f} {row.share:>7.1%} {row.recall:>10.3f} "
            f"{row.ms_per_query:>9.3f}")
    say(_CENTROIDS.format(who="", cells=sweep.param_value))
    return 0


def run_ann(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.indexes import ann_rows, asked_settings, check_sweeps, index_sweeps
    from ranklens.engine.ann.knobs import kind_knobs

    flags = {"index": "--index", **{knob.name: knob.flag_for(kind) for kind, knob in kind_knobs()}}
    given = [(kind, knob, getattr(args, _dest(knob.flag_for(kind)))) for kind, knob in kind_knobs()]
    for kind, knob, value in given:
        if value is not None and kind not in args.index:
            raise RanklensError(f"{knob.flag_for(kind)}: only the {kind} index uses it (add --index ...,{kind})")
    settings = asked_settings(given)
    with _flags(flags):
        check_sweeps(args.index, settings)  # unknown names fail before any vector is made
    vectors = _vectors(args, overrides)
    with TerminalProgress() as progress:
        sweeps = index_sweeps(vectors, args.index, settings, progress)
    for sweep in sweeps:
        for warning in sweep.warnings:
            tell("warning", f"{sweep.kind}: {warning}")
    if args.json:
        return print_json({"source": vectors.name, "vectors": len(vectors.vectors), "queries": len(vectors.queries),
                           "rows": ann_rows(sweeps), "indexes": [s.to_dict() for s in sweeps]})
    n, dims = vectors.vectors.shape
    say(f"# {vectors.name}: {n:,} vectors x {dims} dims, {len(vectors.queries)} queries")
    for sweep in sweeps:
        if sweep.built:
            say(f"# {sweep.kind}: " + ", ".join(f"{name} {value}" for name, value in sweep.built.items()))
    say(f"{'index':<8} {'setting':>16} {'compared (mean)':>16} {'share':>7} {'recall@10':>10} {'ms/query':>9} "
        f"{'build s':>8} {'MB':>7}")
    for sweep in sweeps:
        built_as = f"{sweep.param} {sweep.param_value}" if sweep.param else ""
        for row in sweep.rows:
            setting = f"{row.knob} {row.value}" if row.knob else built_as
            say(f"{sweep.kind:<8} {setting:>16} {row.compared_mean:>16.0f} {row.share:>7.1%} {row.recall:>10.3f} "
                f"{row.ms_per_query:>9.3f} {sweep.stats.build_s:>8.2f} {sweep.stats.bytes / 1e6:>7.1f}")
    for sweep in sweeps:
        if sweep.kind == "ivf":
            say(_CENTROIDS.format(who="ivf: ", cells=sweep.param_value))
    return 0


def run_compare_scorers(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.experiments.scorers import compare_scorers

    bench, setup, judged = workbench(args, overrides)
    with TerminalProgress() as progress:
        table = compare_scorers(bench, setup, progress=progress)
    judged = judged.under(table.carried)
    if not table.scorers:
        raise RanklensError(f"{table.corpus}: no questions with an answer to evaluate")
    for note in dict.fromkeys(note for r in table.scorers for note in r.notes):
        tell("note", note)
    if args.json:
        return print_json({**table.to_dict(), "judgments": judged.to_dict()})
    n = table.question_count
    say(f"# {table.corpus} · {judged.describe()} · ▸ the setup's scorer: {setup.describe()}")
    width = max(len(r.label) for r in table.scorers) + 2
    say(f"{'scorer':<{width}} {metric_headers()}")
    for r in table.scorers:
        mark = "▸ " if r.scorer == table.current else "  "
        say(f"{mark + r.label:<{width}} {metric_cells(r.evaluation.metrics, n)}")
    say_metric_notes()
    say()
    say(" ".join(f"{r.scorer[:6]:>6}" for r in table.scorers) + "  question (rank of its first relevant chunk)")
    for q in table.questions:
        ranks = " ".join(f"{'-' if rank is None else rank:>6}" for rank in q.ranks)
        say(f"{ranks}  {terminal_text(q.text)}")
    report = table.threshold
    current = next((r.label for r in table.scorers if r.scorer == table.current), table.current)
    if report is None:
        say(f"\nthreshold ({current}): {terminal_text(table.threshold_note)}")
    else:
        say(f"\nthreshold ({current}): best {report.best_threshold:.{setup.decimals}f}, "
            f"accuracy {report.best_accuracy:.3f} (see `ranklens threshold`)")
    return 0


def run_sweep_chunks(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.cli.chunk_lab import say_chunk_lab
    from ranklens.engine.experiments.chunking import chunk_sweep, sweep_windows

    bench, setup, judged = workbench(args, overrides)
    chunkers = args.chunkers or [setup.chunker]
    sizes, overlaps = _per_chunker("--sizes", args.sizes, chunkers), _per_chunker("--overlaps", args.overlaps, chunkers)
    with _flags(_SWEEP_FLAGS):
        windows = tuple(w for chunker in chunkers
                        for w in sweep_windows(sizes.get(chunker), overlaps.get(chunker), chunker))
    with TerminalProgress() as progress:
        sweep = chunk_sweep(bench, setup, windows, progress)
    if args.json:
        return print_json({**sweep.to_dict(), "judgments": judged.to_dict()})
    say_chunk_lab(sweep, judged)
    return 0


def _per_chunker(flag: str, given: list[tuple[str | None, list[int]]] | None,
                 chunkers: list[str]) -> dict[str, list[int]]:
    """``--sizes 20,40 --sizes recursive:250,500`` as each chunker's values: its own, else the unprefixed ones."""
    values: dict[str | None, list[int]] = {}
    for chunker, numbers in given or []:
        if chunker is not None and chunker not in chunkers:
            raise RanklensError(f"{flag}: {chunker} is not swept (add it to --chunkers: {','.join(chunkers)})")
        values[chunker] = numbers
    return {chunker: values[chunker] for chunker in chunkers if chunker in values} | (
        {chunker: values[None] for chunker in chunkers if chunker not in values} if None in values else {})


def _chunker_values(flag: str, low: int) -> Callable[[str], tuple[str | None, list[int]]]:
    """``N,N`` for every chunker, or ``CHUNKER:N,N`` for one (in its units)."""
    numbers = int_list(flag, low)

    def parse(text: str) -> tuple[str | None, list[int]]:
        name, colon, rest = text.partition(":")
        if not colon:
            return None, numbers(text)
        if name.strip() not in CHUNKERS:
            raise argparse.ArgumentTypeError(f"{flag}: unknown chunker {name.strip()!r} in {text!r} "
                                             f"(choose from {', '.join(CHUNKERS)})")
        return name.strip(), numbers(rest)

    return parse
