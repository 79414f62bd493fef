"""The ``ranklens`` command: the TUI by default, the engine headless with a subcommand.

Bad input exits with status 2 and one line on stderr, never a traceback.
Imports stay inside the commands so that ``ranklens`` paints its first
screen before numpy, scipy or scikit-learn are loaded.
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Sequence
from typing import cast

# the options read engine.setup, plain Python (no numpy): cheap enough to import before the TUI paints
from ranklens.cli.backend import add_backend_options
from ranklens.cli.options import Parser, UsageError, add_setup_options, option_of, setup_overrides
from ranklens.cli.output import terminal_text
from ranklens.cli.subcommands import BY_NAME, COMMANDS, SUBCOMMANDS

def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, from the subcommand table, or of ``command`` alone: ``main`` parses one
    command's arguments, and adding the options of all eighteen took 12 ms, most of a short command's own time
    (a command's help and errors name only itself)."""
    parser = Parser(prog="ranklens", description="A terminal workbench for the retrieval half of RAG.")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for each in SUBCOMMANDS:
        if command not in (None, each.name):
            continue
        each.add(sub)
        if each.backend:  # after the command's own options, which it leaves to the command
            add_backend_options(sub.choices[each.name])
    return parser


def _tui_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ranklens", description="Open the TUI on CORPUS (default: studio-alfa). "
                     f"Subcommands: {', '.join(COMMANDS)} (ranklens COMMAND --help).")
    parser.add_argument("corpus", nargs="?", default="studio-alfa")
    add_setup_options(parser)
    add_backend_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            return _run(_parsed(build_parser(argv[0]), argv))
        if argv and argv[0] in ("-h", "--help"):
            _tui_parser().print_help()
            return 0
        if argv and not argv[0].startswith("-"):
            _check_corpus_or_command(argv[0])
        args = _tui_parser().parse_args(argv)
        from ranklens.cli.backend import open_backend

        overrides = setup_overrides(args)
        backend = open_backend(args, overrides)  # an unreachable server or unknown collection: said before the TUI
        if not _terminal():
            if backend is not None:
                backend.close()
            raise UsageError(f"ranklens: the TUI needs a terminal on standard input and output; scripts use a "
                             f"subcommand: {', '.join(COMMANDS)} (ranklens COMMAND --help)")
        from ranklens.tui.app import run_app

        run_app(args.corpus, overrides, backend)
        return 0
    except UsageError as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - user-facing errors only below
        from ranklens.engine.errors import RanklensError

        if isinstance(error, RanklensError):
            return _fail(f"ranklens: {_where(error)}")
        raise


def _parsed(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The command's arguments; an option it does not have is named by the command (argparse names the top
    parser, ``ranklens``), with the options it may have meant."""
    args, unknown = parser.parse_known_args(argv)
    if not unknown:
        return args
    command = parser
    while command._subparsers is not None:  # noqa: SLF001 - argparse keeps its subparsers there
        action = cast("argparse._SubParsersAction[argparse.ArgumentParser]",
                      command._subparsers._group_actions[0])  # noqa: SLF001
        command = action.choices[getattr(args, action.dest)]
    flag = next((word.partition("=")[0] for word in unknown if word.startswith("--")), None)
    meant = _meant(flag, list(command._option_string_actions)) if flag else []  # noqa: SLF001
    raise UsageError(f"{command.prog}: unrecognized arguments: {' '.join(unknown)}"
                     + (f" (did you mean {' or '.join(meant)}?)" if meant else ""))


def _meant(flag: str, options: list[str]) -> list[str]:
    """``-k`` for ``--k`` (not ``--k1``, which argparse's abbreviations would have read), the one option a prefix
    begins, else the options spelled alike."""
    if flag[1:] in options:
        return [flag[1:]]
    longer = [option for option in options if option.startswith(flag)]
    return longer if len(longer) == 1 else difflib.get_close_matches(flag, options, n=2, cutoff=0.75)


def _terminal() -> bool:
    """Whether a person can see and type into the TUI: a script, a pipe or cron would get escape codes in
    its output and an app waiting for keys that never come."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _check_corpus_or_command(name: str) -> None:
    """A first word that is neither a path nor a bundled corpus is a typo, of a command or a corpus:
    say so before the TUI opens on nothing."""
    from ranklens.corpora import bundled_corpora

    corpora = [corpus for corpus, _ in bundled_corpora()]
    if name in corpora or os.path.exists(name):
        return
    close = difflib.get_close_matches(name, [*COMMANDS, *corpora], n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else \
        f" (commands: {', '.join(COMMANDS)}; bundled corpora: {', '.join(corpora)})"
    raise UsageError(f"ranklens: no such corpus or command {name!r}{hint}")


def _where(error: Exception) -> str:
    """The engine says what is wrong; a value from the command line is named by its flag."""
    from ranklens.cli.options import COMMAND_LINE
    from ranklens.engine.settings import SettingError

    if isinstance(error, SettingError) and error.source == COMMAND_LINE:
        return f"{option_of(error.setting)}: {error.message}"
    return str(error)


def _fail(message: str) -> int:
    # Messages quote paths, ids and options as the user gave them: made safe and kept to one line.
    print(terminal_text(message) if message.strip() else "ranklens: error", file=sys.stderr)
    return 2


def _run(args: argparse.Namespace) -> int:
    from ranklens.cli import backend

    command = BY_NAME[args.command]
    overrides = setup_overrides(args) if command.setup else {}
    with backend.backend_for(args, overrides):  # --backend: the command's workbenches rank through it
        return command.run(args, overrides)


if __name__ == "__main__":
    sys.exit(main())
