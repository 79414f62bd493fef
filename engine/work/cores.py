"""The cores this process may use, and work split between threads where numpy releases the GIL."""
from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else all of them)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def in_parts(total: int, step: int, work: Callable[[int, int], None], threads: int | None = None) -> None:
    """``work(start, stop)`` over ``range(total)`` cut into one contiguous part per thread (a thread per
    usable core by default), each part a multiple of ``step`` long: a loop of numpy calls on large
    arrays, which release the GIL, runs about twice as fast on two cores. ``work`` must write only
    its part; fewer than two steps run here, with no thread."""
    threads = max(1, min(usable_cores() if threads is None else threads, -(-total // step)))
    if threads == 1:
        work(0, total)
        return
    size = -(-total // (threads * step)) * step
    bounds = [(start, min(start + size, total)) for start in range(0, total, size)]
    with ThreadPoolExecutor(len(bounds), thread_name_prefix="ranklens-part") as pool:
        for done in [pool.submit(work, start, stop) for start, stop in bounds]:
            done.result()  # a part's error raised here
