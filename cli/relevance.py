"""The relevance workflow on the command line: run, runs, compare, why (judgments: cli/judgments.py).

A user's own questions, judgments and saved runs live in the corpus' workspace
(``engine/workspace/store.py``); every command here reads the corpus with its workspace applied,
so judgments made in the TUI or imported here count at once. Each command is an
``add_<command>`` (its parser) and a ``run_<command>``, listed in the subcommand table
(``cli/subcommands.py``); engine modules are imported inside the commands.
"""
from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranklens.cli.commands import query_text
from ranklens.cli.options import UsageError, add_setup_options, add_workspace_options, int_at_least
from ranklens.cli.output import TerminalProgress, print_explanation, print_json, say, tell, terminal_text
from ranklens.cli.setup_args import judged_retriever
from ranklens.cli.sides import load_with_workspace, run_setup, side
from ranklens.engine.measuring.measures import DEFAULT_MEASURES
from ranklens.cli.strata import Strata, add_by_option

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import Comparison, RunSide
    from ranklens.engine.comparing.many_runs import ManyComparison
    from ranklens.engine.judging.counted import Carried, Judged
    from ranklens.engine.measuring.measures import Measure
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.measuring.trec import Run
    from ranklens.engine.workspace.store import Workspace

MOVED_SHOWN = 10  # questions listed under "moved most" in the text output


def add_run(sub: Any) -> None:
    run = sub.add_parser("run", help="a TREC run of every question, saved in the workspace or written to a file")
    run.add_argument("corpus")
    target = run.add_mutually_exclusive_group(required=True)
    target.add_argument("--save", metavar="NAME", help="save as runs/NAME.run (+ NAME.json) in the workspace")
    target.add_argument("--output", metavar="FILE", help="write the run to FILE and its sidecar beside it "
                                                        "(-: the run alone, to standard output)")
    run.add_argument("--replace", action="store_true",
                     help="with --save: replace a saved (or half-saved) run of that name; with --output: replace a "
                          "file that is not a ranklens run")
    add_workspace_options(run)
    run.add_argument("--json", action="store_true")
    add_setup_options(run)


def add_runs(sub: Any) -> None:
    runs = sub.add_parser("runs", help="the workspace's saved runs, their setups and headline measures")
    runs.add_argument("corpus")
    runs.add_argument("--metrics", metavar="NAMES", help=f"ir_measures-style names (default \"{DEFAULT_MEASURES}\")")
    add_workspace_options(runs)
    runs.add_argument("--json", action="store_true")


def add_compare(sub: Any) -> None:
    compare = sub.add_parser("compare", help="two or more runs (saved, TREC files or inline setups): measures, "
                                             "paired tests, the questions that moved")
    compare.add_argument("corpus")
    compare.add_argument("a", metavar="BASE", help="a saved run's name, a TREC run file (-: standard input), or a "
                                                   "setup such as \"bm25 --k1 0.9\"")
    compare.add_argument("b", metavar="R1", help="the same, compared against BASE (Δ = R1 - BASE)")
    compare.add_argument("more", metavar="R2", nargs="*",
                         help="more runs, each against BASE, p-values corrected over the runs (--correction)")
    compare.add_argument("--metrics", metavar="NAMES", help=f"ir_measures-style names (default \"{DEFAULT_MEASURES}\")")
    compare.add_argument("--permutations", type=int_at_least("--permutations", 1000), default=10_000,
                         help="random sign flips of the randomization test (default 10000)")
    compare.add_argument("--seed", type=int_at_least("--seed", 0), default=42,
                         help="seed of the randomization test and the bootstrap (default 42)")
    compare.add_argument("--correction", choices=("holm", "bonferroni"), default="holm",
                         help="with two or more runs: how each measure's p-values are corrected over the runs "
                              "(default holm)")
    add_by_option(compare)
    add_workspace_options(compare)
    compare.add_argument("--json", action="store_true")


def add_why(sub: Any) -> None:
    why = sub.add_parser("why", help="why a chunk ranks where it does, against the top result")
    why.add_argument("corpus")
    why.add_argument("query", help="the query, or - to read it from standard input")
    why.add_argument("chunk_id", metavar="CHUNK_ID")
    why.add_argument("--json", action="store_true")
    add_workspace_options(why)
    add_setup_options(why)


# -- shared -----------------------------------------------------------------------------------


