"""A stand-in for a long engine job: it reports progress until its run is cancelled."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ranklens.engine.errors import Cancelled
from ranklens.engine.work.progress import Progress


def endless(label: str) -> tuple[Callable[..., Any], threading.Event]:
    """``(job, stopped)``: ``job(..., progress)`` reports ``(1, 2, label)`` every 10 ms and never
    returns; once the progress callback raises ``Cancelled`` it sets ``stopped`` and lets it through."""
    stopped = threading.Event()

    def job(*args: Any) -> Any:
        progress: Progress = args[-1]
        try:
            while True:
                progress(1, 2, label)
                threading.Event().wait(0.01)
        except Cancelled:
            stopped.set()
            raise

    return job, stopped


def held(job: Callable[..., Any]) -> tuple[Callable[..., Any], threading.Event]:
    """``(held_job, release)``: ``held_job(..., progress)`` reports progress (so Escape and newer runs
    cancel it) until ``release`` is set, then returns ``job(..., progress)``: an engine job that takes
    as long as the test says, as one does on a large corpus."""
    release = threading.Event()

    def held_job(*args: Any) -> Any:
        progress: Progress = args[-1]
        while not release.wait(0.01):
            progress(0, 1, "held")
        return job(*args)

    return held_job, release
