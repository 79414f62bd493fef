"""What an approximate index saves in comparisons and costs in recall, knob value by knob value.

Two sources of vectors: a corpus' own (its chunks, queried by its questions:
the dense model's vectors when the scorer is dense, else LSA's) or the
lesson's synthetic set (20,000 x 64, 200 queries), on which IVF with 100
cells reproduces seed 004's table.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ranklens.engine.errors import Cancelled
from ranklens.engine.experiments.common import stage
from ranklens.engine.work.progress import Progress, no_progress

if TYPE_CHECKING:  # numpy comes with these; importing this module must stay cheap
    from ranklens.engine.ann.base import IndexStats
    from ranklens.engine.ann.knobs import IndexKnob
    from ranklens.engine.ann.sweep import SweepRow
    from ranklens.engine.ann.vectors import VectorSet
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup


@dataclass(frozen=True)
class IndexSweep:
    source: str  # the vector set's name
    kind: str  # the index kind: "ivf"
    param: str | None  # its build parameter's name: "cells"
    param_value: int | None
    knob: str | None  # its search knob's name: "n_probe"
    vectors: int
    dims: int
    queries: int
    rows: tuple[SweepRow, ...]
    stats: IndexStats
    warnings: tuple[str, ...] = field(default=())
    complete: bool = True
    options: Mapping[str, int] = field(default_factory=dict)  # build settings beside param: ef_construction

    @property
    def built(self) -> dict[str, int | None]:
        """The settings the index was built with, by name: ``{"M": 16, "ef_construction": 128}``."""
        return {**({} if self.param is None else {self.param: self.param_value}), **self.options}

    def to_dict(self) -> dict[str, Any]:
        """The ivf JSON shape (``{"rows": [...]}``), with what was swept around it."""
        return {"source": self.source, "index": self.kind, **self.built, "knob": self.knob,
                "vectors": self.vectors, "dims": self.dims, "queries": self.queries, "build_s": self.stats.build_s,
                "index_bytes": self.stats.bytes, "warnings": list(self.warnings), "complete": self.complete,
                "rows": [r.to_dict() for r in self.rows]}


def ann_rows(sweeps: Sequence[IndexSweep]) -> list[dict[str, Any]]:
    """Every sweep's rows in one list, each naming its index and knob: the ann JSON's ``rows``."""
    return [{"index": s.kind, "knob": row.setting, **row.measures(), "build_s": s.stats.build_s,
             "index_bytes": s.stats.bytes} for s in sweeps for row in s.rows]


def synthetic_vectors() -> VectorSet:
    """The lesson's synthetic set (seed 004): 20,000 x 64, 200 queries, 50 topics."""
    from ranklens.engine.ann.vectors import synthetic_set

    return synthetic_set()


def vector_setup(setup: Setup) -> Setup:
    """The setup whose scorer gives a corpus its vectors: its own when it ranks every chunk by a cosine
    (LSA, dense), else LSA's."""
    from ranklens.engine.scoring.registry import spec

    return setup if spec(setup.scorer).ranks_all else setup.replace(scorer="lsa")


def corpus_vectors(workbench: Workbench, setup: Setup, progress: Progress = no_progress) -> VectorSet:
    """The corpus' chunk vectors under ``vector_setup(setup)``, queried by its questions."""
    from ranklens.engine.ann.vectors import corpus_set

    return corpus_set(workbench.retriever(vector_setup(setup), progress))


@dataclass(frozen=True)
class KindSettings:
    """What a sweep of one kind is asked for; None and empty mean the kind's defaults."""

    param: int | None = None  # IVF cells, HNSW M
    values: Sequence[int] | None = None  # the knob's values: n_probe, ef_search
    options: Mapping[str, int] = field(default_factory=dict)  # other build settings: ef_construction


def asked_settings(given: Iterable[tuple[str, IndexKnob, Any]]) -> dict[str, KindSettings]:
    """Each kind's ``KindSettings`` from values given to its declared settings (None: not given), as the
    command line's flags and the Index tab's boxes give them."""
    asked: dict[str, dict[str, Any]] = {}
    for kind, knob, value in given:
        if value is not None:
            asked.setdefault(kind, {})[knob.role if knob.role != "option" else knob.name] = value
    return {kind: KindSettings(values.pop("param", None), values.pop("knob", None), values)
            for kind, values in asked.items()}


def check_sweeps(kinds: Sequence[str], settings: Mapping[str, KindSettings]) -> None:
    """Reject unknown kinds and settings that cannot work, before any vector is computed."""
    from ranklens.engine.ann.registry import build_options, index_kind

    for kind in kinds:
        asked = settings.get(kind, KindSettings())
        index_kind(kind).check_settings(asked.param, None if asked.values is None else list(asked.values))
        build_options(kind, asked.options)


def index_sweeps(vectors: VectorSet, kinds: Sequence[str], settings: Mapping[str, KindSettings],
                 progress: Progress = no_progress) -> tuple[IndexSweep, ...]:
    """One ``index_sweep`` per kind over the same vectors, in order, each a stage of ``progress``."""
    sweeps = []
    for i, kind in enumerate(kinds):
        asked = settings.get(kind, KindSettings())
        sweeps.append(index_sweep(vectors, kind, asked.param, asked.values,
                                  progress=stage(progress, i, len(kinds), kind), options=asked.options))
    return tuple(sweeps)


def index_sweep(vectors: VectorSet, kind: str = "ivf", param: int | None = None,
                values: Sequence[int] | None = None, k: int = 10,
                progress: Progress = no_progress, options: Mapping[str, int] | None = None) -> IndexSweep:
    """Build one index of ``kind`` over the set and measure each knob value against exact search.

    ``param`` None: the kind's default for these vectors (IVF: the set's
    default cells); ``values`` None: the index's own ladder (IVF: 1, 2, 4, …
    all cells). Settings are checked before the build. When ``progress``
    raises ``Cancelled`` after the build, the values measured so far come
    back with ``complete`` False. ``options`` are the kind's other build
    settings by name (HNSW: ``ef_construction``), defaults for those missing.
    """
    from ranklens.engine.ann.registry import build_options, index_kind
    from ranklens.engine.ann.sweep import measure_knob

    index_class = index_kind(kind)
    chosen = list(values) if values is not None else None
    index_class.check_settings(param, chosen)
    built = build_options(kind, options)
    build = stage(progress, 0, 2, "build")
    build(0, 1, kind)
    index = index_class.build(vectors.vectors, param if param is not None else index_class.default_param(vectors),
                              progress=build, **built)
    measure = stage(progress, 1, 2, "search")
    planned = len(chosen) if chosen is not None else max(1, len(index.knob_values()))
    rows: list[SweepRow] = []
    complete = True
    try:
        measure(0, planned, "exact search")
        for row in measure_knob(index, vectors.vectors, vectors.queries, chosen, k):
            rows.append(row)
            measure(len(rows), planned, f"{row.knob} {row.value}" if row.knob else kind)
    except Cancelled:
        complete = False
    n, dims = vectors.vectors.shape
    return IndexSweep(vectors.name, kind, index_class.param, index.param_value, index_class.knob, n, dims,
                      len(vectors.queries), tuple(rows), index.stats, index.warnings, complete, built)
