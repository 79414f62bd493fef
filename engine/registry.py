"""Named entries kept in registration order: the one mechanism behind the scorer, backend and metric tables.

Each table (``scoring/registry.py``, ``backends/registry.py``, ``metric_table.py``) is a ``Registry`` of
its specs; a plug-in adds one with ``register``, a test for the length of a ``with registered(...)``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries of one kind (``what``: "scorer", "backend", "eval metric"), each under the name ``key`` gives it."""

    def __init__(self, what: str, key: Callable[[T], str]) -> None:
        self.what = what
        self._key = key
        self._entries: dict[str, T] = {}

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
        try:
            return self._entries[name]
        except KeyError:
            raise ValueError(f"unknown {self.what} {name!r}") from None

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def entries(self) -> tuple[T, ...]:
        """Every entry, in registration order."""
        return tuple(self._entries.values())