def _metrics(args: argparse.Namespace, command: str) -> list[Measure] | None:
    """The measures ``--metrics`` names (None when not given); a bad name is one line naming the option."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.measuring.measures import parse_measures

    if args.metrics is None:
        return None
    try:
        return parse_measures(args.metrics)
    except RanklensError as error:
        raise UsageError(f"ranklens {command}: --metrics: {error}") from None


# -- run --------------------------------------------------------------------------------------


def run_run(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.comparing.two_runs import setup_run
    from ranklens.engine.measuring.runs import foreign_file, save_pair, sidecar_path
    from ranklens.engine.measuring.trec import STANDARD_STREAM, write_run

    judged, workspace, workbench = load_with_workspace(args)
    corpus = judged.corpus
    setup = run_setup(corpus, overrides)
    if not corpus.questions:
        raise UsageError(f"ranklens: {corpus.name} has no questions to run (add some to the workspace: "
                         "ranklens judgments --import-queries FILE)")
    to_stdout = args.output == STANDARD_STREAM
    if args.replace and (to_stdout or not (args.save or args.output)):
        raise UsageError("ranklens run: --replace: only with --save NAME or --output FILE (it replaces a saved "
                         "run, or a file)")
    if to_stdout and args.json:
        raise UsageError("ranklens run: --json: --output - writes the run to standard output already")
    # a bad name, a run saved under it, or a file ranklens did not write, is said before the run is made
    if args.save:
        workspace.run_path(args.save)
        there = workspace.run_files(args.save)
        if not args.replace and there is not None:
            raise UsageError(_taken(workspace.taken(args.save, there)))
    elif not to_stdout and not args.replace:
        foreign = foreign_file(Path(args.output))
        if foreign is not None:
            raise UsageError(f"ranklens run: --output: {foreign} exists and is not a ranklens run or its "
                             "sidecar: add --replace to replace it")
    name = args.save or ("run" if to_stdout else Path(args.output).stem)
    with TerminalProgress() as progress:
        run, meta, _ = setup_run(workbench, setup, name, progress)
    retriever = workbench.retriever(setup)
    judged = judged.under(retriever.carried())
    meta["judgments"] = judged.to_dict()
    for note in retriever.notes:
        tell("note", note)
    headline = meta["metrics"]
    if to_stdout:
        write_run(STANDARD_STREAM, run, name)  # the run alone: what a pipe reads
        return 0
    if args.save:
        path = _save(workspace, args.save, run, meta, args.replace)
    else:
        path = Path(args.output)
        meta = save_pair(path, run, meta, name)
    if args.json:
        return print_json({**meta, "path": str(path), "sidecar": str(sidecar_path(path))})
    print_run(judged, retriever.setup.describe(), run, setup.k, headline)
    say(f"written to {path} (setup in {sidecar_path(path).name})")
    return 0


def print_run(judged: Judged, describe: str, run: Run, k: int, headline: Mapping[str, float]) -> None:
    """A run's text: the corpus, its setup and judgments, then the run's questions, depth and headline measures."""
    measures = "  ".join(f"{name} {value:.3f}" for name, value in headline.items()) or "no judged questions"
    say(f"# {judged.corpus.name} · {describe} · {judged.describe()}")
    say(f"run {run.tag}: {len(run.rankings)} questions, up to {k} chunks each · {measures}")


def _taken(taken: str) -> str:
    """The workspace's ``taken`` sentence, with the option that replaces the run."""
    return f"ranklens run: --save: {taken}; add --replace to replace it"


def _save(workspace: Workspace, name: str, run: Any, meta: dict[str, Any], replace: bool) -> Path:
    from ranklens.engine.workspace.store import RunExists

    try:
        return workspace.save_run(name, run, meta, replace=replace).path
    except RunExists as error:  # saved by someone else while this one ran
        raise UsageError(_taken(str(error))) from None


# -- runs -------------------------------------------------------------------------------------


