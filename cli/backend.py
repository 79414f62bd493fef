"""The Qdrant backend on the command line: ``ranklens push`` and ``--backend``/``--collection``.

``add_parsers`` (called by ``cli/main.py``) adds ``push`` and the backend
options of the commands that rank; ``backend_for`` runs one command with its
workbenches ranking through the collection. qdrant_client is imported only
when a backend is asked for.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ranklens.cli.options import UsageError, add_setup_options, int_at_least

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend

# the commands whose ranking may come from a collection (compare-scorers and the experiments build every
# scorer locally: they have no --backend)
BACKEND_COMMANDS = ("search", "eval", "threshold", "prompt", "run", "compare", "why")
TARGET = "qdrant:PATH|URL"


def add_parsers(sub: Any) -> None:
    """``push``, and ``--backend``/``--collection`` on the commands that rank (added after theirs)."""
    push = sub.add_parser("push", help="upload a corpus' chunks as BM25 vectors into a Qdrant collection")
    push.add_argument("corpus")
    push.add_argument("--to", required=True, metavar=TARGET,
                      help="a local folder (qdrant:PATH, no server) or a Qdrant server's URL; the API key is read "
                           "from $QDRANT_API_KEY")
    push.add_argument("--collection", metavar="NAME", help="the collection's name (default: the corpus' name)")
    push.add_argument("--replace", action="store_true",
                      help="replace an existing collection of that name (the old one answers until the new one "
                           "is whole)")
    push.add_argument("--dense", action="store_true",
                      help="also push each chunk's dense vector, encoded with --model (the neural extra)")
    push.add_argument("--batch", type=int_at_least("--batch", 1), default=256, metavar="N",
                      help="chunks per upload request (default 256)")
    push.add_argument("--json", action="store_true")
    add_setup_options(push, with_k=False)
    for name in BACKEND_COMMANDS:
        add_backend_options(sub.choices[name])


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """``--backend``/``--collection``: on the commands that rank, and on the TUI's own command line."""
    group = parser.add_argument_group("backend (the qdrant extra)")
    group.add_argument("--backend", metavar=TARGET,
                       help="rank through a collection made by `ranklens push` (API key from $QDRANT_API_KEY)")
    group.add_argument("--collection", metavar="NAME", help="the collection (default: the corpus' name)")


def _scorer_allowed(overrides: dict[str, Any], allowed: tuple[str, ...], what: str) -> None:
    if overrides.get("scorer", allowed[0]) not in allowed:
        raise UsageError(f"ranklens: --scorer {overrides['scorer']}: {what}; give --scorer "
                         f"{' or '.join(allowed)}, or none")


def open_backend(args: argparse.Namespace, overrides: dict[str, Any]) -> Backend | None:
    """The collection ``--backend`` names, opened (None without the option); bad input raises, as one line."""
    target = getattr(args, "backend", None)
    if target is None:
        if getattr(args, "collection", None) is not None and getattr(args, "command", None) != "push":
            raise UsageError("ranklens: --collection needs --backend")
        return None
    _scorer_allowed(overrides, ("bm25", "dense", "fusion"),
                    "a collection ranks by BM25 lucene, its dense vectors or their fusion")
    from ranklens.engine.backends.qdrant import QdrantBackend

    return QdrantBackend.open(target, args.collection)


@contextmanager
def backend_for(args: argparse.Namespace, overrides: dict[str, Any]) -> Iterator[None]:
    """Run the command inside: its workbenches rank through ``--backend``'s collection, when it names one."""
    backend = open_backend(args, overrides)
    if backend is None:
        yield
        return
    from ranklens.engine.backends.base import attached

    with attached(backend):
        yield


def run_push(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.cli.output import TerminalProgress as _TerminalProgress, print_json as _print_json
    from ranklens.cli.output import say as _say, tell as _tell
    from ranklens.cli.setup_args import workbench as _workbench
    from ranklens.engine.backends.qdrant import Target, push

    _scorer_allowed(overrides, ("bm25",), "a collection holds BM25 lucene vectors (and dense ones with --dense)")
    Target.parse(args.to)  # a mistyped location fails before the corpus is indexed
    workbench, setup = _workbench(args, {**overrides, "scorer": "bm25"})
    with _TerminalProgress() as progress:
        retriever = workbench.retriever(setup, progress)
        dense = workbench.retriever(setup.replace(scorer="dense"), progress) if args.dense else None
    for note in dense.notes if dense else ():
        _tell("note", note)
    with _TerminalProgress() as progress:
        report = push(retriever, args.to, args.collection, args.replace, progress, args.batch,
                      dense=dense.scorer if dense else None)  # type: ignore[arg-type]
    if args.json:
        return _print_json({**report.to_dict(), "setup": retriever.setup.to_dict()})
    replaced = f" (replacing {report.replaced})" if report.replaced else ""
    vectors = f" and dense {setup.model}" if dense else ""
    _say(f"pushed {report.chunks} chunks of {retriever.corpus.name} ({retriever.setup.describe()}{vectors}) to "
         f"{report.target} collection {report.collection} = {report.physical}{replaced} in {report.seconds:.2f} s")
    return 0
