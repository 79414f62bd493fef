"""From a command's arguments to the corpus, its setup and a retriever: what most subcommands start with.

Loading and indexing show progress on the terminal; the corpus' warnings and the
retriever's notes are told on stderr before any result. Engine modules are imported
inside the functions, so the command line's tables stay cheap to import.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ranklens.cli.options import COMMAND_LINE
from ranklens.cli.output import TerminalProgress, tell

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever, Workbench
    from ranklens.engine.setup import Setup


def workbench(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int | None = None
              ) -> tuple[Workbench, Setup]:
    """The corpus loaded (its warnings told) and the setup asked for, before anything is indexed.

    ``cache_min_chunks``: the smallest corpus whose term index is kept on disk (None: the engine's default).
    """
    from ranklens.engine.cache import IndexCache
    from ranklens.engine.loaders import load_corpus
    from ranklens.engine.retriever import CACHE_MIN_CHUNKS, Workbench, setup_for

    with TerminalProgress() as progress:
        corpus = load_corpus(args.corpus, progress)
    for warning in corpus.warnings:
        tell("warning", warning)
    bench = Workbench(corpus, IndexCache(), CACHE_MIN_CHUNKS if cache_min_chunks is None else cache_min_chunks)
    return bench, setup_for(corpus, overrides, source=COMMAND_LINE)


def retriever(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int | None = None
              ) -> Retriever:
    """The setup's retriever on the corpus, indexed, its notes and the cache's problems told."""
    bench, setup = workbench(args, overrides, cache_min_chunks)
    with TerminalProgress() as progress:
        built = bench.retriever(setup, progress)
    problems = bench.cache.problems if bench.cache else []
    for note in [*built.notes, *problems]:
        tell("note", note)
    return built
