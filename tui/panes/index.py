"""The Index tab: what an IVF index saves in comparisons and costs in recall, n_probe by n_probe.

Two sources of vectors: the corpus' own LSA vectors (its chunks, queried by
its questions) or the lesson's synthetic set (20,000 x 64, 200 queries), on
which 100 cells reproduce the lesson's table. Nothing runs until asked (`r`):
k-means on 20,000 vectors takes seconds of both cores.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Static

from ranklens.engine.errors import RanklensError
from ranklens.engine.progress import Progress
from ranklens.tui.charts import line_plot
from ranklens.tui.context import Context
from ranklens.tui.metric_text import plural
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.panes.base import WorkPane, stage
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:  # numpy comes with these; the first paint must not wait for it
    from ranklens.engine.experiments.indexes import IndexSweep

SOURCES = ("corpus", "synthetic")
TABLE_HEADERS = ("n_probe", "compared", "share", "recall@10", "ms/query")
MIN_CHART_WIDTH = 20
MIN_CHART_HEIGHT = 5
# The boxes' names for the engine's settings, said where a message names one.
BOX_NAMES = {"cells": "cells", "n_probe": "n_probe list"}


def parse_cells(text: str) -> int | None:
    """The cells box: a positive integer, or blank for the source's default."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise RanklensError(f"cells: {text!r} is not a positive whole number")
    return int(text)


def parse_probes(text: str) -> list[int] | None:
    """The n_probe box: whole numbers separated by commas or spaces, or blank for the default list."""
    parts = text.replace(",", " ").split()
    if not parts:
        return None
    if not all(p.isdigit() and int(p) > 0 for p in parts):
        raise RanklensError(f"n_probe: {text!r} is not a list of positive whole numbers (e.g. 1,2,4,8)")
    return sorted({int(p) for p in parts})


def run_sweep(context: Context, source: str, cells: int | None, probes: list[int] | None,
              progress: Progress) -> IndexSweep:
    """The vector set, then the engine's IVF sweep over it (in a worker); errors name the boxes."""
    from ranklens.engine.experiments.indexes import corpus_vectors, index_sweep, synthetic_vectors
    from ranklens.engine.index.base import IndexSettingError

    prepare = stage(progress, 0, 2, "vectors")
    prepare(0, 1, "LSA of the corpus" if source == "corpus" else "synthetic set")
    try:
        vectors = (synthetic_vectors() if source == "synthetic" else
                   corpus_vectors(context.workbench, context.setup, prepare))
        return index_sweep(vectors, "ivf", cells, probes, progress=stage(progress, 1, 2, "IVF"))
    except IndexSettingError as error:
        raise RanklensError(error.naming(BOX_NAMES.get(error.setting, error.setting))) from None


