"""The Index tab: exact search, IVF and HNSW over the same vectors, what each saves and what it costs.

Two sources of vectors: the corpus' own (its chunks, queried by its questions:
the dense model's vectors when the scorer is dense, else LSA's) or the
lesson's synthetic set (20,000 x 64, 200 queries), on which 100 cells
reproduce the lesson's IVF table. IVF is swept over n_probe, HNSW over
ef_search; one plot puts every index's recall against its cost. Nothing runs
until asked (`r`): k-means and the HNSW graph on 20,000 vectors take seconds
of both cores.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Static

from ranklens.engine.errors import RanklensError
from ranklens.engine.ann import knobs
from ranklens.engine.ann.knobs import IndexKnob, kind_knobs
from ranklens.engine.work.progress import Progress
from ranklens.tui.charts import Curve, curve_plot, legend
from ranklens.tui.context import ChangeSetup, Context
from ranklens.tui.metric_text import plural
from ranklens.tui.widgets.chart import Chart
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.panes.base import WorkPane, stage
from ranklens.tui.widgets.work_status import WorkStatus

if TYPE_CHECKING:  # numpy comes with these; the first paint must not wait for it
    from ranklens.engine.experiments.indexes import IndexSweep, KindSettings
    from ranklens.engine.setup import Setup

SOURCES = ("corpus", "synthetic")
TABLE_HEADERS = ("index", "setting", "visited", "recall@10", "ms/query", "build s", "MB")
MIN_CHART_WIDTH = 20
MIN_CHART_HEIGHT = 3  # plot rows; the title and the x axis come on top
# Each index's mark on the plot; exact search is one point, the others a curve along their knob.
# (marker, theme colour)
CURVES = {"exact": ("◆", "foreground"), "ivf": ("●", "accent"), "hnsw": ("▲", "success")}
AXES = ("time", "visited")
# The boxes' names for the engine's settings, said where a message names one.
OTHER_CURVE = ("■", "secondary")  # a kind registered by a plug-in


def _curve(kind: str) -> tuple[str, str]:
    """The marker and colour of a kind's rows and curve."""
    return CURVES.get(kind, OTHER_CURVE)


def parse_count(text: str, name: str, low: int = 1) -> int | None:
    """A box holding one whole number of at least ``low``, or blank for the default."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < low:
        raise RanklensError(f"{name}: {text!r} is not a whole number of at least {low}")
    return int(text)


def parse_values(text: str, name: str) -> list[int] | None:
    """A box holding knob values: whole numbers separated by commas or spaces, or blank for the ladder."""
    parts = text.replace(",", " ").split()
    if not parts:
        return None
    if not all(p.isdigit() and int(p) > 0 for p in parts):
        raise RanklensError(f"{name}: {text!r} is not a list of positive whole numbers (e.g. 1,2,4,8)")
    return sorted({int(p) for p in parts})


def vector_name(setup: Setup) -> str:
    """What the corpus' vectors are under ``setup``: "LSA", or the dense scorer's label."""
    from ranklens.engine.experiments.indexes import vector_setup
    from ranklens.engine.scoring.registry import spec

    return spec(vector_setup(setup).scorer).label


def run_sweeps(context: Context, source: str, kinds: tuple[str, ...], settings: dict[str, KindSettings],
               progress: Progress) -> tuple[IndexSweep, ...]:
    """The vector set, then the engine's sweep of every kind over it (in a worker); errors name the boxes."""
    from ranklens.engine.experiments.indexes import check_sweeps, corpus_vectors, index_sweeps, synthetic_vectors
    from ranklens.engine.ann.base import IndexSettingError

    try:
        check_sweeps(kinds, settings)
        prepare = stage(progress, 0, 4, "vectors")
        prepare(0, 1, "the corpus' vectors" if source == "corpus" else "synthetic set")
        vectors = (synthetic_vectors() if source == "synthetic" else
                   corpus_vectors(context.workbench, context.setup, prepare))
        # the vectors are a quarter of the bar (an encoding model may take a while), the sweeps the rest
        return index_sweeps(vectors, kinds, settings, lambda done, total, label: progress(
            1000 + round(3000 * done / max(total, 1)), 4000, label))
    except IndexSettingError as error:
        titles = {knob.name: knob.label for _, knob in kind_knobs()}
        raise RanklensError(error.naming(titles.get(error.setting, error.setting))) from None


