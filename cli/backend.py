"""Backends on the command line: ``ranklens push`` and ``--backend``/``--collection``.

``add_push`` adds ``push``'s parser and ``add_backend_options`` the backend
options of the commands that rank; ``backend_for`` runs one command with its
workbenches ranking through the collection. Backends are found by the target's
scheme in ``engine/backends/registry.py``: none is named here, and a backend's
module (and its extra, qdrant-client) is imported only when one is asked for.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ranklens.cli.options import UsageError, add_setup_options, int_at_least
from ranklens.engine.backends.registry import backend_specs, spec_for, targets_metavar

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Retriever, Workbench

def _labels() -> str:
    return " or ".join(spec.label for spec in backend_specs())


def add_push(sub: Any) -> None:
    push = sub.add_parser("push", help=f"upload a corpus' chunks as BM25 vectors into a {_labels()} collection")
    push.add_argument("corpus")
    push.add_argument("--to", required=True, metavar=targets_metavar(),
                      help="; or ".join(spec.locations + (f"; {spec.credentials}" if spec.credentials else "")
                                        for spec in backend_specs()))
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


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """``--backend``/``--collection``: on the commands that rank, and on the TUI's own command line."""
    extras = [f"the {spec.extra} extra" for spec in backend_specs() if spec.extra]
    group = parser.add_argument_group("backend" + (f" ({' or '.join(extras)})" if extras else ""))
    credentials = "; ".join(f"{spec.label}: {spec.credentials}" for spec in backend_specs() if spec.credentials)
    group.add_argument("--backend", metavar=targets_metavar(),
                       help="rank through a collection made by `ranklens push`, or your own retriever (a Python "
                            "function or an HTTP endpoint: docs/retrievers.md)"
                            + (f" ({credentials})" if credentials else ""))
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
    backend = spec_for(target)
    _scorer_allowed(overrides, backend.ranks, backend.ranks_what)
    return backend.open_collection(target, args.collection)


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
        tell_report(backend)  # after the results; a command that failed says its one line alone


def tell_report(backend: Backend) -> None:
    """What a backend found while the command ran (questions that failed, hits the corpus cannot place)."""
    from ranklens.cli.output import tell

    for line in getattr(backend, "report", list)():  # optional (``base.Backend``)
        tell("warning", line)


def run_push(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.cli.output import TerminalProgress, print_json, say, tell
    from ranklens.cli.setup_args import workbench

    backend = spec_for(args.to)  # a mistyped location, a refused option, a missing extra: before indexing
    _scorer_allowed(overrides, backend.pushes, backend.pushes_what)
    if args.dense and not backend.pushes_dense:
        raise UsageError(f"ranklens: --dense: {backend.pushes_what}, no dense ones")
    backend.require()
    push = backend.pusher()
    bench, setup, _ = workbench(args, {**overrides, "scorer": backend.pushes[0]})
    with TerminalProgress() as progress:
        retriever = bench.retriever(setup, progress)
        dense = bench.retriever(setup.replace(scorer="dense"), progress) if args.dense else None
    for note in dense.notes if dense else ():
        tell("note", note)
    with TerminalProgress() as progress:
        report = push(retriever, args.to, args.collection, args.replace, progress, args.batch,
                      dense=dense.scorer if dense else None)  # type: ignore[arg-type]
    if args.json:
        return print_json({**report.to_dict(), "setup": retriever.setup.to_dict()})
    replaced = f" (replacing {report.replaced})" if report.replaced else ""
    vectors = f" and dense {setup.model}" if dense else ""
    say(f"pushed {report.chunks} chunks of {retriever.corpus.name} ({retriever.setup.describe()}{vectors}) to "
         f"{report.target} collection {report.collection} = {report.physical}{replaced} in {report.seconds:.2f} s")
    return 0


def backend_side(spec: str, corpus: Corpus, workbench: Workbench) -> RunSide | None:
    """The run of every question through the backend ``spec`` names (``compare C bm25 endpoint:search.toml``),
    labelled ``spec``; None when ``spec`` names no backend."""
    if not any(backend.accepts(spec) for backend in backend_specs()):
        return None
    from ranklens.cli.output import TerminalProgress
    from ranklens.cli.sides import run_setup
    from ranklens.engine.backends.base import attached
    from ranklens.engine.comparing.two_runs import setup_side

    with attached(spec_for(spec).open_collection(spec)) as backend:
        try:
            with TerminalProgress() as progress:
                return setup_side(spec, workbench.with_backend(backend), run_setup(corpus, {}), progress)
        finally:
            tell_report(backend)


def failed_questions(retriever: Retriever) -> dict[str, Any]:
    """``{"failed": {question id: why}}`` for eval's JSON when the retriever's backend failed on questions
    (the user's own retriever), else nothing."""
    failed = getattr(getattr(retriever.scorer, "backend", None), "failed", None)
    if not failed:
        return {}
    return {"failed": {q.id: failed[q.text].describe() for q in retriever.corpus.answerable if q.text in failed}}
