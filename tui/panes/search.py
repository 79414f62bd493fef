"""The Search tab: documents, the query box, ranked results and the selected result's explanation.

Results follow the context: the app publishes a new one (generation + 1) for
every query or setup change, and the search runs in a thread worker. A result
carries the context it was computed for and is dropped when that is no longer
the app's, so a stale result never reaches the screen.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input, Tree
from textual.worker import get_current_worker

from ranklens.engine.analysis import Analyzer
from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.progress import cancellable, no_progress
from ranklens.engine.setup import Setup
from ranklens.tui.context import Context
from ranklens.tui.safe import clean, one_line, safe_text
from ranklens.tui.widgets.highlight import highlighted, snippet
from ranklens.tui.widgets.lists import KeyTable, KeyTree
from ranklens.tui.widgets.query_box import QueryBox
from ranklens.tui.widgets.result_detail import ResultDetail

if TYPE_CHECKING:
    from ranklens.engine.corpus import Chunk
    from ranklens.engine.retriever import Hit, Retriever
    from ranklens.engine.scoring.explain import Explanation

DEBOUNCE_S = 0.15  # typing pauses this long before a search starts
TREE_DOCUMENTS = 1_000  # documents listed in the tree; a bigger corpus is reached by searching
SNIPPET_CHARS = 300  # characters cut for a snippet; the column shows what fits
RANK_WIDTH, SCORE_WIDTH = 3, 6
SCROLLBAR_WIDTH = 2
HINT = "Type a question and the best chunks appear as you type (Enter searches at once)."


@lru_cache(maxsize=16)
def analyzer_for(setup: Setup) -> Analyzer:
    """The setup's analyzer, cached: a stop list may be read from disk."""
    return Analyzer.from_setup(setup)


