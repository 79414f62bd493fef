"""From a command's words to runs: the corpus with its workspace, and a run named as ``compare`` and ``pool``
take it (a saved run's name, a TREC run file, ``-``, or an inline setup such as ``"bm25 --k1 0.9"``).

The run's side is made by the engine (``engine/comparing/two_runs.py``: ``saved_side``, ``setup_side``); this
module only reads the words, in that order of precedence, and tells the side's notes on stderr.
"""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranklens.cli.options import COMMAND_LINE, Parser, UsageError, add_setup_options, setup_overrides
from ranklens.cli.output import TerminalProgress, tell
from ranklens.cli.setup_args import load

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace.store import Workspace


def load_with_workspace(args: argparse.Namespace, corpus: Corpus | None = None
                        ) -> tuple[Judged, Workspace, Workbench]:
    """The corpus (or ``corpus``, as loaded) with the judgments that count (warnings told), its workspace (where
    runs are saved, also under ``--no-workspace``) and a workbench on it."""
    from ranklens.engine.storage.cache import IndexCache
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.workspace.store import Workspace

    judged = load(args, corpus)
    workspace = judged.workspace or Workspace.for_corpus(judged.corpus, getattr(args, "workspace", None))
    return judged, workspace, Workbench(judged.corpus, IndexCache())


def run_setup(corpus: Corpus, overrides: dict[str, Any], source: str = COMMAND_LINE) -> Setup:
    """A run's setup: the corpus' and the given settings, k (the run's depth) 100 unless given."""
    from ranklens.engine.retriever import setup_for
    from ranklens.engine.measuring.runs import DEFAULT_DEPTH

    return setup_for(corpus, {"k": DEFAULT_DEPTH}, overrides, source=source)


def inline_setup(spec: str) -> dict[str, Any] | None:
    """``"bm25 --k1 0.9"`` as setup overrides; None when ``spec`` does not read as a setup."""
    try:
        words = shlex.split(spec)
    except ValueError:
        return None
    if words and not words[0].startswith("-"):
        words = ["--scorer", *words]
    parser = Parser(prog="setup", add_help=False)
    add_setup_options(parser)
    try:
        return setup_overrides(parser.parse_args(words))
    except UsageError as error:
        raise NotASetup(str(error).removeprefix("setup: ").removeprefix("ranklens: ")) from None


class NotASetup(Exception):
    """Words that read as setup options but are not a setup the parser takes (the message says why)."""


def side(spec: str, corpus: Corpus, workspace: Workspace, workbench: Workbench) -> RunSide:
    """A saved run's name, a TREC run file, a backend (``endpoint:search.toml``), or an inline setup, in that
    order of precedence."""
    from ranklens.cli.backend import backend_side
    from ranklens.engine.comparing.two_runs import saved_side, setup_side
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.measuring.trec import STANDARD_STREAM, read_run
    from ranklens.engine.measuring.runs import matching_sidecar
    from ranklens.engine.workspace.store import SavedRun

    if workspace.run_files(spec) is not None:
        saved = workspace.load_run(spec)  # a half-saved run is named so, with the way to save it again
    elif spec == STANDARD_STREAM:  # a run piped in: no sidecar
        saved = SavedRun("<stdin>", read_run(spec), {}, Path("<stdin>"))
    elif Path(spec).is_file():
        saved = SavedRun(spec, read_run(spec), matching_sidecar(Path(spec)) or {}, Path(spec))
    elif (ranked := backend_side(spec, corpus, workbench)) is not None:
        return ranked
    else:
        try:
            overrides = inline_setup(spec)
        except NotASetup as error:
            raise RanklensError(f"{spec!r} is not a saved run in {workspace.root}, not a file, and not a setup "
                                f"({error})") from None
        if overrides is None:
            raise RanklensError(f"{spec!r} is not a saved run in {workspace.root}, not a file, and not a setup")
        setup = run_setup(corpus, overrides, source=f"setup {spec!r}")
        with TerminalProgress() as progress:
            return setup_side(spec, workbench, setup, progress)
    saved_run = saved_side(saved, workbench)
    for note in saved_run.notes:
        tell("warning", note)
    return saved_run
