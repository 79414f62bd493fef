"""The Search tab: documents, the query box, ranked results and the selected result's explanation.

Results follow the context: the app publishes a new one (generation + 1) for
every query or setup change, and the tab runs the search through the panes'
worker path (tui/panes/base.py), which drops a result computed for an older
context, so a stale result never reaches the screen.

Judging: J turns judge mode on; then 0-3 grade the selected result for the query (saved as a
question of the corpus' workspace if it is not one yet), u takes the latest judgment back and o
shows the judged results only. The app writes the workspace and publishes a context with it
applied, so the grades column, the Metrics tab and saved runs count the judgment at once."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input, Tree

from ranklens.engine.analysis import Analyzer
from ranklens.engine.progress import Progress
from ranklens.engine.setup import Setup
from ranklens.tui.context import ChangeWorkspace, Context, ShowQuery
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.safe import clean, one_line, safe_text
from ranklens.tui.widgets.highlight import highlighted, snippet
from ranklens.tui.widgets.lists import KeyTable, KeyTree
from ranklens.tui.widgets.query_box import QueryBox
from ranklens.tui.widgets.result_detail import ResultDetail, Why, explained_why

if TYPE_CHECKING:
    from ranklens.engine.corpus import Chunk, Corpus
    from ranklens.engine.retriever import Hit, Retriever, SearchResult
    from ranklens.engine.scoring.explain import Explanation
    from ranklens.engine.workspace import Workspace

DEBOUNCE_S = 0.15  # typing pauses this long before a search starts
TREE_DOCUMENTS = 1_000  # documents listed in the tree; a bigger corpus is reached by searching
SNIPPET_CHARS = 300  # characters cut for a snippet; the column shows what fits
RANK_WIDTH, SCORE_WIDTH, GRADE_WIDTH = 3, 6, 1
GRADES = {0: "not relevant", 1: "relevant", 2: "highly relevant", 3: "perfect"}
SCROLLBAR_WIDTH = 2
MIN_DOCUMENT_COLUMN = 70  # cells of the results table below which the document column is left out
DOCUMENT_WINDOW = 20_000  # characters of a document the detail pane draws around a chunk
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
class Reread:
    """What the reranker made of a result: its first-stage place and both scores."""

    first_rank: int
    first_score: float
    score: float | None  # None below the reranked top


@dataclass(frozen=True)
class ResultRow:
    hit: Hit  # with the rank-deciding score: the reranker's for the reranked top
    document: str  # the document's title or id, cleaned
    snippet: Text
    reread: Reread | None = None  # set when the setup has a reranker


@dataclass(frozen=True)
class Found:
    """A search's rows, for the context they were computed for."""

    context: Context
    rows: list[ResultRow]
    note: str  # shown when there are no rows
    terms: tuple[str, ...] = ()  # the analysed query
    relevant: frozenset[int] = frozenset()  # positions of chunks judged relevant, when the query is a known question
    known: bool = False  # the query is one of the corpus' questions with an answer
    lost: str = ""  # what analysis dropped from the query: words not in the corpus, stop words
    grades: Mapping[int, int] = field(default_factory=dict)  # position -> grade of judged chunks (0 too)
    unseen: tuple[str, ...] = ()  # ids of relevant chunks the rows do not show, best grade first


@dataclass(frozen=True)
class Explained:
    heading: Text
    text: Text
    explanation: Explanation


@dataclass(frozen=True)
class Documents:
    context: Context
    chunks: list[Chunk]
    by_document: dict[str, list[int]]  # positions in ``chunks``, documents in corpus order


# -- the work, in thread workers ----------------------------------------------------------------


