"""An index kind written the way a plug-in author would: one class declaring its settings, registered by one line.

The scan index cuts the vectors into ``blocks`` runs of consecutive rows; a
query compares the rows of its first ``visit`` blocks only, so it finds what
exact search finds when it visits them all and less the fewer it visits.
Ranking a search (``--ann scan``), a query visits the first block only.
"""
from __future__ import annotations

from typing import Self

import numpy as np

from ranklens.engine.ann.base import Found, IndexSettingError, IndexStats, VectorIndex, check_k
from ranklens.engine.ann.exact import ExactIndex
from ranklens.engine.ann.knobs import IndexKnob
from ranklens.engine.work.progress import Progress, no_progress

DEFAULT_BLOCKS = 4


class ScanIndex(VectorIndex):
    kind = "scan"
    description = "the first blocks of rows only (a test's toy)"
    param = "blocks"
    knob = "visit"
    settings = (
        IndexKnob("blocks", "param", DEFAULT_BLOCKS, 1, "runs of rows the vectors are cut into"),
        IndexKnob("visit", "knob", None, 1, "blocks a query compares, the values swept (default 1… all)"),
    )

    def __init__(self, vectors: np.ndarray, blocks: int) -> None:
        self.vectors = vectors
        self.blocks = blocks

    @classmethod
    def check_settings(cls, param: int | None, knob_values: list[int] | None) -> None:
        for name, value in (("blocks", param), *(("visit", v) for v in knob_values or ())):
            if value is not None and value < 1:
                raise IndexSettingError(name, f"{{setting}} must be at least 1 (got {value})")
        if param is not None and any(v > param for v in knob_values or ()):
            raise IndexSettingError("visit", f"{{setting}} must be at most the {param} blocks")

    @classmethod
    def build(cls, vectors: np.ndarray, param: int | None = None, *, seed: int = 0,
              progress: Progress = no_progress) -> Self:
        return cls(vectors, DEFAULT_BLOCKS if param is None else param)

    def search(self, queries: np.ndarray, k: int, knob: int | None = None) -> Found:
        check_k(k)
        visit = self.blocks if knob is None else knob
        rows = -(-len(self.vectors) // self.blocks) * visit  # the rows of the first ``visit`` blocks
        found = ExactIndex(self.vectors[:rows]).search(queries, k)
        return Found(found.ids, found.scores, np.full(len(np.atleast_2d(queries)), min(rows, len(self.vectors))))

    def default_knob(self) -> int:
        return 1

    def knob_values(self) -> list[int]:
        return list(range(1, self.blocks + 1))

    @property
    def param_value(self) -> int:
        return self.blocks

    @property
    def stats(self) -> IndexStats:
        return IndexStats(0.0, self.vectors.nbytes)