class IndexPane(WorkPane):
    DEFAULT_CSS = """
    IndexPane #ivf-form { height: 3; }
    IndexPane #ivf-source { width: 1fr; padding: 1 1 0 0; text-wrap: nowrap; text-overflow: ellipsis; }
    IndexPane #ivf-cells { width: 12; }
    IndexPane #ivf-probes { width: 30; }
    IndexPane #ivf-main { height: 1fr; }
    IndexPane #ivf-table { width: auto; height: auto; max-height: 100%; }
    IndexPane #ivf-chart { width: 1fr; height: 1fr; padding: 0 0 0 2; }
    IndexPane #ivf-notes { height: auto; color: $text-muted; }
    """  # below 80 columns the chart goes under the table: see app.tcss
    BINDINGS = [
        Binding("r", "run", "run", tooltip="Run IVF sweep", id="index.run"),
        Binding("x", "source", "vectors", tooltip="Corpus/synthetic vectors", id="index.source"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.source = SOURCES[0]
        self.result: IndexSweep | None = None
        # Timings vary from run to run; snapshot tests turn them off to compare screens.
        self.show_timings = True

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        with Horizontal(id="ivf-form"):
            yield Static(id="ivf-source", markup=False)
            yield TextBox(placeholder="auto", id="ivf-cells", restrict=r"[0-9]*", classes="-framed")
            yield TextBox(placeholder="1,2,4,… all", id="ivf-probes", restrict=r"[0-9, ]*", classes="-framed")
        with Horizontal(id="ivf-main"):
            yield KeyTable(id="ivf-table", cursor_type="row", classes="-framed")
            yield Chart(id="ivf-chart")
        yield Static(id="ivf-notes", markup=False)

    def on_mount(self) -> None:
        self.query_one("#ivf-table", KeyTable).add_columns(*TABLE_HEADERS)
        self.query_one("#ivf-table", KeyTable).border_title = "IVF sweep (r runs)"
        self.query_one("#ivf-cells", TextBox).border_title = "cells"
        self.query_one("#ivf-probes", TextBox).border_title = "n_probe list"
        self._show_source()

    def context_key(self, context: Context) -> Hashable:
        # The synthetic set ignores the corpus; LSA vectors ignore the scorer and k.
        if self.source == "synthetic":
            return None
        return (id(context.workbench), dataclasses.replace(context.setup, scorer="lsa", k=1))

    def refresh_content(self, context: Context) -> None:
        # A sweep is seconds of CPU: a changed corpus clears the old table, `r` measures anew.
        if self.result is not None and self.source == "corpus":
            self._show_result(None)
        self._show_source()

    def action_source(self) -> None:
        self.workers.cancel_node(self)
        self.source = SOURCES[(SOURCES.index(self.source) + 1) % len(SOURCES)]
        # Each source has its own scale: back to its default cells and probes.
        for box in self.query(TextBox):
            box.value = ""
        self._show_result(None)
        self._show_source()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def action_run(self) -> None:
        if not self.has_corpus():
            return
        try:
            cells = parse_cells(self.query_one("#ivf-cells", TextBox).value)
            probes = parse_probes(self.query_one("#ivf-probes", TextBox).value)
        except RanklensError as error:
            self.query_one(WorkStatus).show(str(error))
            return
        context, source = self.context, self.source
        self.start_work("sweep", lambda progress: run_sweep(context, source, cells, probes, progress),
                        f"IVF sweep on the {source} vectors")

    def work_done(self, group: str, result: IndexSweep) -> None:
        self.query_one("#ivf-cells", TextBox).value = str(result.param_value)
        self.query_one("#ivf-probes", TextBox).value = ",".join(str(r.value) for r in result.rows)
        self._show_result(result)

    def _show_source(self) -> None:
        name = "corpus LSA" if self.source == "corpus" else "synthetic"
        self.query_one("#ivf-source", Static).update(Content.assemble(("vectors: ", "$text-muted"), (name, "bold")))
        if self.result is None:
            self.query_one(WorkStatus).show(f"r runs the IVF sweep on the {name} vectors · x switches to the "
                                            f"{'synthetic' if self.source == 'corpus' else 'corpus LSA'} set · "
                                            "blank boxes: defaults")

    def _show_result(self, result: IndexSweep | None) -> None:
        self.result = result
        table = self.query_one("#ivf-table", KeyTable)
        table.clear()
        self.query_one("#ivf-chart", Chart).plot(None)
        self.query_one("#ivf-notes", Static).update("")
        if result is None:
            return
        for row in result.rows:
            table.add_row(
                Text(str(row.value), justify="right"),
                Text(f"{row.compared_mean:.0f}", justify="right"),
                Text(f"{row.share:.1%}", justify="right",
                     style=f"bold {self.colour('warning')}" if row.share > 1.0 else ""),
                Text(f"{row.recall:.3f}", justify="right",
                     style=f"bold {self.colour('success')}" if row.recall >= 1.0 else ""),
                Text(f"{row.ms_per_query:.3f}" if self.show_timings else "–", justify="right"),
            )
        source = "synthetic set" if self.source == "synthetic" else result.source
        self.query_one(WorkStatus).show(
            f"{source}: {plural(result.vectors, 'vector')} × {result.dims} dims, "
            f"{result.queries:,} quer{'y' if result.queries == 1 else 'ies'}, "
            f"{plural(result.param_value or 0, 'cell')} · recall@10 against exact search")
        over = [r for r in result.rows if r.share > 1.0]
        notes = ["compared: vectors in the probed cells + 1 per centroid (share: of all vectors)"]
        if over:
            notes.append("share above 100%: probing that many cells compares nearly every vector and the "
                         "centroids too, more than exact search would")
        self.query_one("#ivf-notes", Static).update(Content.assemble(
            "\n".join(notes), *(("\n" + w, "$warning") for w in result.warnings)))
        points = [(r.share, r.recall) for r in result.rows]
        x_max = max(1.0, max(r.share for r in result.rows))
        # Recall is what the chart is about: start the axis at the tenth below the worst value.
        y_min = min(0.5, math.floor(min(r.recall for r in result.rows) * 10) / 10)

        def draw(width: int, height: int) -> list[Content]:
            plot = line_plot(points, max(MIN_CHART_WIDTH, width), max(MIN_CHART_HEIGHT, height - 2), x_max,
                             (y_min, 1.0), "share")
            return [Content.styled("recall@10 vs share", "bold"), *plot]

        self.query_one("#ivf-chart", Chart).plot(draw)
