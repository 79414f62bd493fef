"""Seed 004's IVF table the way the seed builds it (one index, then each n_probe), for the IVF tests.

The command line's ``ivf`` goes through ``engine/experiments/indexes.index_sweep``; these two are the
tests' shorter path to the same rows (``measure_knob``), kept out of the engine since only tests call them.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.engine.ann.ivf import IVFIndex
from ranklens.engine.ann.sweep import SweepRow, measure_knob
from ranklens.engine.work.progress import Progress, no_progress


def sweep(V: np.ndarray, Q: np.ndarray, cells: int, probes: Sequence[int], k: int = 10,
          progress: Progress = no_progress) -> list[SweepRow]:
    """Seed 004's table: one IVF index over V, then compared vectors, recall@k and time per n_probe."""
    IVFIndex.check_settings(cells, list(probes))
    progress(0, len(probes), f"k-means, {cells} cells")
    index = IVFIndex.build(V, cells)
    rows = []
    for i, row in enumerate(measure_knob(index, V, Q, probes, k)):
        rows.append(row)
        progress(i + 1, len(probes), f"n_probe {row.value}")
    return rows


def sweep_to_dict(rows: Sequence[SweepRow]) -> dict[str, Any]:
    """The ivf JSON shape of the command line contract: ``{"rows": [...]}``."""
    return {"rows": [r.to_dict() for r in rows]}
