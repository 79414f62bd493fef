"""Progress reporting and cancellation for long work (indexing, evaluation, sweeps).

A ``Progress`` is any callable ``(done, total, label) -> None``; it may raise
``Cancelled`` to stop the work, which is how the TUI's workers cancel.
"""
from __future__ import annotations

from typing import Protocol
from collections.abc import Callable

from ranklens.engine.errors import Cancelled


class Progress(Protocol):
    def __call__(self, done: int, total: int, label: str) -> None: ...


def no_progress(done: int, total: int, label: str) -> None:
    """The default: report nothing, never cancel."""


def cancellable(report: Progress, is_cancelled: Callable[[], bool]) -> Progress:
    """Wrap ``report`` so that it raises ``Cancelled`` once ``is_cancelled()`` is true."""

    def progress(done: int, total: int, label: str) -> None:
        if is_cancelled():
            raise Cancelled(label)
        report(done, total, label)

    return progress


def chunks_per_s(per_s: float) -> str:
    """Chunks per second for a progress label, with the digits that matter at either end (a slow model
    makes 0.4/s, an index 50,000/s)."""
    return f"{per_s:,.0f} chunks/s" if per_s >= 10 else f"{per_s:.2g} chunks/s"
