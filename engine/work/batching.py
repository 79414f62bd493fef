"""Batches paced by the clock: long loops report progress, and can be stopped, a few times a second.

A fixed batch is either too small for a fast model (reporting costs throughput)
or too large for a slow one (the first report comes after seconds, and so does
a cancellation). ``paced`` starts small and sizes each batch after how long the
last one took.
"""
from __future__ import annotations

import time
from collections.abc import Iterator

PACE_S = 0.25  # what a batch should take


def paced(total: int, first: int, largest: int, seconds: float = PACE_S) -> Iterator[slice]:
    """Consecutive slices of ``range(total)``: the first ``first`` long, each next one sized so that
    processing it (the time until the next slice is asked for) takes about ``seconds``.

    A batch at most halves or doubles from one to the next, so one slow item does not
    collapse the pace, and never exceeds ``largest``.
    """
    done, size = 0, max(1, min(first, largest))
    while done < total:
        batch = slice(done, min(done + size, total))
        started = time.perf_counter()
        yield batch
        took = time.perf_counter() - started
        n = batch.stop - batch.start
        done = batch.stop
        wanted = round(n * seconds / max(took, 1e-6))
        size = max(1, min(largest, 2 * n, max(n // 2, wanted)))