def find(context: Context, progress: Progress) -> Found:
    """Run the context's query; each row carries its snippet with the query's terms marked."""
    from ranklens.engine.why import lost_words

    retriever = context.workbench.retriever(context.setup, progress)
    analyzer = analyzer_for(context.setup)
    if context.setup.rerank:
        result, rows = _reranked(retriever, analyzer, context.query, progress)
    else:
        result = retriever.search(context.query)
        rows = [_row(retriever, analyzer, hit, result.terms) for hit in result.hits]
    # A known question (one sent from Metrics, or typed as it is): its judged chunks get a ✓ and a grade.
    text = context.query.strip()
    question = next((q for q in retriever.corpus.questions if q.text.strip() == text), None) if text else None
    grades = dict(retriever.relevant(question)) if question is not None else {}
    relevant = frozenset(grades)
    if question is not None and context.workspace is not None:
        grades.update(_workspace_grades(context.workspace, retriever, question.id))
    shown = {row.hit.index for row in rows}
    unseen = tuple(retriever.chunks[i].id for i in sorted((i for i in relevant if i not in shown),
                                                          key=lambda i: (-grades.get(i, 1), i)))
    lost = lost_words(retriever, context.query)
    said = [("not in the corpus", [w.word for w in lost if w.reason == "not in the vocabulary"]),
            ("stop words", [w.word for w in lost if w.reason == "stop word"])]
    return Found(context, rows, result.note or "No chunk matches.", tuple(result.terms), relevant,
                 question is not None and question.answerable,
                 " · ".join(f"{name}: {', '.join(words)}" for name, words in said if words), grades, unseen)


def _reranked(retriever: Retriever, analyzer: Analyzer, text: str,
              progress: Progress) -> tuple[SearchResult, list[ResultRow]]:
    """The first stage's results reread by the setup's reranker (loaded once per process: seconds)."""
    from ranklens.engine.rerank import rerank_search
    from ranklens.engine.retriever import Hit

    progress(0, 1, f"reranking with {retriever.setup.rerank}")
    reranked = rerank_search(retriever, text)
    rows = [_row(retriever, analyzer,
                 Hit(hit.rank, hit.index, hit.chunk, hit.first_score if hit.rerank_score is None else hit.rerank_score),
                 reranked.first.terms, Reread(hit.first_rank, hit.first_score, hit.rerank_score))
            for hit in reranked.hits]
    return reranked.first, rows


def _workspace_grades(workspace: Workspace, retriever: Retriever, question: str) -> dict[int, int]:
    """The workspace's judgments of ``question`` by chunk position (grade 0 included: judged, not relevant)."""
    from ranklens.engine.corpus import Question
    from ranklens.engine.errors import RanklensError

    try:
        judged = workspace.judgments().get(question, {})
    except RanklensError:
        return {}  # the app said, when it opened the corpus, that the workspace could not be read
    # Resolved as any judgment is (chunk ids, or documents' chunks), grades 0 kept.
    return retriever.relevant(Question(question, "", judged))


def why_not(context: Context, chunk: str, progress: Progress) -> Why:
    """engine/why.py's report on ``chunk`` for the context's query."""
    return explained_why(context.workbench.retriever(context.setup, progress), context.query, chunk)


def grade_result(text: str, chunk: str, grade: int | None, workspace: Workspace, corpus: Corpus) -> str:
    """Grade ``chunk`` for the question asking ``text`` (saved as one first if it is not): a ChangeWorkspace."""
    question, added = workspace.question_for(text, corpus)
    workspace.judge(question.id, chunk, grade)
    return f"saved the query as question {question.id}" if added else ""


def save_question(text: str, workspace: Workspace, corpus: Corpus) -> str:
    question, added = workspace.question_for(text, corpus)
    return f"saved as question {question.id}" if added else f"already a question: {question.id}"


def undo_judgment(workspace: Workspace, corpus: Corpus) -> str:
    undone = workspace.undo()
    if undone is None:
        return "no judgment to undo"
    back = "unjudged" if undone.grade is None else f"grade {undone.grade}"
    return f"undone: {undone.id} for question {undone.question} is {back} again"


def _row(retriever: Retriever, analyzer: Analyzer, hit: Hit, terms: Sequence[str],
         reread: Reread | None = None) -> ResultRow:
    document = retriever.corpus.document(hit.chunk.doc_id)
    text = hit.chunk.text[:SNIPPET_CHARS * 4]  # spans past the snippet are never shown
    return ResultRow(hit, one_line(document.title or document.id, 40),
                     snippet(text, matched_spans(analyzer, text, terms), SNIPPET_CHARS), reread)