class IndexPane(WorkPane):
    SCOPED_CSS = False  # the layout follows the screen's width class (Screen.-narrow), outside the pane
    DEFAULT_CSS = """
    IndexPane #ivf-form { height: 3; }
    IndexPane .-knob { width: 10; }
    IndexPane #ivf-source { width: 12; padding: 0 1 0 0; text-wrap: nowrap; text-overflow: ellipsis; }
    IndexPane #ivf-cells { width: 11; }
    IndexPane #ivf-probes { width: 1fr; min-width: 13; max-width: 24; }
    IndexPane #hnsw-m { width: 8; }
    IndexPane #hnsw-efc { width: 15; }
    IndexPane #hnsw-ef { width: 1fr; min-width: 15; max-width: 24; }
    IndexPane #ivf-main { height: 1fr; }
    IndexPane #ivf-table { width: auto; height: auto; max-height: 100%; }
    IndexPane #ivf-chart { width: 1fr; height: 1fr; padding: 0 0 0 2; }
    IndexPane #ivf-notes { height: auto; color: $text-muted; }
    Screen.-narrow IndexPane #ivf-main { layout: vertical; }
    Screen.-narrow IndexPane #ivf-table { max-height: 7; }
    Screen.-narrow IndexPane #ivf-chart { height: 1fr; min-height: 7; padding: 0; }
    Screen.-narrow IndexPane #ivf-notes { display: none; }
    Screen.-tiny IndexPane #ivf-cells { width: 10; }
    Screen.-tiny IndexPane #ivf-probes { min-width: 10; }
    Screen.-tiny IndexPane #hnsw-m { width: 8; }
    Screen.-tiny IndexPane #hnsw-efc { width: 11; }
    Screen.-tiny IndexPane #hnsw-ef { min-width: 12; }
    """  # under 100 columns the chart goes under the table (under 80: see app.tcss)
    BINDINGS = [
        Binding("r", "run", "run", tooltip="Run exact, IVF and HNSW sweeps", id="index.run"),
        Binding("x", "source", "vectors", tooltip="Corpus/synthetic vectors", id="index.source"),
        Binding("t", "axis", "time/visited", tooltip="Plot recall against ms/query or vectors visited",
                id="index.axis"),
        Binding("u", "use", "use in Search", tooltip="Rank Search (and every tab) through the highlighted row's "
                "index and knob", id="index.use"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.source = SOURCES[0]
        self.axis = AXES[0]
        self.result: tuple[IndexSweep, ...] | None = None
        self.missing: str | None = None  # why HNSW was left out of the last run
        # Timings vary from run to run; snapshot tests turn them off (the plot then shows vectors visited).
        self.show_timings = True

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        with Horizontal(id="ivf-form"):
            yield Static(id="ivf-source", markup=False)
            for kind, knob in kind_knobs():  # one box per setting each index kind declares
                box = TextBox(placeholder=knob.placeholder, id=knob.box_for(kind), classes="-framed -knob",
                              restrict=r"[0-9, ]*" if knob.role == "knob" else r"[0-9]*")
                box.border_title = knob.label
                yield box
        with Horizontal(id="ivf-main"):
            yield KeyTable(id="ivf-table", cursor_type="row", classes="-framed")
            yield Chart(id="ivf-chart")
        yield Static(id="ivf-notes", markup=False)

    def on_mount(self) -> None:
        self.query_one("#ivf-table", KeyTable).add_columns(*TABLE_HEADERS)
        self.query_one("#ivf-table", KeyTable).border_title = "exact · IVF · HNSW (r runs)"
        self._show_source()

    def context_key(self, context: Context) -> Hashable:
        # The synthetic set ignores the corpus; the corpus' vectors ignore k, and LSA's any other scorer.
        if self.source == "synthetic":
            return None
        from ranklens.engine.experiments.indexes import vector_setup
        from ranklens.engine.setup import ann_settings, setup_settings

        # nor the approximate index the setup ranks through (`u` sets it from this table, which stays)
        exact = {name: setup_settings()[name].default for name in ann_settings()}
        return (context.workbench, dataclasses.replace(vector_setup(context.setup), k=1, **exact))

    def refresh_content(self, context: Context) -> None:
        # A sweep is seconds of CPU: a changed corpus clears the old table, `r` measures anew.
        if self.result is not None and self.source == "corpus":
            self._show_result(None)
        self._show_source()

    def corpus_opened(self) -> None:
        if self.source == "corpus":  # the boxes hold what the last sweep of the old corpus' vectors ran with
            for box in self.query(TextBox):
                box.value = ""

    def action_source(self) -> None:
        self.workers.cancel_node(self)
        self.source = SOURCES[(SOURCES.index(self.source) + 1) % len(SOURCES)]
        # Each source has its own scale: back to its default settings.
        for box in self.query(TextBox):
            box.value = ""
        self._show_result(None)
        self._show_source()

    def action_axis(self) -> None:
        self.axis = AXES[(AXES.index(self.axis) + 1) % len(AXES)]
        if self.result:
            self._show_result(self.result)
        else:  # nothing plotted yet: the key still answers
            shown = "ms/query" if self.axis == "time" else "vectors visited"
            self.notify(f"the plot will show recall against {shown}: r runs the sweeps")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def action_run(self) -> None:
        if not self.has_corpus():
            return
        from ranklens.engine.ann.hnsw import unavailable
        try:
            settings = self._asked()
        except RanklensError as error:
            self.query_one(WorkStatus).show(str(error))
            return
        self.missing = unavailable()
        kinds = tuple(kind for kind in knobs.declared() if not (self.missing and kind == "hnsw"))
        context, source = self.context, self.source
        assert context is not None  # has_corpus
        self.start_work("sweep", lambda progress: run_sweeps(context, source, kinds, settings, progress),
                        self._swept, label=f"{', '.join(kinds)} on the {source} vectors")

    def _asked(self) -> dict[str, KindSettings]:
        """What the boxes ask of each kind (blank: its defaults); a bad box raises, naming it."""
        from ranklens.engine.experiments.indexes import asked_settings

        return asked_settings((kind, knob, self._parsed(knob, self._box("#" + knob.box_for(kind))))
                              for kind, knob in kind_knobs())

    @staticmethod
    def _parsed(knob: IndexKnob, text: str) -> Any:
        if knob.role == "knob":
            return parse_values(text, knob.label)
        return parse_count(text, knob.label, knob.minimum)

    def action_use(self) -> None:
        """The highlighted row's index, build setting and knob become the setup's ``--ann``: the corpus'
        vectors are then ranked through that index everywhere (exact's row: every chunk again)."""
        changes = self._use_changes()
        if isinstance(changes, str):
            self.notify(changes, severity="warning")
            return
        kind = changes.get("ann")
        self.post_message(ChangeSetup(changes, f"search ranks through {kind}" if kind else "search ranks exactly"))

    def _use_changes(self) -> dict | str:
        """The setting changes of the highlighted row, or why there are none."""
        from ranklens.engine.experiments.indexes import vector_setup

        if self.source != "corpus" or not self.result or self.context is None:
            return "u uses an index on the corpus' vectors: r measures them first (x: corpus)"
        rows = [(sweep, row) for sweep in self.result for row in sweep.rows]
        cursor = self.query_one("#ivf-table", KeyTable).cursor_row
        if not 0 <= cursor < len(rows):
            return "highlight a row of the table first"
        sweep, row = rows[cursor]
        changes: dict = {"scorer": vector_setup(self.context.setup).scorer, "ann": None}
        declared = knobs.declared().get(sweep.kind)
        if declared is not None and declared.approximate:
            changes["ann"] = sweep.kind
            for knob in declared.settings:  # those the setup holds: the build size and the knob
                if knob.setup and knob.role in ("param", "knob"):
                    changes[knob.setup] = sweep.param_value if knob.role == "param" else row.value
        return changes

    def _box(self, box: str) -> str:
        return self.query_one(box, TextBox).value

    def _swept(self, result: tuple[IndexSweep, ...]) -> None:
        """The sweeps done: the boxes take the values each kind ran with, and the plot shows them."""
        by_kind = {sweep.kind: sweep for sweep in result}
        for kind, knob in kind_knobs():
            sweep = by_kind.get(kind)
            if sweep is None:
                continue
            value = (sweep.param_value if knob.role == "param" else
                     ",".join(str(r.value) for r in sweep.rows) if knob.role == "knob" else
                     sweep.options.get(knob.name, ""))
            self.query_one("#" + knob.box_for(kind), TextBox).value = str(value)
        self._show_result(result)

    def _source_name(self) -> str:
        if self.source == "synthetic":
            return "synthetic"
        return vector_name(self.context.setup) if self.context is not None else "corpus"

    def _show_source(self) -> None:
        name = self._source_name()
        self.query_one("#ivf-source", Static).update(Content.assemble(("vectors (x)\n", "$text-muted"),
                                                                      (name, "bold")))
        if self.result is None:
            where = "synthetic set" if self.source == "synthetic" else f"corpus' {name} vectors"
            other = "corpus" if self.source == "synthetic" else "synthetic"
            self.query_one(WorkStatus).show(f"r measures exact search, IVF and HNSW on the {where} · "
                                            f"x switches to the {other} set · blank boxes: defaults")

    def _show_result(self, result: tuple[IndexSweep, ...] | None) -> None:
        self.result = result
        table = self.query_one("#ivf-table", KeyTable)
        table.clear()
        self.query_one("#ivf-chart", Chart).plot(None)
        self.query_one("#ivf-notes", Static).update("")
        if not result:
            return
        timed = self.show_timings
        for sweep in result:
            for i, row in enumerate(sweep.rows):
                first = i == 0  # what the index costs to build is said once, on its first row
                table.add_row(
                    Text(f"{_curve(sweep.kind)[0]} {sweep.kind}" if first else "",
                         style=f"bold {self.colour(_curve(sweep.kind)[1])}"),
                    Text(f"{row.knob} {row.value}" if row.knob else "", justify="right"),
                    Text(f"{row.compared_mean:.0f}", justify="right",
                         style=f"bold {self.colour('warning')}" if row.share > 1.0 else ""),
                    Text(f"{row.recall:.3f}", justify="right",
                         style=f"bold {self.colour('success')}" if row.recall >= 1.0 else ""),
                    Text(f"{row.ms_per_query:.3f}" if timed else "–", justify="right"),
                    Text((f"{sweep.stats.build_s:.2f}" if timed else "–") if first else "", justify="right"),
                    Text(f"{sweep.stats.bytes / 1e6:.1f}" if first else "", justify="right"),
                )
        self._show_summary(result)
        self._plot(result)

    def _show_summary(self, result: tuple[IndexSweep, ...]) -> None:
        first = result[0]
        source = "synthetic set" if self.source == "synthetic" else first.source
        built = [f"{s.kind} " + ", ".join(f"{name} {value}" for name, value in s.built.items())
                 for s in result if s.built]
        self.query_one(WorkStatus).show(
            f"{source}: {plural(first.vectors, 'vector')} × {first.dims} dims, "
            f"{first.queries:,} quer{'y' if first.queries == 1 else 'ies'} · {' · '.join(built)} · "
            "recall@10 against exact search")
        notes = ["visited: vectors compared per query (IVF: those in the probed cells + 1 per centroid; "
                 "HNSW: distances computed on the graph walk)"]
        over = {s.kind for s in result for r in s.rows if r.share > 1.0}
        if "ivf" in over:
            notes.append("visited above the vector count: probing that many cells compares nearly every vector "
                         "and the centroids too, more than exact search would")
        if "hnsw" in over:
            notes.append("HNSW above the vector count: the walk computes a distance per node on every layer it "
                         "passes, so on a few vectors it meets some twice")
        warnings = [w for s in result for w in s.warnings]
        if self.missing:
            warnings.append(self.missing)
        self.query_one("#ivf-notes", Static).update(Content.assemble(
            "\n".join(notes), *(("\n" + w, "$warning") for w in warnings)))

    def _plot(self, result: tuple[IndexSweep, ...]) -> None:
        by_time = self.axis == "time" and self.show_timings
        curves = [Curve(s.kind, [(r.ms_per_query if by_time else r.compared_mean, r.recall) for r in s.rows],
                        f"bold ${_curve(s.kind)[1]}", _curve(s.kind)[0]) for s in result if s.rows]
        worst = min(r.recall for s in result for r in s.rows)
        # Recall is what the chart is about: start the axis at the tenth below the worst value.
        y_min = min(0.5, math.floor(worst * 10) / 10)
        title = Content.styled("recall@10 vs " + ("ms/query" if by_time else "vectors visited") + " (log)", "bold")
        x_format = "{:.2g} ms".format if by_time else "{:,.0f}".format
        key = legend(curves)

        def draw(width: int, height: int) -> list[Content]:
            # the legend beside the title when both fit, else under it
            head = [title + "  " + key] if len(title) + 2 + len(key) <= width else [title, key]
            plot = curve_plot(curves, max(MIN_CHART_WIDTH, width), max(MIN_CHART_HEIGHT, height - 1 - len(head)),
                              (y_min, 1.0), "t: visited" if by_time else "t: time", x_format)
            return [*head, *plot]

        self.query_one("#ivf-chart", Chart).plot(draw)
