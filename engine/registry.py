"""Named entries kept in registration order: the one mechanism behind the scorer, backend and metric tables.

Each table (``scoring/registry.py``, ``backends/registry.py``, ``metric_table.py``) is a ``Registry`` of
its specs; a plug-in adds one with ``register``, a test for the length of a ``with registered(...)``.

A table with an entry-point ``group`` (``ranklens.scorers``, ``ranklens.backends``,
``ranklens.measures``; the index kinds' ``ranklens.indexes`` in ``ann/knobs.py``) also takes
the specs that installed packages declare there: each entry point names a spec
(``coord = "my_package.scoring:SPEC"``). They are loaded on the table's first lookup, not at
import, so starting ranklens costs only that scan without plug-ins.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from ranklens.engine.errors import RanklensError

T = TypeVar("T")


def plugin_entries(group: str) -> list[Any]:
    """What the installed distributions' entry points of ``group`` name, each loaded; one that does not
    load is a ``RanklensError`` naming it (a broken plug-in is one line, never a traceback)."""
    from importlib.metadata import entry_points

    loaded = []
    for point in entry_points(group=group):
        try:
            loaded.append(point.load())
        except Exception as error:
            raise RanklensError(f"plug-in {point.name} = {point.value!r} ({group}) does not load: "
                                f"{type(error).__name__}: {error}") from None
    return loaded


class Registry(Generic[T]):
    """Entries of one kind (``what``: "scorer", "backend", "eval metric"), each under the name ``key`` gives it."""

    def __init__(self, what: str, key: Callable[[T], str], group: str | None = None) -> None:
        self.what = what
        self._key = key
        self._entries: dict[str, T] = {}
        self.group = group  # the entry-point group plug-ins declare their specs in
        self._plugins_loaded = group is None

    def _load_plugins(self) -> None:
        """Register the specs of the ``group`` entry points of the installed packages, once."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        for entry in plugin_entries(self.group or ""):
            if self._entries.get(self._key(entry)) is not entry:
                self.register(entry)

    def register(self, entry: T) -> T:
        name = self._key(entry)
        if name in self._entries:
            raise ValueError(f"{self.what} {name!r} is registered already")
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        del self._entries[name]

    @contextmanager
    def registered(self, entry: T) -> Iterator[T]:
        """``entry`` known for the duration of a ``with`` block (plug-ins trying themselves out, tests)."""
        self.register(entry)
        try:
            yield entry
        finally:
            self.unregister(self._key(entry))

    def get(self, name: str) -> T:
        """The entry named ``name``; ValueError ("unknown scorer 'x'") when there is none."""
        self._load_plugins()
        try:
            return self._entries[name]
        except KeyError:
            raise ValueError(f"unknown {self.what} {name!r}") from None

    def names(self) -> tuple[str, ...]:
        self._load_plugins()
        return tuple(self._entries)

    def entries(self) -> tuple[T, ...]:
        """Every entry, in registration order (the plug-ins' after the built-in ones)."""
        self._load_plugins()
        return tuple(self._entries.values())
