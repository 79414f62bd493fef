"""The Chunking tab: one document cut into chunks you can see, and a sweep that measures the cut.

The preview is the pane's own (size, overlap and chunker change with keys and
touch nothing else); `u` or Enter on a cell of the sweep's heat map hands a
setting to the whole app. The sweep (`r`) is the chunking lab: the preview's
chunker and the other of words and recursive, each size by overlap, tested
against the setup's own chunking; the heat map shows one chunker at a time
(`c` on it: the next), the cell under the cursor in full on the line below.
The find box answers the lesson's question: does this sentence stay whole in
some chunk? It works on the whole document, or on its first
passages (`p`): seed 004 chunked the first two passages of "fatture".
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Hashable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Input, Static

from ranklens.engine.chunking.chunkers import CHUNKER_TABLE, CHUNKERS, default_window
from ranklens.engine.corpus import Corpus, Document, normalise_space
from ranklens.engine.measuring.metric_table import NDCG, RECALL, SPAN_K, metric
from ranklens.engine.experiments.chunking import (  # noqa: F401 - sweep_overlaps: the grid's columns, read by tests
    ChunkSweep, Window, dense_model, lab_chunkers, lab_rule, sweep_overlaps, sweep_windows,
)
from ranklens.engine.comparing.p_text import format_p
from ranklens.engine.chunking.model_window import WindowCheck
from ranklens.engine.work.progress import Progress
from ranklens.engine.settings import next_value
from ranklens.engine.setup import setup_settings
from ranklens.tui.chunk_map import Verdict, chunk_map, find_verdict, legend
from ranklens.tui.context import ChangeSetup, Context
from ranklens.tui.heap import keep_built
from ranklens.tui.safe import clean, one_line, safe_text
from ranklens.tui.typing_pause import TypingPause
from ranklens.tui.widgets.chunk_grid import ChunkGrid
from ranklens.tui.widgets.fitted_line import FittedLine
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.widgets.lists import KeyScroll, KeyTable
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.panes.search import DEBOUNCE_S
from ranklens.tui.widgets.work_status import WorkStatus

MAX_PREVIEW_CHARS = 20_000  # a longer document is measured whole but drawn only this far
MAX_DOCUMENTS = 2_000  # rows of the document list; the rest are reachable from the Search tab
HINT = "r sweeps chunkers, sizes and overlaps against the setup's chunking"


@dataclass(frozen=True)
class Preview:
    window: Window
    title: str
    passages: int | None  # how many of the document's passages are shown; None: the whole document
    passage_count: int
    words: int
    chunks: int
    view: Content
    verdict: Verdict | None
    answers: tuple[str, ...]  # answer spans of the questions judged on this document
    truncated: bool
    window_check: WindowCheck | None = None  # chunks longer than the dense model's window (e5-small)


def make_preview(corpus: Corpus, doc: Document, window: Window, passages: int | None, sentence: str,
                 model: str | None = None) -> Preview:
    """Cut ``doc`` (or its first ``passages`` passages) with ``window`` and draw it (in a worker); with the
    dense scorer's ``model``, check which chunks outgrow its window."""
    from ranklens.engine.chunking.cutting import cut  # numpy: loaded off the first paint
    from ranklens.engine.chunking.model_window import window_check

    own = [c for c in corpus.chunks if c.doc_id == doc.id]
    text = doc.text[:own[passages - 1].end] if passages and own else doc.text
    spans = cut(text, window.size, window.overlap, window.chunker, doc.headings)
    verdict = find_verdict(text, spans, sentence)
    check = None if model is None else window_check(model, [text[s.start_char:s.end_char] for s in spans])
    ends = [spans[i].start_char + at for i, at in zip(check.over, check.ends)] if check else []
    return Preview(window, doc.title or doc.id, passages if own else None, len(own), len(text.split()),
                   len(spans), chunk_map(text, spans, verdict.found_at if verdict else None, MAX_PREVIEW_CHARS,
                                         ends, check.window if check else 0),
                   verdict, answer_spans(corpus, {doc.id, *(c.id for c in own)}, text), len(text) > MAX_PREVIEW_CHARS,
                   check)


