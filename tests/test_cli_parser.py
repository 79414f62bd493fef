"""`ranklens COMMAND` builds COMMAND's parser alone: it must be the parser the whole table builds for it."""
from __future__ import annotations

import argparse

import pytest

from ranklens.cli.main import build_parser
from ranklens.cli.options import UsageError
from ranklens.cli.subcommands import COMMANDS

# the commands that rank, which --backend may send to a collection or the user's retriever (docs/retrievers.md)
RANKING = {"search", "eval", "threshold", "prompt", "run", "compare", "why"}

ARGV = {
    "search": ["studio-alfa", "ferie", "--scorer", "bm25", "--k1", "0.9", "--backend", "qdrant:x"],
    "eval": ["studio-alfa", "--weight-sweep", "--folds", "3", "--no-workspace"],
    "sweep": ["chunks", "studio-alfa", "--sizes", "words:20,40", "--sentences"],
    "push": ["studio-alfa", "--to", "qdrant:x", "--batch", "8"],
    "compare": ["studio-alfa", "a", "b", "--collection", "c"],
    "ann": ["--synthetic", "--index", "exact,hnsw", "--hnsw-m", "8"],
}


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    return parser._subparsers._group_actions[0].choices[command]  # noqa: SLF001 - argparse has no public way


def _parsed(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | str:
    try:
        return parser.parse_args(argv)
    except UsageError as error:
        return str(error)


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_alone_is_its_parser_in_the_whole_table(command: str) -> None:
    alone, whole = build_parser(command), build_parser()
    assert list(alone._subparsers._group_actions[0].choices) == [command]  # noqa: SLF001
    assert _subparser(alone, command).format_help() == _subparser(whole, command).format_help()
    for argv in ([command, *ARGV.get(command, ["studio-alfa"])], [command, "studio-alfa", "--no-such-option"],
                 [command]):
        assert _parsed(alone, argv) == _parsed(whole, argv)
    assert ("--backend" in _subparser(alone, command).format_help()) == (command in RANKING)