def matched_spans(analyzer: Analyzer, text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Where the query's terms occur in ``text`` (after the same analysis as the index)."""
    wanted = set(terms)
    return [(start, end) for start, end, term in analyzer.term_spans(text) if term in wanted]


@dataclass(frozen=True)
class DocumentEntry:
    """A document of the tree: where its chunks are in the retriever's chunk list."""

    positions: list[int]


@dataclass(frozen=True)
class ChunkEntry:
    position: int


@dataclass(frozen=True)
class ResultRow:
    hit: Hit
    document: str  # the document's title or id, cleaned
    snippet: Text


class SearchPane(Vertical):
    class QueryChanged(Message):
        """The query box settled on a new text (after the debounce, or at once on Enter)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._latest: Context | None = None  # the last context the app handed over (not `_context`: Textual uses that name)
        self._rows: list[ResultRow] = []
        self._terms: tuple[str, ...] = ()  # the analysed query of the rows on screen
        self._debounce: Timer | None = None
        self._tree_chunks: list[Chunk] | None = None  # the chunking the tree shows
        self.shown_query: str | None = None  # the query the results on screen were computed for
        self.shown_generation = -1

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-body"):
            tree: KeyTree[DocumentEntry | ChunkEntry] = KeyTree("documents", id="documents")
            tree.show_root = False
            tree.border_title = "documents"
            yield tree
            with Vertical(id="search-main"):
                query = QueryBox(placeholder="Ask a question, e.g. come cambio la password", id="query")
                query.border_title = "query"
                yield query
                results = KeyTable(id="results", cursor_type="row")
                results.border_title = "results"
                yield results
                detail = ResultDetail(id="detail")
                detail.border_title = "detail"
                yield detail

    def on_mount(self) -> None:
        self.query_one(ResultDetail).show_note("Opening the corpus…")

    # -- context ----------------------------------------------------------------------------------

    def context_changed(self, context: Context) -> None:
        """Called by the app on the event loop whenever corpus, setup or query change."""
        previous = self._latest
        self._latest = context
        if previous is None or previous.workbench is not context.workbench or previous.setup != context.setup:
            self._load_documents(context)
        if context.query.strip():
            self._search(context)
        else:
            self._show_rows(context, [], HINT)

    def show_query(self, text: str) -> str:
        """Put ``text`` in the query box (a question sent from another tab); returns it as the box
        holds it, control characters made visible."""
        box = self.query_one(QueryBox)
        box.value = text
        return box.value

    # -- the query box ----------------------------------------------------------------------------

    @on(Input.Changed, "#query")
    def _query_edited(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_S, lambda: self._send_query(event.value))

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self._send_query(event.value)

    def _send_query(self, text: str) -> None:
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        self.post_message(self.QueryChanged(text))

    # -- searching --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="search")
    def _search(self, context: Context) -> None:
        worker = get_current_worker()
        try:
            retriever = context.workbench.retriever(context.setup,
                                                    cancellable(no_progress, lambda: worker.is_cancelled))
            result = retriever.search(context.query)
            analyzer = analyzer_for(context.setup)
            rows = [self._row(retriever, analyzer, hit, result.terms) for hit in result.hits]
        except Cancelled:
            return
        except RanklensError as error:
            self.app.call_from_thread(self._failed, context, str(error))
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_rows, context, rows, result.note or "No chunk matches.", result.terms)

    @staticmethod
    def _row(retriever: Retriever, analyzer: Analyzer, hit: Hit, terms: Sequence[str]) -> ResultRow:
        document = retriever.corpus.document(hit.chunk.doc_id)
        text = hit.chunk.text[:SNIPPET_CHARS * 4]  # spans past the snippet are never shown
        return ResultRow(hit, one_line(document.title or document.id, 40),
                         snippet(text, matched_spans(analyzer, text, terms), SNIPPET_CHARS))

    def _stale(self, context: Context) -> bool:
        return self._latest is None or context.generation != self._latest.generation

    def _failed(self, context: Context, message: str) -> None:
        if not self._stale(context):
            self._show_rows(context, [], message)
            self.notify(message, severity="error", markup=False)

    def _show_rows(self, context: Context, rows: list[ResultRow], note: str, terms: tuple[str, ...] = ()) -> None:
        if self._stale(context):
            return
        self.shown_query, self.shown_generation = context.query, context.generation
        self._rows, self._terms = rows, terms
        self._fill_table()
        if rows:
            self._explain(context, rows[0].hit, terms)
        else:
            self.query_one(ResultDetail).show_note(note)

    def _fill_table(self) -> None:
        table = self.query_one("#results", KeyTable)
        table.clear(columns=True)
        # Room for a vertical scrollbar is always kept, so widths do not depend on whether one shows.
        width = table.size.width - SCROLLBAR_WIDTH
        document_width = max(8, min(18, width // 6))
        # Each column has one cell of padding on either side.
        snippet_width = max(10, width - RANK_WIDTH - SCORE_WIDTH - document_width - 8)
        table.add_column("#", width=RANK_WIDTH, key="rank")
        table.add_column("score", width=SCORE_WIDTH, key="score")
        table.add_column("document", width=document_width, key="document")
        table.add_column("snippet", width=snippet_width, key="snippet")
        for row in self._rows:
            table.add_row(Text(str(row.hit.rank), justify="right"), Text(f"{row.hit.score:.3f}", justify="right"),
                          Text(row.document, no_wrap=True, overflow="ellipsis"), row.snippet,
                          key=str(row.hit.rank))

    def on_resize(self) -> None:
        self.call_after_refresh(self._fill_table)

    # -- the selected result ----------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#results")
    def _result_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self._latest is not None and 0 <= event.cursor_row < len(self._rows):
            self._explain(self._latest, self._rows[event.cursor_row].hit, self._terms)

    @on(DataTable.RowSelected, "#results")
    def _result_selected(self) -> None:
        self.query_one(ResultDetail).focus()

    @work(thread=True, exclusive=True, group="explain")
    def _explain(self, context: Context, hit: Hit, terms: tuple[str, ...]) -> None:
        worker = get_current_worker()
        try:
            retriever = context.workbench.retriever(context.setup,
                                                    cancellable(no_progress, lambda: worker.is_cancelled))
            explanation = retriever.explain(context.query, hit.index)
            text = highlighted(hit.chunk.text, matched_spans(analyzer_for(context.setup), hit.chunk.text, terms))
            document = retriever.corpus.document(hit.chunk.doc_id)
        except Cancelled:
            return
        except RanklensError as error:
            self.app.call_from_thread(self._failed, context, str(error))
            return
        heading = Text(f"#{hit.rank}  score {hit.score:.4f}  ", style="bold")
        heading.append_text(safe_text(f"{document.title or document.id} · {hit.chunk.id}", keep_newlines=False))
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_explanation, context, heading, text, explanation)

    def _show_explanation(self, context: Context, heading: Text, text: Text, explanation: Explanation) -> None:
        if not self._stale(context):
            self.query_one(ResultDetail).show_result(heading, text, explanation)

    # -- the documents tree -----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="documents")
    def _load_documents(self, context: Context) -> None:
        worker = get_current_worker()
        try:
            chunks = context.workbench.retriever(context.setup,
                                                 cancellable(no_progress, lambda: worker.is_cancelled)).chunks
        except (Cancelled, RanklensError):
            return  # the search worker reports errors of the same setup
        if chunks is self._tree_chunks:
            return
        by_document: dict[str, list[int]] = {}
        for position, chunk in enumerate(chunks):
            by_document.setdefault(chunk.doc_id, []).append(position)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._fill_tree, context, chunks, by_document)

    def _fill_tree(self, context: Context, chunks: list[Chunk], by_document: dict[str, list[int]]) -> None:
        if self._stale(context):
            return
        self._tree_chunks = chunks
        tree = self.query_one("#documents", KeyTree)
        tree.clear()
        corpus = context.corpus
        for doc_id in list(by_document)[:TREE_DOCUMENTS]:
            document = corpus.document(doc_id)
            label = safe_text(one_line(document.title or doc_id, 60), keep_newlines=False)
            label.append(f" ({len(by_document[doc_id])})", style="dim")
            # Chunks are added when the document is opened: a big corpus must not build them all.
            tree.root.add(label, data=DocumentEntry(by_document[doc_id]))
        hidden = len(by_document) - TREE_DOCUMENTS
        if hidden > 0:
            tree.root.add_leaf(Text(f"… {hidden:,} more documents: search to reach them", style="dim"))

    @on(Tree.NodeExpanded, "#documents")
    def _document_opened(self, event: Tree.NodeExpanded) -> None:
        node, entry = event.node, event.node.data
        if not isinstance(entry, DocumentEntry) or node.children or self._tree_chunks is None:
            return
        for position in entry.positions:
            chunk = self._tree_chunks[position]
            node.add_leaf(safe_text(one_line(f"{chunk.index}: {chunk.id}", 60), keep_newlines=False),
                          data=ChunkEntry(position))

    @on(Tree.NodeHighlighted, "#documents")
    def _document_highlighted(self, event: Tree.NodeHighlighted) -> None:
        entry = event.node.data
        if entry is None or self._tree_chunks is None or self._latest is None:
            return
        position = entry.position if isinstance(entry, ChunkEntry) else entry.positions[0]
        chunk = self._tree_chunks[position]
        document = self._latest.corpus.document(chunk.doc_id)
        heading = safe_text(document.title or document.id, style="bold", keep_newlines=False)
        if isinstance(entry, ChunkEntry):
            heading.append(f"  chunk {chunk.index} ({clean(chunk.id, keep_newlines=False)}) highlighted", style="dim")
            text = highlighted(document.text, [(chunk.start, chunk.end)], style="reverse")
        else:
            text = safe_text(document.text)
        self.query_one(ResultDetail).show_document(heading, text)
