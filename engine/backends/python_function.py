"""``--backend python:MODULE:FUNCTION``: the user's retriever as a Python function.

``FUNCTION(query: str, k: int)`` returns the query's hits best first, each a
dict ``{"id": str, "score": float}`` (an optional ``"text"`` lets ranklens
place a hit whose id the corpus does not know) or an ``(id, score)`` pair.
``MODULE`` is a module's dotted name (looked for on the import path, then in
the current folder) or the path of a ``.py`` file. The function is called one
question at a time, never from two threads at once (the TUI's workers search
together): it may hold a model or a client that is not safe to share.
"""
from __future__ import annotations

import contextvars
import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ranklens.engine.backends.own_retriever import Failure, Hit, OwnRetriever, ShapeError, excerpt, hit_of
from ranklens.engine.errors import RanklensError

SCHEME = "python:"


class PythonFunction(OwnRetriever):
    def __init__(self, name: str, function: Callable[[str, int], Any], where: str) -> None:
        super().__init__(name)
        self.function = function
        self.where = where  # the module's file, for the sidecar
        self._calling = threading.Lock()  # the TUI's workers search at once: the function is never called so

    @property
    def source(self) -> str:
        return self.where

    def ask(self, texts: Sequence[str], k: int) -> list[list[Hit] | Failure]:
        with self._calling:
            return [self._call(text, k) for text in texts]

    def _call(self, text: str, k: int) -> list[Hit] | Failure:
        try:
            # in a context of its own: a function that itself ranks with ranklens must not rank through itself
            value = contextvars.Context().run(self.function, text, k)
        except Exception as error:  # the user's code: any failure is that question's, reported with it
            return Failure(type(error).__name__, excerpt(str(error)), fatal=True)
        if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
            raise ShapeError(f"{self.name} returned {type(value).__name__}, not a list of hits")
        return [hit_of(hit, f"{self.name}: hit {number} of {text!r}") for number, hit in enumerate(value, 1)]


def open_function(target: str, collection: str | None = None) -> PythonFunction:
    """The function ``python:MODULE:FUNCTION`` names, imported; one line naming what is wrong otherwise."""
    if collection is not None:
        raise RanklensError(f"{target}: --collection is for a collection; a function has none")
    rest = target.removeprefix(SCHEME)
    module_name, _, function_name = rest.rpartition(":")
    if not module_name or not function_name:
        raise RanklensError(f"{target!r}: give python:MODULE:FUNCTION (MODULE a module or a path/to/file.py)")
    module = _module(target, module_name)
    function = getattr(module, function_name, None)
    if function is None:
        raise RanklensError(f"{target}: module {module_name!r} has no {function_name!r}")
    if not callable(function):
        raise RanklensError(f"{target}: {function_name!r} is {type(function).__name__}, not a function")
    name = f"{SCHEME}{Path(module_name).name}:{function_name}" if module_name.endswith(".py") else target
    return PythonFunction(name, function, getattr(module, "__file__", None) or module_name)


def _module(target: str, name: str) -> Any:
    """The module ``name`` (a dotted name or a ``.py`` file), imported; its own errors as one line."""
    path = Path(name)
    try:
        if name.endswith(".py"):
            if not path.is_file():
                raise RanklensError(f"{target}: no file {name!r}")
            spec = importlib.util.spec_from_file_location(f"ranklens_retriever_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise RanklensError(f"{target}: {name!r} cannot be imported")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name.split(".")[0] or str(Path.cwd()) in sys.path:
                raise
        sys.path.insert(0, str(Path.cwd()))  # `ranklens` as a console script has no current folder on its path
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(str(Path.cwd()))
    except RanklensError:
        raise
    except ModuleNotFoundError as error:
        raise RanklensError(f"{target}: no module named {error.name!r}") from None
    except Exception as error:  # the user's module failing as it is imported (a SyntaxError included)
        raise RanklensError(f"{target}: importing {name!r} failed: {type(error).__name__}: "
                            f"{excerpt(str(error))}") from None
