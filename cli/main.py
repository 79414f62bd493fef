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
from collections.abc import Callable, Sequence
from typing import NoReturn

# the options read engine.setup, plain Python (no numpy): cheap enough to import before the TUI paints
from ranklens.cli.options import UsageError, add_setup_options, int_at_least, option_of, setup_overrides

COMMANDS = ("corpora", "search", "eval", "threshold", "chunk", "ivf", "prompt", "index", "compare-scorers", "sweep",
            "ann", "run", "runs", "compare", "why", "judgments", "push")
# the relevance workflow's commands live in cli/relevance.py (parsers and run_<command>)
RELEVANCE_COMMANDS = ("run", "runs", "compare", "why", "judgments")


class _Parser(argparse.ArgumentParser):
    # argparse prints usage and exits on its own; we want one line and status 2 from main()
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _int_list(name: str, low: int) -> Callable[[str], list[int]]:
    def parse(text: str) -> list[int]:
        try:
            values = [int(p) for p in text.split(",") if p.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} takes whole numbers separated by commas (got {text!r})") from None
        if not values or min(values) < low:
            raise argparse.ArgumentTypeError(f"{name} values must be at least {low} (got {text!r})")
        return values

    return parse


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ranklens", description="A terminal workbench for the retrieval half of RAG.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    corpora = sub.add_parser("corpora", help="list bundled corpora")
    corpora.add_argument("--json", action="store_true")

    search = sub.add_parser("search", help="rank chunks for a query")
    search.add_argument("corpus")
    search.add_argument("query")
    search.add_argument("--explain", action="store_true", help="show how each score is made, term by term")
    search.add_argument("--json", action="store_true")
    add_setup_options(search)

    evaluate = sub.add_parser("eval", help="hit@k, MRR, nDCG, recall on the corpus' questions")
    evaluate.add_argument("corpus")
    evaluate.add_argument("--json", action="store_true")
    evaluate.add_argument("--weight-sweep", action="store_true",
                          help="fusion: nDCG@10 at each weight of the first fused scorer, the best one, and its "
                               "k-fold cross-validated value")
    evaluate.add_argument("--folds", type=int_at_least("--folds", 2), default=5,
                          help="folds of the weight sweep's cross-validation (default 5)")
    add_setup_options(evaluate)

    threshold = sub.add_parser("threshold", help="can a score threshold tell answerable questions apart?")
    threshold.add_argument("corpus")
    threshold.add_argument("--json", action="store_true")
    add_setup_options(threshold)

    chunk = sub.add_parser("chunk", help="cut a text file into chunks")
    chunk.add_argument("file", help="a text file, or - for standard input")
    chunk.add_argument("--size", type=int_at_least("--size", 1), required=True)
    chunk.add_argument("--overlap", type=int_at_least("--overlap", 0), default=0)
    chunk.add_argument("--sentences", action="store_true", help="pack whole sentences (--overlap in sentences)")
    chunk.add_argument("--find", metavar="TEXT", help="is TEXT whole inside some chunk?")
    chunk.add_argument("--json", action="store_true")

    ivf = sub.add_parser("ivf", help="what an IVF index costs in recall")
    source = ivf.add_mutually_exclusive_group(required=True)
    source.add_argument("corpus", nargs="?", help="use the corpus' LSA vectors")
    source.add_argument("--synthetic", action="store_true", help="the lesson's 20,000 x 64 synthetic set")
    ivf.add_argument("--cells", type=int_at_least("--cells", 1))
    ivf.add_argument("--probes", type=_int_list("--probes", 1))
    ivf.add_argument("--json", action="store_true")
    add_setup_options(ivf, with_k=False)

    ann = sub.add_parser("ann", help="approximate indexes against exact search, each over its knob's ladder")
    source = ann.add_mutually_exclusive_group(required=True)
    source.add_argument("corpus", nargs="?", help="use the corpus' LSA vectors")
    source.add_argument("--synthetic", action="store_true", help="the lesson's 20,000 x 64 synthetic set")
    ann.add_argument("--index", type=_names, default=["exact", "ivf"], metavar="KIND,KIND",
                     help="index kinds to measure (default exact,ivf)")
    ann.add_argument("--hnsw-m", type=int_at_least("--hnsw-m", 2), metavar="M",
                     help="hnsw: links per node (default 16)")
    ann.add_argument("--ef-construction", type=int_at_least("--ef-construction", 1), metavar="N",
                     help="hnsw: candidates kept while linking (default 128)")
    ann.add_argument("--ef-search", type=_int_list("--ef-search", 1), metavar="N,N",
                     help="hnsw: the ef_search values swept (default 10,16,32,64,128,256,512)")
    ann.add_argument("--json", action="store_true")
    add_setup_options(ann, with_k=False)

    compare = sub.add_parser("compare-scorers", help="every scorer's metrics on the corpus' questions, side by side")
    compare.set_defaults(command="compare_scorers")  # dispatched as run_compare_scorers
    compare.add_argument("corpus")
    compare.add_argument("--json", action="store_true")
    add_setup_options(compare)

    sweep = sub.add_parser("sweep", help="vary one setting and measure: sweep chunks")
    experiments = sweep.add_subparsers(dest="experiment", metavar="chunks", required=True, parser_class=_Parser)
    chunks = experiments.add_parser("chunks", help="chunk size x overlap, measured on the questions' answer spans")
    chunks.set_defaults(command="sweep_chunks")  # dispatched as run_sweep_chunks
    chunks.add_argument("corpus")
    chunks.add_argument("--sizes", type=_int_list("--sizes", 1), metavar="N,N",
                        help="words per chunk (default 20,40,60,100)")
    chunks.add_argument("--overlaps", type=_int_list("--overlaps", 0), metavar="M,M",
                        help="overlaps tried with every size (default 0 and a quarter of the size)")
    chunks.add_argument("--json", action="store_true")
    add_setup_options(chunks)

    prompt = sub.add_parser("prompt", help="the prompt a model would receive")
    prompt.add_argument("corpus")
    prompt.add_argument("query")
    prompt.add_argument("--json", action="store_true")
    add_setup_options(prompt)

    index = sub.add_parser("index", help="analyse a corpus now and keep its term index for next time")
    index.add_argument("corpus")
    add_setup_options(index)

    from ranklens.cli.relevance import add_parsers as add_relevance_parsers  # plain argparse: cheap

    add_relevance_parsers(sub)
    from ranklens.cli.backend import add_parsers as add_backend_parsers  # plain argparse: cheap

    add_backend_parsers(sub)  # push, and --backend on the commands above that rank
    return parser


