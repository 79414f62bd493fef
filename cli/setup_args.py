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
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.retriever import Retriever, Workbench
    from ranklens.engine.setup import Setup


def judged(args: argparse.Namespace, corpus: Corpus) -> Judged:
    """The corpus with the judgments that count (engine/judging/counted.py's rule): the workspace's too, unless
    ``--no-workspace``; a command without ``--workspace`` measures nothing and reads none. Warnings told."""
    from ranklens.engine.judging.counted import Judged, judged_corpus
    from ranklens.engine.workspace.store import Workspace

    if not hasattr(args, "workspace"):
        return Judged(corpus, None)
    workspace = None if getattr(args, "no_workspace", False) else Workspace.for_corpus(corpus, args.workspace)
    result = judged_corpus(corpus, workspace)
    for warning in result.warnings:
        tell("warning", warning)
    return result


def loaded(args: argparse.Namespace) -> Corpus:
    """The corpus as loaded, its warnings told."""
    from ranklens.engine.corpus.loaders import load_corpus

    with TerminalProgress() as progress:
        corpus = load_corpus(args.corpus, progress)
    for warning in corpus.warnings:
        tell("warning", warning)
    return corpus


def load(args: argparse.Namespace, corpus: Corpus | None = None) -> Judged:
    """The corpus loaded (its warnings told), or ``corpus`` as ``loaded`` gave it, with the judgments that count."""
    return judged(args, loaded(args) if corpus is None else corpus)


def workbench(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int | None = None
              ) -> tuple[Workbench, Setup, Judged]:
    """The corpus loaded with its judgments, and the setup asked for, before anything is indexed.

    ``cache_min_chunks``: the smallest corpus whose term index is kept on disk (None: the engine's default).
    """
    from ranklens.engine.storage.cache import IndexCache
    from ranklens.engine.retriever import CACHE_MIN_CHUNKS, Workbench, setup_for

    result = load(args)
    corpus = result.corpus
    bench = Workbench(corpus, IndexCache(), CACHE_MIN_CHUNKS if cache_min_chunks is None else cache_min_chunks)
    return bench, setup_for(corpus, overrides, source=COMMAND_LINE), result


def judged_retriever(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int | None = None
                     ) -> tuple[Retriever, Judged]:
    """The setup's retriever on the corpus, indexed (``indexed``), and the judgments it measures with (those
    carried to its chunking by their text counted)."""
    bench, setup, result = workbench(args, overrides, cache_min_chunks)
    built = indexed(bench, setup)
    return built, result.under(built.carried())


def indexed(bench: Workbench, setup: Setup) -> Retriever:
    """The setup's retriever on ``bench``, indexed, its notes told, and the cache's problems as warnings (a
    cache that cannot be read or written costs time, not the answer)."""
    with TerminalProgress() as progress:
        built = bench.retriever(setup, progress)
    for note in built.notes:
        tell("note", note)
    for problem in bench.cache.problems if bench.cache else []:
        tell("warning", problem)
    return built


def retriever(args: argparse.Namespace, overrides: dict[str, Any], cache_min_chunks: int | None = None
              ) -> Retriever:
    """The setup's retriever on the corpus, indexed (see ``judged_retriever``)."""
    return judged_retriever(args, overrides, cache_min_chunks)[0]