def explain(context: Context, row: ResultRow, terms: tuple[str, ...], progress: Progress) -> Explained:
    """The row's score term by term (the first stage's, when a reranker reread it), and its chunk with
    the query's terms marked."""
    hit = row.hit
    retriever = context.workbench.retriever(context.setup, progress)
    explanation = retriever.explain(context.query, hit.index)
    text = highlighted(hit.chunk.text, matched_spans(analyzer_for(context.setup), hit.chunk.text, terms))
    document = retriever.corpus.document(hit.chunk.doc_id)
    heading = Text(f"#{hit.rank}  {_scores(row)}  ", style="bold")
    heading.append_text(safe_text(f"{document.title or document.id} · {hit.chunk.id}", keep_newlines=False))
    return Explained(heading, text, explanation)


def _scores(row: ResultRow) -> str:
    reread = row.reread
    if reread is None:
        return f"score {row.hit.score:.4f}"
    first = f"first stage #{reread.first_rank}, score {reread.first_score:.4f}"
    if reread.score is None:
        return f"{first} (below the reranked top)"
    return f"rerank score {reread.score:.4f} ({first}; explained below)"


def list_documents(context: Context, progress: Progress) -> Documents:
    """The context's chunks grouped by document, for the tree (the chunks only: the app builds the index and
    the scorer, and says how that goes on the setup line)."""
    chunks = context.workbench.chunks(context.setup, progress)
    by_document: dict[str, list[int]] = {}
    for position, chunk in enumerate(chunks):
        by_document.setdefault(chunk.doc_id, []).append(position)
    return Documents(context, chunks, by_document)


def placeholder_for(corpus: Corpus) -> str:
    """The query box's hint, with one of the corpus' own questions as the example (in its language)."""
    example = next((q.text for q in corpus.questions if q.text.strip()), "")
    if not example:
        return "Ask a question about the documents"
    return f"Ask a question, e.g. {one_line(example, 60)}"