def run_runs(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.comparing.two_runs import saved_measures
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.measuring.runs import RunFiles, corpus_identity

    measures = _metrics(args, "runs")  # a bad name is said before any work
    judged, workspace, workbench = load_with_workspace(args)
    corpus = judged.corpus
    fingerprint = corpus_identity(corpus)["fingerprint"]
    rows = []
    for name in workspace.stored_names():
        if workspace.run_files(name) is RunFiles.HALF_SAVED:  # an unreadable sidecar is named, status 2
            tell("warning", f"{workspace.taken(name, RunFiles.HALF_SAVED)}, not listed: {workspace.recovery(name)}")
            continue
        saved = workspace.load_run(name)
        meta = saved.meta
        same = (meta.get("corpus") or {}).get("fingerprint") == fingerprint
        metrics = meta.get("metrics", {})
        if same:  # measured against the judgments that count now, as eval and compare measure
            try:
                metrics = saved_measures(saved, workbench, measures)
            except RanklensError as error:
                tell("warning", f"run {name!r}: its saved measures shown ({error})")
        rows.append({"name": name, "created": meta.get("created"), "k": meta.get("k"),
                     "describe": meta.get("describe"), "setup": meta.get("setup"),
                     "questions": meta.get("questions"), "metrics": metrics,
                     "saved_metrics": meta.get("metrics", {}), "same_corpus": same})
    if args.json:
        return print_json({"workspace": str(workspace.root), "judgments": judged.to_dict(), "runs": rows})
    say(f"# {corpus.name} · {judged.describe()} · workspace {workspace.root}")
    if not rows:
        say("no saved runs (ranklens run CORPUS --save NAME saves one)")
        return 0
    names = sorted({k for row in rows for k in row["metrics"]}, key=lambda k: list(rows[0]["metrics"]).index(k)
                   if k in rows[0]["metrics"] else 99)
    width = max(len(row["name"]) for row in rows)
    widths = {n: max(8, len(n)) for n in names}  # nDCG_prime@10 is wider than a number
    say(f"{'run':<{width}}  {'created':<25} " + " ".join(f"{n:>{widths[n]}}" for n in names) + "  setup")
    for row in rows:
        values = " ".join(f"{row['metrics'][n]:>{widths[n]}.3f}" if n in row["metrics"] else " " * widths[n]
                          for n in names)
        other = "" if row["same_corpus"] else "  (made on another version of the corpus: its saved measures)"
        say(f"{row['name']:<{width}}  {row['created'] or '':<25} {values}  {row['describe'] or ''}{other}")
    return 0


# -- compare ----------------------------------------------------------------------------------


def run_compare(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.comparing.two_runs import compare_runs
    from ranklens.engine.measuring.measures import parse_measures

    if args.a == args.b == "-":
        raise UsageError("ranklens compare: A and B cannot both read standard input")
    measures = _metrics(args, "compare") or parse_measures(DEFAULT_MEASURES)
    if args.more:
        return compare_many_runs(args, measures)
    judged, workspace, workbench = load_with_workspace(args)
    corpus = judged.corpus
    strata = Strata(args.by, corpus.questions)  # a field no question has: said before any run is made
    a = side(args.a, corpus, workspace, workbench)
    b = side(args.b, corpus, workspace, workbench)
    judged = judged.under(carried_to(a, workbench))
    comparison = compare_runs(a, b, corpus.questions, measures, args.permutations, args.seed)
    strata.split(comparison)
    tell_findings(comparison)
    if args.json:
        return print_json({**comparison.to_dict(), **strata.to_dict(), "judgments": judged.to_dict()})
    print_comparison(judged, comparison)
    strata.say(comparison)
    return 0


def carried_to(run: RunSide, workbench: Workbench) -> Carried:
    """How many judgments count by their text under ``run``'s chunking (its sidecar's setup, else the corpus')."""
    from ranklens.engine.comparing.two_runs import judged_setup
    from ranklens.engine.retriever import setup_for
    from ranklens.engine.setup import Setup

    setup = Setup.from_mapping(run.setup, source=run.label) if run.setup else setup_for(workbench.corpus)
    return workbench.retriever(judged_setup(setup)).carried()


def compare_many_runs(args: argparse.Namespace, measures: list[Measure]) -> int:
    """``compare BASE R1 R2 …``: each run against BASE, p-values corrected over the runs."""
    from ranklens.cli.many_runs import print_many
    from ranklens.engine.comparing.many_runs import compare_many

    specs = [args.a, args.b, *args.more]
    if specs.count("-") > 1:
        raise UsageError("ranklens compare: only one of BASE and the runs can read standard input (-)")
    twice = next((spec for i, spec in enumerate(specs) if spec in specs[:i]), None)
    if twice is not None:
        raise UsageError(f"ranklens compare: {twice!r} is given twice: give each run once")
    judged, workspace, workbench = load_with_workspace(args)
    Strata(args.by, judged.corpus.questions)  # a field no question has: said before any run is made
    sides = [side(spec, judged.corpus, workspace, workbench) for spec in specs]
    with TerminalProgress() as progress:
        comparison = compare_many(sides[0], sides[1:], judged.corpus.questions, measures, args.permutations,
                                  args.seed, args.correction, progress)
    tell_findings(comparison)
    # each run's strata against the baseline, read off its pair as two-run compare reads them
    strata = [Strata(args.by, judged.corpus.questions).split(run.pair) for run in comparison.runs]
    if args.json:
        report = comparison.to_dict()
        for run, split in zip(report["runs"], strata):
            run.update(split.to_dict())
        return print_json({**report, "judgments": judged.to_dict()})
    print_many(judged, comparison)
    for run, split in zip(comparison.runs, strata):
        if args.by is not None:
            say(f"{terminal_text(run.side.label)} (B) against {terminal_text(comparison.baseline.label)} (A):")
        split.say(run.pair)
    return 0


def tell_findings(comparison: Comparison | ManyComparison) -> None:
    """What a comparison found on stderr: its notes (questions a run lacks), the low-coverage warning."""
    for note in comparison.notes:
        tell("note", note)
    if comparison.coverage is not None and comparison.coverage.warning:
        tell("warning", comparison.coverage.warning)


def print_comparison(judged: Judged, comparison: Comparison) -> None:
    from ranklens.engine.comparing.p_text import format_p as _p

    a, b = comparison.a, comparison.b
    say(f"# {judged.corpus.name} · {len(comparison.questions)} judged questions ({judged.describe()}) · "
        f"randomization: {comparison.permutations:,} sign flips, seed {comparison.seed}")
    say(f"A  {terminal_text(a.label)}" + (f"  ({a.describe})" if a.describe and a.describe != a.label else ""))
    say(f"B  {terminal_text(b.label)}" + (f"  ({b.describe})" if b.describe and b.describe != b.label else ""))
    width = max(8, *(len(row.name) for row in comparison.rows))
    say(f"{'measure':<{width}}  {'A':>7} {'B':>7} {'Δ':>8}  {'p t-test':>8} {'p rand.':>8}  CI95 of Δ")
    for row in comparison.rows:
        low, high = row.ci95
        say(f"{row.name:<{width}}  {row.a:>7.4f} {row.b:>7.4f} {row.delta:>+8.4f}  {_p(row.p_ttest):>8} "
             f"{_p(row.p_randomization):>8}  [{low:+.4f}, {high:+.4f}]")
    primary = comparison.primary
    say(f"B against A on {primary.name}: {primary.wins} wins, {primary.ties} ties, {primary.losses} losses")
    moved = comparison.moved(MOVED_SHOWN)
    if not moved:
        return
    say(f"moved most on {primary.name} (A → B; rank of the first relevant chunk A → B):")
    ids = [terminal_text(q.id) for q in moved]
    id_width = max(map(len, ids))
    for question, qid in zip(moved, ids):
        ranks = f"{_rank(question.rank_a):>4} → {_rank(question.rank_b):<4}"
        say(f"  {qid:<{id_width}}  {question.a[primary.name]:.3f} → {question.b[primary.name]:.3f}  {ranks}  "
             f"{terminal_text(question.text)[:60]}")


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


# -- why --------------------------------------------------------------------------------------


def run_why(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.corpus.loaders import valid_unicode
    from ranklens.engine.why import why

    query = query_text(args.query)
    retriever, judged = judged_retriever(args, overrides)
    report = why(retriever, query, valid_unicode(args.chunk_id))
    if args.json:
        return print_json({**report.to_dict(), "judgments": judged.to_dict()})
    say(f"# {retriever.corpus.name} · {len(retriever.chunks)} chunks · {retriever.setup.describe()} · "
        f"{judged.describe()}")
    for line in report.summary(len(retriever.chunks), retriever.setup.decimals):
        say(terminal_text(line))
    say("")
    say(f"the chunk, {terminal_text(report.chunk.id)}: {terminal_text(report.chunk.text)[:200]}")
    print_explanation(report.explanation)
    say(f"the top result, {terminal_text(report.top.id)}: {terminal_text(report.top.text)[:200]}")
    print_explanation(report.top_explanation)
    return 0
