"""Each approximate index over the same vectors and settings built once per test process.

The synthetic set's IVF (k-means, 100 cells) and HNSW graphs cost seconds of CPU each, and the seed's numbers
are checked on them through the command line, the engine's sweep, the tests' own sweep and the Index tab. A test
that asks for ``shared_builds`` (or a fixture inside ``shared_index_builds()``) gets, from ``IVFIndex.build`` and
``HNSWIndex.build``, the index an earlier test of the process built from equal vectors and settings; the first
build is a real one, by the code under test. Only tests that ask share: a test of a build itself (its progress,
its cancelling, two builds being equal) still builds. Searching leaves an index as it was (HNSW's ef_search is
set on each search), so a shared index answers every test alike. The tests that share carry ``SHARED``, one
xdist group, so one worker builds each index once.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from ranklens.engine.ann.base import VectorIndex
from ranklens.engine.ann.hnsw import HNSWIndex  # usearch itself is imported by a build
from ranklens.engine.ann.ivf import IVFIndex
from ranklens.engine.work.progress import Progress, no_progress

SHARED = pytest.mark.xdist_group("synthetic-ann-indexes")

_built: dict[tuple, VectorIndex] = {}


def _sharing(kind: type[VectorIndex]) -> classmethod:
    build = kind.__dict__["build"].__func__

    def shared(cls: type[VectorIndex], vectors: np.ndarray, param: int | None = None, *,
               progress: Progress = no_progress, **settings: Any) -> Any:
        settings.setdefault("seed", 0)
        data = np.ascontiguousarray(vectors)
        key = (kind.__name__, data.shape, data.dtype.str, hashlib.sha1(data.tobytes()).hexdigest(), param,
               tuple(sorted(settings.items())))
        if key not in _built:  # progress is reported by the first build only
            _built[key] = build(cls, vectors, param, progress=progress, **settings)
        return _built[key]

    return classmethod(shared)


@contextmanager
def shared_index_builds() -> Iterator[None]:
    """Inside: the IVF and HNSW builds of equal vectors and settings are the process' first one."""
    with pytest.MonkeyPatch.context() as patch:
        for kind in (IVFIndex, HNSWIndex):
            patch.setattr(kind, "build", _sharing(kind))
        yield


@pytest.fixture
def shared_builds() -> Iterator[None]:
    with shared_index_builds():
        yield