def _tui_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ranklens", description="Open the TUI on CORPUS (default: studio-alfa). "
                     f"Subcommands: {', '.join(COMMANDS)} (ranklens COMMAND --help).")
    parser.add_argument("corpus", nargs="?", default="studio-alfa")
    add_setup_options(parser)
    from ranklens.cli.backend import add_backend_options  # plain argparse: cheap

    add_backend_options(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            args = build_parser().parse_args(argv)
            return _run(args)
        if argv and argv[0] in ("-h", "--help"):
            _tui_parser().print_help()
            return 0
        if argv and not argv[0].startswith("-"):
            _check_corpus_or_command(argv[0])
        args = _tui_parser().parse_args(argv)
        from ranklens.cli.backend import open_backend

        overrides = setup_overrides(args)
        backend = open_backend(args, overrides)  # an unreachable server or unknown collection: said before the TUI
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


def terminal_text(text: str, keep_newlines: bool = False) -> str:
    """Untrusted text (documents, ids, paths, queries) for a terminal.

    Control characters are made visible, never sent raw; lone surrogates
    (undecodable bytes in arguments and file names) become U+FFFD, since
    standard output cannot encode them. Without ``keep_newlines`` the text is
    one line.
    """
    from ranklens.engine.loaders import valid_unicode
    from ranklens.engine.visible import clean

    return valid_unicode(clean(text, keep_newlines))


def _run(args: argparse.Namespace) -> int:
    from ranklens.cli import backend

    if args.command in RELEVANCE_COMMANDS:
        from ranklens.cli import relevance as cli_commands
    else:
        from ranklens.cli import commands as cli_commands  # type: ignore[no-redef]

    run = backend.run_push if args.command == "push" else getattr(cli_commands, f"run_{args.command}")
    overrides = setup_overrides(args) if args.command not in ("corpora", "chunk") else {}
    with backend.backend_for(args, overrides):  # --backend: the command's workbenches rank through it
        return run(args, overrides)


if __name__ == "__main__":
    sys.exit(main())
