"""The ``ranklens`` command: the TUI by default, the engine headless with a subcommand.

Bad input exits with status 2 and one line on stderr, never a traceback.
Imports stay inside the commands so that ``ranklens`` paints its first
screen before numpy, scipy or scikit-learn are loaded.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

# engine.setup is plain Python (no numpy): cheap enough to import before the TUI paints
from ranklens.engine.setup import BM25_VARIANTS, LANGUAGES, SCORERS

COMMANDS = ("corpora", "search", "eval", "threshold", "chunk", "ivf", "prompt", "index")


class UsageError(Exception):
    """An option or argument the parser rejected."""


class _Parser(argparse.ArgumentParser):
    # argparse prints usage and exits on its own; we want one line and status 2 from main()
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _int_at_least(name: str, low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number (got {text!r})")
        if value < low:
            raise argparse.ArgumentTypeError(f"{name} must be at least {low} (got {value})")
        return value

    return parse


def _float_between(name: str, low: float, high: float = math.inf) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {text!r})")
        # float() also accepts "nan" and "inf", which would make every score nan or 0
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be a finite number (got {text!r})")
        if not low <= value <= high:
            bound = "0 or more" if high == math.inf else f"between {low:g} and {high:g}"
            raise argparse.ArgumentTypeError(f"{name} must be {bound} (got {text})")
        return value

    return parse


def _stopwords(text: str) -> str:
    # Checked here, not when the index is built, so the message names the option.
    if text in ("none", *LANGUAGES) or Path(text).is_file():
        return text
    raise argparse.ArgumentTypeError(
        f"--stopwords: {text!r} is neither none, a language ({', '.join(LANGUAGES)}) nor a file"
    )


def _probes(text: str) -> list[int]:
    try:
        values = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--probes takes whole numbers separated by commas (got {text!r})")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"--probes values must be at least 1 (got {text!r})")
    return values


def _add_setup_options(parser: argparse.ArgumentParser, with_k: bool = True) -> None:
    group = parser.add_argument_group("setup (defaults from the corpus' ranklens.toml)")
    if with_k:
        group.add_argument("-k", type=_int_at_least("-k", 1), help="results per query (default 5)")
    group.add_argument("--scorer", choices=SCORERS)
    group.add_argument("--stopwords", metavar="LANG|FILE|none", type=_stopwords,
                       help="stop words: it, en, es, a file, or none")
    group.add_argument("--stem", metavar="LANG|none", choices=("none", *LANGUAGES),
                       help="Snowball stemming: it, en, es or none")
    group.add_argument("--sublinear-tf", action="store_true", default=None, help="TF-IDF with 1+ln(tf)")
    group.add_argument("--fold-accents", action="store_true", default=None, help="strip accents before matching")
    group.add_argument("--k1", type=_float_between("--k1", 0), help="BM25 k1 (default 1.2)")
    group.add_argument("--b", type=_float_between("--b", 0, 1), help="BM25 b (default 0.75)")
    group.add_argument("--delta", type=_float_between("--delta", 0), help="BM25L/BM25+ delta (default 0.5)")
    group.add_argument("--bm25-variant", choices=BM25_VARIANTS)
    group.add_argument("--dims", type=_int_at_least("--dims", 1), help="LSA dimensions (default 100)")
    group.add_argument("--fuse", metavar="A,B", help="scorers fused by --scorer fusion (default bm25,lsa)")
    group.add_argument("--fusion-method", choices=("rrf", "sum"))
    group.add_argument("--size", type=_int_at_least("--size", 1), help="re-chunk documents: words per chunk")
    group.add_argument("--overlap", type=_int_at_least("--overlap", 0), help="words shared by consecutive chunks")
    group.add_argument("--sentences", action="store_true", help="chunk by whole sentences (--overlap in sentences)")


_SETUP_KEYS = ("k", "scorer", "stopwords", "stem", "sublinear_tf", "fold_accents", "k1", "b", "delta",
               "bm25_variant", "dims", "fuse", "fusion_method", "size", "overlap")


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    values = {key: getattr(args, key, None) for key in _SETUP_KEYS}
    if getattr(args, "sentences", False):
        values["chunker"] = "sentences"
    if values["overlap"] is not None and values["size"] is None:
        raise UsageError("ranklens: --overlap needs --size")
    return {key: value for key, value in values.items() if value is not None}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ranklens", description="A terminal workbench for the retrieval half of RAG.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    sub.add_parser("corpora", help="list bundled corpora")

    search = sub.add_parser("search", help="rank chunks for a query")
    search.add_argument("corpus")
    search.add_argument("query")
    search.add_argument("--explain", action="store_true", help="show how each score is made, term by term")
    search.add_argument("--json", action="store_true")
    _add_setup_options(search)

    evaluate = sub.add_parser("eval", help="hit@k, MRR, nDCG, recall on the corpus' questions")
    evaluate.add_argument("corpus")
    evaluate.add_argument("--json", action="store_true")
    _add_setup_options(evaluate)

    threshold = sub.add_parser("threshold", help="can a score threshold tell answerable questions apart?")
    threshold.add_argument("corpus")
    threshold.add_argument("--json", action="store_true")
    _add_setup_options(threshold)

    chunk = sub.add_parser("chunk", help="cut a text file into chunks")
    chunk.add_argument("file", help="a text file, or - for standard input")
    chunk.add_argument("--size", type=_int_at_least("--size", 1), required=True)
    chunk.add_argument("--overlap", type=_int_at_least("--overlap", 0), default=0)
    chunk.add_argument("--sentences", action="store_true", help="pack whole sentences (--overlap in sentences)")
    chunk.add_argument("--find", metavar="TEXT", help="is TEXT whole inside some chunk?")
    chunk.add_argument("--json", action="store_true")

    ivf = sub.add_parser("ivf", help="what an IVF index costs in recall")
    source = ivf.add_mutually_exclusive_group(required=True)
    source.add_argument("corpus", nargs="?", help="use the corpus' LSA vectors")
    source.add_argument("--synthetic", action="store_true", help="the lesson's 20,000 x 64 synthetic set")
    ivf.add_argument("--cells", type=_int_at_least("--cells", 1))
    ivf.add_argument("--probes", type=_probes)
    ivf.add_argument("--json", action="store_true")
    _add_setup_options(ivf, with_k=False)

    prompt = sub.add_parser("prompt", help="the prompt a model would receive")
    prompt.add_argument("corpus")
    prompt.add_argument("query")
    _add_setup_options(prompt)

    index = sub.add_parser("index", help="analyse a corpus now and keep its term index for next time")
    index.add_argument("corpus")
    _add_setup_options(index)
    return parser


def _tui_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ranklens", description="Open the TUI on CORPUS (default: studio-alfa). "
                     f"Subcommands: {', '.join(COMMANDS)} (ranklens COMMAND --help).")
    parser.add_argument("corpus", nargs="?", default="studio-alfa")
    _add_setup_options(parser)
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
        args = _tui_parser().parse_args(argv)
        from ranklens.tui.app import run_app

        run_app(args.corpus, _overrides(args))
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
            return _fail(f"ranklens: {error}")
        raise


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
    from ranklens.cli import commands as cli_commands

    return getattr(cli_commands, f"run_{args.command}")(args, _overrides(args) if args.command not in (
        "corpora", "chunk") else {})


if __name__ == "__main__":
    sys.exit(main())
