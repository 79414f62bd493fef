"""The cyclic garbage collector paused while millions of objects without cycles are made."""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector off inside the block, and on again after it if it was on before.

    Making millions of objects that hold no cycles (parsed records, chunks, token lists)
    makes the collector scan the growing heap over and over: a third of the time of a
    large load or analysis, for no garbage found. Threads that pause it at once leave it
    on once the first that found it on is done.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
