"""Every external engine ranklens can rank through, by the scheme of its target ("qdrant:PATH", "https://...").

A spec says how to open a target's collection and how to push a corpus into
one, which scorers it can rank by and push, how messages and help name it,
and which extra it needs. The command line (``--backend``, ``push``) and the
TUI (opening a collection) look backends up here and import none by name. A
new backend is one module (or package) in ``engine/backends/`` with an open
and a push function, plus one ``register`` line below.

Importing this module is cheap: a backend's module is imported when it is
first opened or pushed to, and its extra (qdrant-edge-py, qdrant-client) only
then; without the extra that is one line naming the pip command.
"""
from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ranklens.engine.errors import RanklensError
from ranklens.engine.registry import Registry

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend, Push


@dataclass(frozen=True)
class BackendSpec:
    name: str  # the registry's key: "qdrant"
    label: str  # how messages and the TUI name it: "Qdrant"
    schemes: tuple[str, ...]  # what its targets start with, followed by at least one character
    metavar: str  # its targets in help: "qdrant:PATH|URL"
    locations: str  # its targets in words: "qdrant:PATH (a local folder ...) or http(s)://HOST:PORT (a server)"
    # "module:function" (``module:Class.method`` too), imported when first used: ``open(target, collection)``
    # returns a ``Backend`` (collection None: the corpus' name, read when a retriever is first checked);
    # ``push`` follows ``base.Push``
    open: str
    push: str | None = None
    ranks: tuple[str, ...] = ("bm25",)  # scorers a collection may rank by (the first: the one it always can)
    ranks_what: str = "a collection ranks by BM25"  # said when --scorer names another
    pushes: tuple[str, ...] = ("bm25",)  # scorers whose vectors a push puts there (the first is pushed)
    pushes_what: str = "a collection holds BM25 vectors"
    pushes_dense: bool = False  # a push may add each chunk's dense vector (``push --dense``)
    credentials: str = ""  # where a secret comes from, for help: "the API key is read from $QDRANT_API_KEY"
    extra: str | None = None  # the optional dependencies it needs: pip install 'ranklens[EXTRA]'
    requires: tuple[str, ...] = ()  # the modules that extra installs, looked for (not imported) to check for it
    named: bool = True  # a target holds collections by name (--collection); the user's own retriever does not
    # the user's own retriever as a file of the workspace's retrievers/ folder: its suffix, and its target with
    # the file's path for {path} ("endpoint:{path}")
    file: tuple[str, str] | None = None

    def accepts(self, target: str) -> bool:
        """Whether ``target`` names one of this backend's collections (its scheme and something after it)."""
        return any(target.startswith(scheme) and len(target) > len(scheme) for scheme in self.schemes)

    def require(self) -> None:
        """Raise RanklensError, naming the pip command, unless the extra this backend needs is installed."""
        # found, not imported: qdrant_client alone takes seconds to import, and the Edge path never needs it
        if not all(_installed(module) for module in self.requires):
            raise RanklensError(f"the {self.label} backend needs the {self.extra} extra: "
                                f"pip install 'ranklens[{self.extra}]'")

    def opener(self) -> Callable[[str, str | None], Backend]:
        return _resolve(self.open)

    def open_collection(self, target: str, collection: str | None = None) -> Backend:
        """The collection at ``target``, opened (this backend's extra checked first)."""
        self.require()
        return self.opener()(target, collection)

    def pusher(self) -> Push:
        if self.push is None:
            raise RanklensError(f"the {self.label} backend cannot be pushed to")
        return _resolve(self.push)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module set to None in sys.modules
        return False


def _resolve(path: str) -> Any:
    module, attribute = path.split(":")
    return reduce(getattr, attribute.split("."), cast(Any, importlib.import_module(module)))


BACKENDS: Registry[BackendSpec] = Registry("backend", lambda s: s.name, "ranklens.backends")
register, unregister, registered = BACKENDS.register, BACKENDS.unregister, BACKENDS.registered
backend_specs, backend_spec = BACKENDS.entries, BACKENDS.get


def spec_for(target: str) -> BackendSpec:
    """The backend ``target`` names by its scheme; RanklensError naming every known location otherwise."""
    for spec_ in BACKENDS.entries():
        if spec_.accepts(target):
            return spec_
    raise not_a_location(target)


def not_a_location(target: str) -> RanklensError:
    specs = backend_specs()
    return RanklensError(f"{target!r} is not a {' or '.join(s.label for s in specs)} location: "
                         f"give {' or '.join(s.locations for s in specs)}")


def targets_metavar() -> str:
    """Every backend's targets, for help: "qdrant:PATH|URL"."""
    return "|".join(s.metavar for s in backend_specs())


def retrievers_in(folder: Path) -> list[str]:
    """The targets of the retrievers kept as files in ``folder`` (a workspace's retrievers/), by name; none
    when it does not exist."""
    by_suffix = {spec_.file[0]: spec_.file[1] for spec_ in BACKENDS.entries() if spec_.file is not None}
    try:
        files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in by_suffix)
    except OSError:
        return []
    return [by_suffix[p.suffix].format(path=p) for p in files]


def open_target(target: str, collection: str | None = None) -> Backend:
    """The collection at ``target`` (its backend found by scheme), opened: what ``--backend`` and the TUI's
    "Open a collection" call. Bad input, a missing extra, an unreachable engine: RanklensError, one line."""
    return spec_for(target).open_collection(target, collection)


register(BackendSpec(
    "qdrant", "Qdrant", ("qdrant:", "http://", "https://"), "qdrant:PATH|URL",
    "qdrant:PATH (a local folder of Qdrant Edge shards) or http(s)://HOST:PORT (a server)",
    open="ranklens.engine.backends.qdrant:open_collection",
    push="ranklens.engine.backends.qdrant:push",
    ranks=("bm25", "dense", "fusion"),
    ranks_what="a collection ranks by BM25 lucene, its dense vectors or their fusion",
    pushes=("bm25",), pushes_what="a collection holds BM25 lucene vectors (and dense ones with --dense)",
    pushes_dense=True, credentials="the API key is read from $QDRANT_API_KEY",
    extra="qdrant", requires=("qdrant_edge", "qdrant_client")))
# the local scorers that explain the hits of the user's own retriever (one of them is always built)
EXPLAINERS = ("bm25", "tfidf")
register(BackendSpec(
    "python", "Python function", ("python:",), "python:MODULE:FUNCTION",
    "python:MODULE:FUNCTION (your retriever as FUNCTION(query, k) of a module or a path/to/file.py)",
    open="ranklens.engine.backends.python_function:open_function", named=False, file=(".py", "python:{path}:search"),
    ranks=EXPLAINERS, ranks_what="your function ranks by itself (BM25 or TF-IDF explains its hits)"))
register(BackendSpec(
    "endpoint", "HTTP endpoint", ("endpoint:",), "endpoint:FILE.toml",
    "endpoint:FILE.toml (your retriever's HTTP service, and how to ask it and read its answers)",
    open="ranklens.engine.backends.endpoint:open_endpoint", named=False, file=(".toml", "endpoint:{path}"),
    ranks=EXPLAINERS, ranks_what="your endpoint ranks by itself (BM25 or TF-IDF explains its hits)",
    credentials="header values may name ${VAR}s of the environment"))
