"""``ranklens pool CORPUS A B [C …] --depth N``: the unjudged (question, chunk) pairs the runs put in their
top N (engine/judging/pool.py), as a table or JSON; ``--save NAME`` keeps the pool as the TUI's judging queue.

The runs are named as ``compare`` takes them (cli/sides.py); in the table they are R1, R2, … spelled
out above it, as a setup such as "lsa --dims 100" would not fit a column.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ranklens.cli.options import UsageError, add_workspace_options, int_at_least
from ranklens.cli.output import print_json, say, terminal_text
from ranklens.cli.sides import load_with_workspace, side

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.judging.pool import Pool

DEFAULT_POOL_DEPTH = 10
TEXT_SHOWN = 50  # characters of a question's text in the table


def add_pool(sub: Any) -> None:
    pool = sub.add_parser("pool", help="the unjudged (question, chunk) pairs in the top N of any of the runs")
    pool.add_argument("corpus")
    pool.add_argument("runs", nargs="+", metavar="RUN",
                      help="two or more: a saved run's name, a TREC run file (-: standard input), or a setup "
                           "such as \"bm25 --k1 0.9\"")
    pool.add_argument("--depth", type=int_at_least("--depth", 1), default=DEFAULT_POOL_DEPTH,
                      help=f"how many of each run's top chunks are pooled (default {DEFAULT_POOL_DEPTH})")
    pool.add_argument("--save", metavar="NAME", help="keep the pool as pools/NAME.json in the workspace: the TUI's "
                                                     "judging queue offers it")
    pool.add_argument("--replace", action="store_true", help="with --save: replace a pool saved under NAME")
    add_workspace_options(pool)
    pool.add_argument("--json", action="store_true")


def run_pool(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.judging.pool import make_pool, pool_path, save_pool

    if len(args.runs) < 2:
        raise UsageError("ranklens pool: give two runs or more")
    if args.runs.count("-") > 1:
        raise UsageError("ranklens pool: only one run can read standard input (-)")
    if args.replace and not args.save:
        raise UsageError("ranklens pool: --replace: only with --save NAME (it replaces a saved pool)")
    judged, workspace, workbench = load_with_workspace(args)
    target = pool_path(workspace, args.save) if args.save else None  # a bad name is said before any run is made
    if target is not None and target.exists() and not args.replace:
        raise RanklensError(f"a pool named {args.save!r} is saved already in {target.parent}; add --replace to "
                            "replace it")
    sides = [side(spec, judged.corpus, workspace, workbench) for spec in args.runs]
    pool = make_pool(sides, judged.corpus, args.depth)
    if args.save:
        save_pool(workspace, args.save, pool)
    saved = {"saved": str(target)} if target is not None else {}
    if args.json:
        return print_json({**pool.to_dict(), **saved, "judgments": judged.to_dict()})
    _print_pool(judged, pool, sides)
    if args.save:
        say(f"saved as {saved['saved']}: the TUI's judging queue (palette: Judge a pool…) offers it")
    return 0


def _print_pool(judged: Judged, pool: Pool, sides: list[RunSide]) -> None:
    say(f"# {judged.corpus.name} · pool of {len(sides)} runs at depth {pool.depth} · {judged.describe()}")
    codes = {s.label: f"R{i}" for i, s in enumerate(sides, 1)}
    for s in sides:
        described = f"  ({s.describe})" if s.describe and s.describe != s.label else ""
        say(f"{codes[s.label]:<4} {terminal_text(s.label)}{described} · {pool.contributed[s.label]} to judge, "
            f"{pool.only[s.label]} retrieved by it alone")
    say(f"{pool.size} pairs in the pool · {pool.judged} judged already · {len(pool.pairs)} to judge "
        "(by question, then best rank)")
    if not pool.pairs:
        return
    qids = [terminal_text(p.question) for p in pool.pairs]
    ids = [terminal_text(p.id) for p in pool.pairs]
    qw, iw = max(8, *map(len, qids)), max(5, *map(len, ids))
    rank_cells = " ".join(f"{codes[s.label]:>4}" for s in sides)
    say(f"{'question':<{qw}}  {'chunk':<{iw}}  {rank_cells}  text")
    shown_text = ""
    for pair, qid, ident in zip(pool.pairs, qids, ids):
        ranks = " ".join(f"{pair.runs.get(s.label, ''):>4}" for s in sides)
        text = terminal_text(pool.questions.get(pair.question, ""))[:TEXT_SHOWN]
        say(f"{qid:<{qw}}  {ident:<{iw}}  {ranks}  {text if text != shown_text else '〃'}")
        shown_text = text
