"""The table of ``ranklens``'s subcommands: name, the function adding its parser, the function running it.

``cli/main.py`` builds the parser and dispatches from this table; a new subcommand is an
``add_<command>`` and a ``run_<command>`` in the module of its kind, and one line here.
The order is the order of ``ranklens --help``'s list and of the typo hints.

Importing this module is cheap (plain argparse, no numpy): ``ranklens`` reads the names
before it knows whether the TUI opens; the runs import the engine when called.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ranklens.cli import backend, commands, experiments, judgments, pool, relevance


@dataclass(frozen=True)
class Subcommand:
    name: str  # as typed: ranklens NAME
    add: Callable[[Any], None]  # adds the command's parser to ranklens' subparsers
    run: Callable[[argparse.Namespace, dict[str, Any]], int]  # (arguments, setup overrides) -> exit status
    setup: bool = True  # takes the setup options: its overrides are read from them
    # ranks: --backend/--collection may rank it through a collection or a retriever (compare-scorers and the
    # experiments build every scorer locally, and have none)
    backend: bool = False


SUBCOMMANDS = (
    Subcommand("corpora", commands.add_corpora, commands.run_corpora, setup=False),
    Subcommand("search", commands.add_search, commands.run_search, backend=True),
    Subcommand("eval", commands.add_eval, commands.run_eval, backend=True),
    Subcommand("threshold", commands.add_threshold, commands.run_threshold, backend=True),
    Subcommand("chunk", commands.add_chunk, commands.run_chunk, setup=False),
    Subcommand("ivf", experiments.add_ivf, experiments.run_ivf),
    Subcommand("prompt", commands.add_prompt, commands.run_prompt, backend=True),
    Subcommand("index", commands.add_index, commands.run_index),
    Subcommand("compare-scorers", experiments.add_compare_scorers, experiments.run_compare_scorers),
    Subcommand("sweep", experiments.add_sweep, experiments.run_sweep_chunks),  # chunks: its one experiment
    Subcommand("ann", experiments.add_ann, experiments.run_ann),
    Subcommand("run", relevance.add_run, relevance.run_run, backend=True),
    Subcommand("runs", relevance.add_runs, relevance.run_runs, setup=False),
    Subcommand("compare", relevance.add_compare, relevance.run_compare, setup=False, backend=True),
    Subcommand("pool", pool.add_pool, pool.run_pool, setup=False),
    Subcommand("why", relevance.add_why, relevance.run_why, backend=True),
    Subcommand("judgments", judgments.add_judgments, judgments.run_judgments, setup=False),
    Subcommand("push", backend.add_push, backend.run_push),
)
COMMANDS = tuple(command.name for command in SUBCOMMANDS)
BY_NAME = {command.name: command for command in SUBCOMMANDS}
