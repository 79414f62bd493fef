"""The app's garbage-collector policy: what finished work has built is frozen, so collections skip it.

CPython's full collection walks every object it tracks, holding the GIL, and a
100,000-chunk corpus with its cached chunkings and indexes is millions of
objects: collections set off by a worker's allocations held the GIL for up to
0.85 s during a chunking sweep, and the screen froze with them. What a
finished stage of work has built lives as long as the corpus (the workbench
caches it), so it is moved out of the collector's sight with ``gc.freeze``:
at a corpus opened, an index built, and each stage of a long job.

Young garbage is collected first (a cheap, partial collection), so little
garbage is frozen along; reference counting still frees frozen objects. The
price: a reference cycle that was old garbage at a freeze waits for the next
corpus, which unfreezes everything so that one full collection reclaims it.
"""
from __future__ import annotations

import gc


def keep_built() -> None:
    """Freeze every object alive now: called from workers when a stage of work is done."""
    gc.collect(1)
    gc.freeze()


def release_kept() -> None:
    """Hand every frozen object back to the collector: called when the corpus they belong to goes."""
    gc.unfreeze()