def answer_spans(corpus: Corpus, ids: set[str], text: str) -> tuple[str, ...]:
    """The answer spans of the questions judged on a document (``ids``: its own and its chunks') that
    ``text``, the document as shown, holds.

    A question judged on this document may have its span in another one (a user's judgment of a
    second chunk, a collection judged per document): offering that span would only say "not in
    this text", so a span is offered where it can be found."""
    shown = normalise_space(text)
    return tuple(dict.fromkeys(q.answer for q in corpus.answerable
                               if q.answer and any(i in ids for i in q.relevant)
                               and normalise_space(q.answer) in shown))


def sweep_key(context: Context) -> Hashable:
    """What a sweep's numbers depend on besides the chunking it varies."""
    return (context.workbench, dataclasses.replace(context.setup, size=None, overlap=0, chunker="words"))


def lab_windows(chunker: str) -> tuple[Window, ...]:
    """The tab's grid: each of ``lab_chunkers(chunker)`` over its default sizes and overlaps."""
    return tuple(w for name in lab_chunkers(chunker) for w in sweep_windows(chunker=name))


def run_sweep(context: Context, chunker: str, progress: Progress) -> ChunkSweep:
    """The engine's chunk sweep over ``lab_windows(chunker)`` (in a worker)."""
    from ranklens.engine.experiments.chunking import chunk_sweep  # numpy: loaded off the first paint

    return chunk_sweep(context.workbench, context.setup, lab_windows(chunker), progress, keep_built)


def cell_detail(sweep: ChunkSweep, index: int) -> Content:
    """One cell's numbers in full, for the panel beside the heat map (lines short enough for 80 columns)."""
    cell = sweep.cells[index]
    n = sweep.questions
    base = sweep.baseline
    current = base is not None and cell.window == base.window
    carried = f" · {cell.carried.carried}/{cell.carried.moved} carried" if cell.carried.moved else ""
    share = cell.over_share
    lines = [
        " ".join(f"{metric(key).header} {metric(key).text(cell.evaluation.metrics[key], n)}"
                 for key in (NDCG, RECALL, f"span_iou@{SPAN_K}")),
        f"{cell.chunks:,} chunks{carried}",
        (f"over {sweep.window_model}'s window: not counted" if cell.over_window is None or share is None else
         f"{cell.over_window:,} over {sweep.window_model}'s {sweep.window_tokens} tokens ({share:.1%})"),
    ]
    if base is not None:
        # against the chunking the setup had when swept (named under the panel): Enter may have changed it since
        lines.append(f"p {format_p(cell.holm)} (Holm) against {base.evaluation.metrics[NDCG]:.3f}")
    mark = "★ " if index == sweep.winner else "= " if current else ""
    return Content.assemble((f"{mark}{cell.window.label}", "bold"), *(f"\n{line}" for line in lines))


def switched_window(before: Window, chunker: str) -> Window:
    """The preview's window moved to another chunker. Sizes carry over between chunkers of one unit (words
    and sentences); otherwise 100 words would become 100 characters: the chunker's defaults. An overlap in
    other units restarts at the chunker's default too (20 words of overlap must not become 20 sentences)."""
    now, was = CHUNKER_TABLE[chunker], CHUNKER_TABLE[before.chunker]
    if now.unit != was.unit:
        return Window(now.size, now.overlap, chunker)
    if now.overlap_unit == was.overlap_unit:
        return dataclasses.replace(before, chunker=chunker)
    overlap = now.overlap if now.overlap_unit != now.unit else before.size // 5
    return Window(before.size, max(0, min(overlap, before.size - 1)), chunker)


def _over_window(check: WindowCheck) -> str:
    """" · chunks 3, 7 over e5-small's 512 tokens" (numbered from 1, as the map numbers them); "" when none is."""
    if not check.over:
        return ""
    shown = ", ".join(str(i + 1) for i in check.over[:5]) + (", …" if len(check.over) > 5 else "")
    return f" · chunk{'s' if len(check.over) > 1 else ''} {shown} over {check.model}'s {check.window} tokens"


def _count(n: int, unit: str) -> str:
    return f"{n} {unit.removesuffix('s') if n == 1 else unit}"


SIZE_KEYS = Binding.Group("size")
OVERLAP_KEYS = Binding.Group("overlap")