class SearchPane(WorkPane):
    DEFAULT_CSS = "SearchPane { padding: 0; }"  # its boxes are framed to the edge
    WAITS_FOR_INDEX = True
    # The app's keys that matter most here, shown in this tab's footer (the help lists them under Everywhere).
    BINDINGS = [
        Binding("slash", "app.focus_query", "query", id="search.query"),
        Binding("s", "app.setting('scorer')", "scorer", id="search.scorer"),
        Binding("J", "judge_mode", "judge", tooltip="Judge mode on/off: 0-3 grade the selected result",
                id="search.judge"),
        # In judge mode only (check_action): otherwise 1-3 switch tabs, as everywhere.
        *(Binding(str(grade), f"grade({grade})", "grade", key_display="0-3", show=grade == 0,
                  tooltip=f"Judge mode: grade the selected result {grade} ({name})", id=f"search.grade.{grade}")
          for grade, name in GRADES.items()),
        Binding("u", "undo_judgment", "undo", tooltip="Judge mode: take back the latest judgment",
                id="search.undo_judgment"),
        Binding("o", "judged_only", "judged only", tooltip="Judge mode: show the judged results only / all",
                id="search.judged_only"),
        Binding("n", "save_question", "question", tooltip="Save the query as a question of the workspace",
                show=False, id="search.save_question"),
        Binding("y", "why", "why?", tooltip="Why not? The selected result (a known question's relevant chunk "
                                            "the results miss, first) against the top result", id="search.why"),
    ]
    JUDGING = frozenset({"grade", "undo_judgment", "judged_only"})

    class QueryChanged(Message):
        """The query box settled on a new text (after the debounce, or at once on Enter)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[ResultRow] = []
        self._shown: Context | None = None  # the context the rows on screen were computed for
        self._terms: tuple[str, ...] = ()  # the analysed query of the rows on screen
        self._debounce: Timer | None = None
        self._tree: Documents | None = None  # what the documents tree shows
        self._relevant: frozenset[int] = frozenset()  # positions of the rows' chunks judged relevant
        self._found: Found | None = None  # what the rows on screen come from
        self._visible: list[ResultRow] = []  # the rows in the table, in order (judged only: a subset)
        self.judging = False  # judge mode: 0-3 grade the selected result
        self.judged_only = False
        self.shown_query: str | None = None  # the query the results on screen were computed for
        self.shown_generation = -1

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-body"):
            tree: KeyTree[DocumentEntry | ChunkEntry] = KeyTree("documents", id="documents")
            tree.show_root = False
            tree.border_title = "documents"
            yield tree
            with Vertical(id="search-main"):
                query = QueryBox(placeholder="Ask a question", id="query")
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

    def no_corpus(self, message: str) -> None:
        self.query_one(ResultDetail).show_note(message)

    # -- following the app ----------------------------------------------------------------------

    def context_key(self, context: Context) -> Hashable:
        return (id(context.workbench), context.setup, context.query)

    def refresh_content(self, context: Context) -> None:
        self.query_one(QueryBox).placeholder = placeholder_for(context.corpus)
        tree = self._tree
        # A run listing the documents may have been cancelled by a keystroke: start it again.
        if tree is None or tree.context.workbench is not context.workbench or tree.context.setup != context.setup:
            self.start_work("documents", partial(list_documents, context))
        if context.query.strip():
            self.start_work("search", partial(find, context))
        else:
            self._show_rows(Found(context, [], HINT))

    def work_done(self, group: str, result: Any) -> None:
        if group == "search":
            self._show_rows(result)
        elif group == "explain":
            self.query_one(ResultDetail).show_result(result.heading, result.text, result.explanation)
        elif group == "documents":
            self._fill_tree(result)
        elif group == "why":
            self.query_one(ResultDetail).show_why(result)

    def work_failed(self, group: str, message: str) -> None:
        if group == "documents" or self.context is None:
            return  # the search reports errors of the same setup
        if group == "why":
            self.notify(message, severity="warning", markup=False)  # it may quote a chunk id or the query
            return
        self._show_rows(Found(self.context, [], message))
        self.notify(message, severity="error", markup=False)

    def show_query(self, text: str) -> str:
        """Put ``text`` in the query box (a question sent from another tab); returns it as the box
        holds it, control characters made visible."""
        box = self.query_one(QueryBox)
        box.value = text
        return box.value

    def on_show_query(self, message: ShowQuery) -> None:
        self._send_query(self.show_query(message.text))  # searched at once, not after the typing pause

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

    # -- the results ------------------------------------------------------------------------------

    def _show_rows(self, found: Found) -> None:
        context = found.context
        # The same query and setup again (the workspace changed: a judgment): the cursor stays on its row
        # and the detail on its explanation.
        same = self._shown is not None and (self._shown.query, self._shown.setup) == (context.query, context.setup)
        self.shown_query, self.shown_generation = context.query, context.generation
        self._shown, self._rows, self._terms = context, found.rows, found.terms
        self._relevant, self._found = found.relevant, found
        results = self.query_one("#results", KeyTable)
        notes = [found.lost] if found.lost else []
        if found.known:
            hits = sum(row.hit.index in found.relevant for row in found.rows)
            notes.append(f"✓ {hits} relevant in the top {len(found.rows)}" if hits
                         else f"a known question: no relevant chunk in the top {len(found.rows)}")
        # Query words are untrusted: the subtitle is Content, never markup.
        results.border_subtitle = Content(one_line(" · ".join(notes), 200)) if notes else None
        self._fill_table(None if same else 0)
        if not self._visible:
            self.query_one(ResultDetail).show_note(found.note if not found.rows else
                                                   "No judged result among these: o shows them all.")
        elif not same:
            self._explain(self._visible[0])

    def _fill_table(self, cursor: int | None = None) -> None:
        """Fill the table from the rows; the cursor goes to row ``cursor`` (None: stays where it is)."""
        table = self.query_one("#results", KeyTable)
        keep = table.cursor_row if cursor is None else cursor
        table.clear(columns=True)
        grades = self._found.grades if self._found is not None else {}
        self._visible = [row for row in self._rows if not self.judged_only or row.hit.index in grades]
        self._title_results()
        # Room for a vertical scrollbar is always kept, so widths do not depend on whether one shows.
        width = table.size.width - SCROLLBAR_WIDTH
        # Below MIN_DOCUMENT_COLUMN cells the document's name goes (the detail's heading names it):
        # at 80 columns the snippet is what tells results apart.
        document_width = max(8, min(18, width // 6)) if width >= MIN_DOCUMENT_COLUMN else 0
        # Each column has one cell of padding on either side.
        snippet_width = max(10, width - RANK_WIDTH - SCORE_WIDTH - GRADE_WIDTH - document_width
                            - (10 if document_width else 8))
        table.add_column("#", width=RANK_WIDTH, key="rank")
        table.add_column("g", width=GRADE_WIDTH, key="grade")
        table.add_column("score", width=SCORE_WIDTH, key="score")
        if document_width:
            table.add_column("document", width=document_width, key="document")
        table.add_column("snippet", width=snippet_width, key="snippet")
        for row in self._visible:
            relevant = row.hit.index in self._relevant
            rank = Text(f"✓{row.hit.rank}" if relevant else str(row.hit.rank), justify="right",
                        style=f"bold {self.colour('success')}" if relevant else "")
            cells = [rank, self._grade_cell(grades.get(row.hit.index)), Text(f"{row.hit.score:.3f}", justify="right")]
            if document_width:
                cells.append(Text(row.document, no_wrap=True, overflow="ellipsis"))
            table.add_row(*cells, row.snippet, key=str(row.hit.rank))
        if self._visible and keep > 0:
            table.move_cursor(row=min(keep, len(self._visible) - 1))

    def _grade_cell(self, grade: int | None) -> Text:
        """A judged result's grade; "·" marks one not judged yet."""
        if grade is None:
            return Text("·", style="dim")
        return Text(str(grade), style=f"bold {self.colour('success' if grade > 0 else 'error')}")

    def _title_results(self) -> None:
        """The results' title: how many of the shown results are judged, and the judge mode's state."""
        results = self.query_one("#results", KeyTable)
        title = "results"
        if self._found is not None and self._found.rows:
            judged = sum(row.hit.index in self._found.grades for row in self._found.rows)
            title += f" · judged {judged}/{len(self._found.rows)}"
        # The state before the key hints (the footer repeats them): 80 columns cut the title's end.
        if self.judged_only:
            title += " · JUDGE MODE · judged only"
        elif self.judging:
            title += " · JUDGE MODE: 0-3 grade · u undo · o judged only"
        results.border_title = title

    def on_resize(self) -> None:
        self.call_after_refresh(self._fill_table)

    # -- the selected result ----------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#results")
    def _result_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self._visible):
            self._explain(self._visible[event.cursor_row])

    @on(DataTable.RowSelected, "#results")
    def _result_selected(self) -> None:
        self.query_one(ResultDetail).focus()

    def _explain(self, row: ResultRow) -> None:
        # Only rows of the current context: older rows stay on screen until the new search answers, and
        # explaining one then could land after that answer (a failed search's note hidden under it).
        if self._shown is not None and self._shown is self.context:
            self.start_work("explain", partial(explain, self._shown, row, self._terms))

    # -- judging ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.JUDGING and not self.judging:
            return False  # the key falls through to the app: 1-3 switch tabs
        return super().check_action(action, parameters)

    def _selected(self) -> ResultRow | None:
        table = self.query_one("#results", KeyTable)
        return self._visible[table.cursor_row] if 0 <= table.cursor_row < len(self._visible) else None

    def action_judge_mode(self) -> None:
        self.judging = not self.judging
        if not self.judging:
            self.judged_only = False
            self._fill_table()
        else:
            self._title_results()
            self.query_one("#results", KeyTable).focus()
        self.refresh_bindings()

    def action_grade(self, grade: int) -> None:
        row, context = self._selected(), self._shown
        if row is None or context is None or not context.query.strip():
            self.notify("no result to grade: search first", severity="warning")
            return
        self.post_message(ChangeWorkspace(partial(grade_result, context.query, row.hit.chunk.id, grade)))
        # On to the next result, as one judges down a list.
        table = self.query_one("#results", KeyTable)
        if table.cursor_row + 1 < len(self._visible):
            table.move_cursor(row=table.cursor_row + 1)

    def action_undo_judgment(self) -> None:
        self.post_message(ChangeWorkspace(undo_judgment))

    def action_judged_only(self) -> None:
        self.judged_only = not self.judged_only
        self._fill_table(0)
        if self._visible:
            self._explain(self._visible[0])
        elif self._rows:
            self.query_one(ResultDetail).show_note("No judged result among these: o shows them all.")

    def action_save_question(self) -> None:
        query = self._shown.query if self._shown is not None else ""
        if not query.strip():
            self.notify("type a query first: it is what gets saved", severity="warning")
            return
        self.post_message(ChangeWorkspace(partial(save_question, query)))

    def action_why(self) -> None:
        if self._shown is None or self._found is None or not self._shown.query.strip():
            self.notify("search first: why? explains a result of the query", severity="warning")
            return
        if self._found.unseen:  # "why not?": the relevant chunk the results miss
            chunk = self._found.unseen[0]
        else:
            row = self._selected()
            if row is None:
                self.notify("no result selected", severity="warning")
                return
            chunk = row.hit.chunk.id
        self.start_work("why", partial(why_not, self._shown, chunk))

    # -- the documents tree -----------------------------------------------------------------------

    def _fill_tree(self, documents: Documents) -> None:
        previous, self._tree = self._tree, documents
        if previous is not None and previous.chunks is documents.chunks:
            return  # a new scorer on the same chunks: the tree is right as it is
        tree = self.query_one("#documents", KeyTree)
        tree.clear()
        corpus = documents.context.corpus
        for doc_id in list(documents.by_document)[:TREE_DOCUMENTS]:
            document = corpus.document(doc_id)
            label = safe_text(one_line(document.title or doc_id, 60), keep_newlines=False)
            label.append(f" ({len(documents.by_document[doc_id])})", style="dim")
            # Chunks are added when the document is opened: a big corpus must not build them all.
            tree.root.add(label, data=DocumentEntry(documents.by_document[doc_id]))
        hidden = len(documents.by_document) - TREE_DOCUMENTS
        if hidden > 0:
            tree.root.add_leaf(Text(f"… {hidden:,} more documents: search to reach them", style="dim"))

    @on(Tree.NodeExpanded, "#documents")
    def _document_opened(self, event: Tree.NodeExpanded) -> None:
        node, entry = event.node, event.node.data
        if not isinstance(entry, DocumentEntry) or node.children or self._tree is None:
            return
        for position in entry.positions:
            chunk = self._tree.chunks[position]
            node.add_leaf(safe_text(one_line(f"{chunk.index}: {chunk.id}", 60), keep_newlines=False),
                          data=ChunkEntry(position))

    @on(Tree.NodeHighlighted, "#documents")
    def _document_highlighted(self, event: Tree.NodeHighlighted) -> None:
        entry = event.node.data
        if entry is None or self._tree is None:
            return
        position = entry.position if isinstance(entry, ChunkEntry) else entry.positions[0]
        chunk = self._tree.chunks[position]
        document = self._tree.context.corpus.document(chunk.doc_id)
        heading = safe_text(document.title or document.id, style="bold", keep_newlines=False)
        # Drawn on every cursor move: a long document shows a window around the chunk, never all of it.
        centre = (chunk.start + chunk.end) // 2 if isinstance(entry, ChunkEntry) else 0
        lo = max(0, min(centre - DOCUMENT_WINDOW // 2, len(document.text) - DOCUMENT_WINDOW))
        hi = min(len(document.text), lo + DOCUMENT_WINDOW)
        piece = document.text[lo:hi]
        if isinstance(entry, ChunkEntry):
            heading.append(f"  chunk {chunk.index} ({clean(chunk.id, keep_newlines=False)}) highlighted", style="dim")
            text = highlighted(piece, [(max(chunk.start - lo, 0), min(chunk.end, hi) - lo)], style="reverse")
        else:
            text = safe_text(piece)
        if hi - lo < len(document.text):
            heading.append(f"  characters {lo:,}–{hi:,} of {len(document.text):,}", style="dim")
        self.query_one(ResultDetail).show_document(heading, text)