class FindBox(TextBox):
    """The sentence to find; Escape (TextBox's) hands the keys back to the tab."""


class ChunkingPane(WorkPane):
    DEFAULT_CSS = """
    ChunkingPane #chunk-facts { height: 1; text-wrap: nowrap; }
    ChunkingPane #chunk-main { height: 1fr; min-height: 6; }
    ChunkingPane #chunk-documents { width: 22; height: 1fr; }
    ChunkingPane #chunk-view { width: 1fr; height: 1fr; padding: 0 1; border-subtitle-color: $text; }
    ChunkingPane #chunk-find { height: 3; border-subtitle-color: $text-muted; }
    ChunkingPane #chunk-find.-whole { border-subtitle-color: $success; border-subtitle-style: bold; }
    ChunkingPane #chunk-find.-cut { border-subtitle-color: $error; border-subtitle-style: bold; }
    ChunkingPane #chunk-lab { height: auto; max-height: 7; display: none; }
    ChunkingPane.-swept #chunk-lab { display: block; }
    ChunkingPane #chunk-sweep { width: auto; max-width: 50%; height: auto; max-height: 7; }
    ChunkingPane #chunk-cell { width: 1fr; height: 7; padding: 0 1; }
    """
    # Footer labels are short; the help and the palette read the tooltips. Shown: what fits in 80 columns.
    BINDINGS = [
        Binding("z", "size(-1)", "size", tooltip="Chunk size: the next smaller", group=SIZE_KEYS,
                id="chunking.size_down"),
        Binding("Z", "size(1)", "size", tooltip="Chunk size: the next larger", group=SIZE_KEYS, id="chunking.size_up"),
        Binding("o", "overlap(-1)", "overlap", tooltip="Overlap: the next smaller", group=OVERLAP_KEYS,
                id="chunking.overlap_down"),
        Binding("O", "overlap(1)", "overlap", tooltip="Overlap: the next larger", group=OVERLAP_KEYS,
                id="chunking.overlap_up"),
        Binding("c", "chunker", "chunker", tooltip="Next chunker", show=False, id="chunking.chunker"),
        Binding("p", "passages", "passages", tooltip="First n passages / all", show=False, id="chunking.passages"),
        Binding("f", "find", "find", tooltip="Find a sentence", id="chunking.find"),
        Binding("n", "next_answer", "answer", tooltip="Fill in an answer", show=False, id="chunking.next_answer"),
        Binding("r", "sweep", "sweep", tooltip="Sweep sizes", id="chunking.sweep"),
        Binding("u", "use", "use", tooltip="Use in app", show=False, id="chunking.use"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        # Set by the first context: the engine's defaults live with numpy, loaded after the first paint.
        self.window: Window | None = None
        self.passages: int | None = None
        self.preview: Preview | None = None
        self.sweep: ChunkSweep | None = None
        self._documents: list[Document] = []
        self._shown_for: Context | None = None  # the context the tab's content reflects
        self._find_pause = TypingPause(self, DEBOUNCE_S)

    def compose(self) -> ComposeResult:
        yield WorkStatus()
        yield FittedLine(id="chunk-facts")
        with Horizontal(id="chunk-main"):
            yield KeyTable(id="chunk-documents", cursor_type="row", show_header=False, classes="-framed")
            with KeyScroll(id="chunk-view", classes="-framed"):
                yield Static(id="chunk-text", markup=False)
        yield FindBox(placeholder="a sentence: does it stay whole in some chunk?", id="chunk-find", classes="-framed")
        with Horizontal(id="chunk-lab"):
            yield ChunkGrid(id="chunk-sweep", classes="-framed")
            yield Static(id="chunk-cell", markup=False, classes="-framed")

    def on_mount(self) -> None:
        self.query_one("#chunk-documents", KeyTable).add_column("document")
        self.query_one("#chunk-documents", KeyTable).border_title = "documents"
        view = self.query_one("#chunk-view", KeyScroll)
        view.border_title = "chunks"
        view.border_subtitle = legend()
        self.query_one("#chunk-find", FindBox).border_title = "find (f) · n: an answer span"
        self.query_one("#chunk-cell", Static).border_title = "cell · Enter on it uses it"
        self.query_one(WorkStatus).show(HINT)

    # -- following the app ---------------------------------------------------------------------

    def refresh_content(self, context: Context) -> None:
        previous, self._shown_for = self._shown_for, context
        if previous is None or previous.workbench is not context.workbench:
            self._list_documents(context.corpus)
        if previous is None or sweep_key(previous) != sweep_key(context):
            self._show_sweep(None)
        setup = context.setup
        chunking = (setup.size, setup.overlap, setup.chunker)
        moved = previous is None or chunking != (previous.setup.size, previous.setup.overlap, previous.setup.chunker)
        if moved and setup.size is not None:  # the app re-chunks now: preview what it uses
            self.window = Window(setup.size, setup.overlap, setup.chunker)
        elif self.window is None:
            self.window = Window(*default_window("words"), "words")
        self._start_preview()

    def _list_documents(self, corpus: Corpus) -> None:
        self._documents = list(corpus.documents[:MAX_DOCUMENTS])
        self.passages = None
        table = self.query_one("#chunk-documents", KeyTable)
        table.clear()
        for n, doc in enumerate(self._documents):
            table.add_row(safe_text(one_line(doc.title or doc.id, 18)), key=str(n))

    def corpus_opened(self) -> None:
        box = self.query_one("#chunk-find", FindBox)
        box.value = ""
        box.border_subtitle = None
        box.remove_class("-whole", "-cut")
        self._find_pause.cancel()

    # -- the preview ---------------------------------------------------------------------------

    def _start_preview(self) -> None:
        if self._shown_for is None or self.window is None or not self._documents:
            return
        corpus = self._shown_for.corpus
        doc = self._documents[self.query_one("#chunk-documents", KeyTable).cursor_row]
        window, passages = self.window, self.passages
        sentence = self.query_one("#chunk-find", FindBox).value
        model = dense_model(self._shown_for.setup)
        self.start_work("preview", lambda progress: make_preview(corpus, doc, window, passages, sentence, model),
                        self._show_preview)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "chunk-documents":
            event.stop()
            self.passages = None
            self._start_preview()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "chunk-find":
            event.stop()
            # one preview when typing pauses, not a chunking of the document per keystroke
            self._find_pause.restart(self._start_preview)

    def action_size(self, direction: int) -> None:
        if self.window is None:  # no corpus yet: nothing to cut (keys and the palette both get here)
            return
        # the same rungs as the app's chunk settings (engine/settings.py), so both step alike
        size = next_value(setup_settings()["size"], self.window.size, up=direction > 0)
        self.window = dataclasses.replace(self.window, size=size, overlap=min(self.window.overlap, size - 1))
        self._start_preview()

    def action_overlap(self, direction: int) -> None:
        if self.window is None:
            return
        overlap = next_value(setup_settings()["overlap"], self.window.overlap, up=direction > 0)
        if 0 <= overlap < self.window.size:
            self.window = dataclasses.replace(self.window, overlap=overlap)
            self._start_preview()
        else:
            self.notify(f"overlap stays between 0 and size - 1 ({self.window.size - 1})", severity="warning")

    def action_chunker(self) -> None:
        if self.window is None:
            return
        before = self.window
        self.window = switched_window(before, CHUNKERS[(CHUNKERS.index(before.chunker) + 1) % len(CHUNKERS)])
        now, was = CHUNKER_TABLE[self.window.chunker], CHUNKER_TABLE[before.chunker]
        size_was = f" (was {before.size} {was.unit})" if now.unit != was.unit else ""
        self.notify(f"{now.name}: chunks of up to {self.window.size} {now.unit}{size_was}, overlap "
                    f"{_count(self.window.overlap, now.overlap_unit)} (was {_count(before.overlap, was.overlap_unit)})")
        self._start_preview()

    def action_passages(self) -> None:
        count = self.preview.passage_count if self.preview else 0
        if count < 2:
            self.notify("this document has a single passage", severity="information")
            return
        # whole document -> first 1 -> first 2 -> ... -> whole document
        self.passages = 1 if self.passages is None else None if self.passages + 1 >= count else self.passages + 1
        self._start_preview()

    def action_find(self) -> None:
        self.query_one("#chunk-find", FindBox).focus()

    def action_next_answer(self) -> None:
        answers = self.preview.answers if self.preview else ()
        if not answers:
            shown = "the passages shown (p shows more)" if self.preview and self.preview.passages else "this document"
            self.notify(f"no answer span of a question judged on this document is in {shown}",
                        severity="information")
            return
        box = self.query_one("#chunk-find", FindBox)
        box.value = answers[(answers.index(box.value) + 1) % len(answers)] if box.value in answers else answers[0]

    def _show_preview(self, preview: Preview) -> None:
        self.preview = preview
        facts = Content.assemble(
            (clean(preview.title, keep_newlines=False), "bold"),
            f" (passages 1-{preview.passages} of {preview.passage_count})" if preview.passages else "",
            f" · {preview.words} words · {preview.window.label} → ",
            (f"{preview.chunks} chunk{'' if preview.chunks == 1 else 's'}", "bold"),
            f" · drawn up to {MAX_PREVIEW_CHARS:,} characters" if preview.truncated else "",
            (_over_window(preview.window_check), "bold $warning") if preview.window_check else "",
        )
        self.query_one("#chunk-facts", FittedLine).say(facts)
        self.query_one("#chunk-text", Static).update(preview.view)
        verdict = preview.verdict
        box = self.query_one("#chunk-find", FindBox)
        box.set_class(verdict is not None and verdict.whole, "-whole")
        box.set_class(verdict is not None and not verdict.whole, "-cut")
        box.border_subtitle = None if verdict is None else ("✔ " if verdict.whole else "✘ ") + verdict.text

    # -- the sweep ----------------------------------------------------------------------------

    def action_sweep(self) -> None:
        if not self.has_corpus() or self._shown_for is None or self.window is None:
            return
        context, chunker = self._shown_for, self.window.chunker
        self.start_work("sweep", lambda progress: run_sweep(context, chunker, progress), self._show_sweep,
                        label=f"sweeping {len(lab_windows(chunker))} chunkings", keeps_partial=True)

    def _show_sweep(self, sweep: ChunkSweep | None) -> None:
        self.sweep = sweep
        self.set_class(sweep is not None, "-swept")
        grid = self.query_one("#chunk-sweep", ChunkGrid)
        grid.show(sweep)
        if sweep is None:  # the winner named on the status line was another chunking's, or corpus'
            self.query_one(WorkStatus).show(HINT)
        if sweep is None or sweep.winner is None:
            return
        self._show_cell(sweep.winner)
        if not isinstance(self.app.focused, Input):  # the map is what r asked for: its keys (c, Enter) answer now
            grid.focus()
        self.query_one("#chunk-cell", Static).border_subtitle = (
            None if sweep.baseline is None else f"against {sweep.baseline.label}")
        best = sweep.cells[sweep.winner]
        stopped = "" if sweep.complete else f" of {len(sweep.cells)} measured (stopped)"
        self.query_one(WorkStatus).show(
            f"★ {best.window.label} wins for {sweep.scorer}{stopped} ({lab_rule()}) · Enter uses a cell")

    def _show_cell(self, index: int | None) -> None:
        if self.sweep is not None and index is not None:
            self.query_one("#chunk-cell", Static).update(cell_detail(self.sweep, index))

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        # Moving through the grid previews each setting, so the chunks behind a number are visible.
        if event.data_table.id == "chunk-sweep" and self.sweep is not None:
            event.stop()
            grid = self.query_one("#chunk-sweep", ChunkGrid)
            if event.coordinate != grid.cursor_coordinate:  # drawing moved the cursor on since: not a place to show
                return
            index = grid.index_at(*event.coordinate)
            self._show_cell(index)
            if grid.moved_to(*event.coordinate) and grid.has_focus and index is not None:
                self.window = self.sweep.cells[index].window
                self._start_preview()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        if event.data_table.id == "chunk-sweep" and self.sweep is not None:
            event.stop()
            index = self.query_one("#chunk-sweep", ChunkGrid).index_at(*event.coordinate)
            if index is not None:
                self.window = self.sweep.cells[index].window
                self.action_use()

    def action_use(self) -> None:
        if self.window is None:
            return
        self.post_message(ChangeSetup(self.window.changes(), reason=f"chunking {self.window.label}"))
