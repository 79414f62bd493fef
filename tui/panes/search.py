"""The Search tab: documents, the query box, ranked results and the selected result's explanation.

Results follow the context: the app publishes a new one (generation + 1) for
every query or setup change, and the tab runs the search through the panes'
worker path (tui/panes/base.py), which drops a result computed for an older
context, so a stale result never reaches the screen. The work itself is in
tui/search_work.py; the documents tree and the results table are widgets.

Judging: J turns judge mode on; then the digits of the corpus' scale (0-3, or up to its top grade, shown in
the footer; a digit above it says the scale) grade the selected result for the query (saved as a
question of the corpus' workspace if it is not one yet), u takes the latest judgment back and o
shows the judged results only; meanwhile the digits grade, so alt+digit switches tabs (the tab bar,
the footer and the results' title say so). The app writes the workspace and publishes a context with it
applied, so the grades column, the Metrics tab and saved runs count the judgment at once."""
from __future__ import annotations

from collections.abc import Hashable
from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Input

from ranklens.engine.scoring.registry import spec
from ranklens.tui.context import ChangeWorkspace, Context, ShowQuery, TabKeysChanged, ranks_alike
from ranklens.tui.grade_keys import grade_bindings, off_the_scale
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.safe import one_line
from ranklens.tui.search_work import (
    Documents, Explained, Found, ResultRow, explain, find, grade_result, list_documents, placeholder_for,
    save_question, undo_judgment, why_not,
)
from ranklens.tui.typing_pause import TypingPause
from ranklens.tui.widgets.document_tree import DocumentTree
from ranklens.tui.widgets.query_box import QueryBox
from ranklens.tui.widgets.result_detail import ResultDetail, Why
from ranklens.tui.widgets.results_table import ResultsTable

DEBOUNCE_S = 0.15  # typing pauses this long before a search starts
HINT = "Type a question and the best chunks appear as you type (Enter searches at once)."


class SearchPane(WorkPane):
    # Its boxes are framed to the edge. Results of another setup, until the new ones arrive: dimmed.
    DEFAULT_CSS = """
    SearchPane { padding: 0; }
    SearchPane.-recomputing #results, SearchPane.-recomputing #detail { text-opacity: 55%; }
    """
    WAITS_FOR_INDEX = True
    # The app's keys that matter most here, shown in this tab's footer (the help lists them under Everywhere).
    BINDINGS = [
        # Judge mode's keys first: in judge mode the footer shows them before the others, which at 80 columns
        # it leaves out (each key whole or not at all: tui/widgets/footer.py).
        Binding("J", "judge_mode", "judge", tooltip="Judge mode on/off: the digits of the corpus' scale grade the "
                                                    "selected result, and alt+digit switches tabs meanwhile",
                id="search.judge"),
        # In judge mode only (check_action): otherwise 1-3 switch tabs, as everywhere.
        *grade_bindings("search", "Judge mode: grade the selected result"),
        Binding("u", "undo_judgment", "undo", tooltip="Judge mode: take back the latest judgment",
                id="search.undo_judgment"),
        Binding("o", "judged_only", "judged only", tooltip="Judge mode: show the judged results only / all",
                id="search.judged_only"),
        # a priority key, as the app's (tui/app.py): here it is the one the footer shows
        Binding("slash", "app.focus_query", "query", priority=True, id="search.query"),
        Binding("s", "app.setting('scorer')", "scorer", id="search.scorer"),
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
        self._typing = TypingPause(self, DEBOUNCE_S)
        self._found: Found | None = None  # what the rows on screen come from
        self._told = ""  # the latest warning of the reranker that could not load
        self.judging = False  # judge mode: the digits of the corpus' scale grade the selected result
        self.judged_only = False
        self.shown_query: str | None = None  # the query the results on screen were computed for
        self.shown_generation = -1

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-body"):
            tree = DocumentTree(id="documents")
            tree.border_title = "documents"
            yield tree
            with Vertical(id="search-main"):
                query = QueryBox(placeholder="Ask a question", id="query")
                query.border_title = "query"
                yield query
                results = ResultsTable(id="results")
                results.border_title = "results"
                yield results
                detail = ResultDetail(id="detail")
                detail.border_title = "detail"
                yield detail

    def on_mount(self) -> None:
        self.query_one(ResultDetail).show_note("Opening the corpus…")

    def no_corpus(self, message: str) -> None:
        self.query_one(ResultDetail).show_note(message)

    def corpus_opened(self) -> None:
        self.judged_only = False  # a filter of the old corpus' judgments; the query stays, as typed

    # -- following the app ----------------------------------------------------------------------

    def context_key(self, context: Context) -> Hashable:
        return (context.workbench, context.setup, context.query)

    def refresh_content(self, context: Context) -> None:
        self.query_one(QueryBox).placeholder = placeholder_for(context.corpus)
        listed = self.query_one(DocumentTree).documents
        # A run listing the documents may have been cancelled by a keystroke: start it again.
        if (listed is None or listed.context.workbench is not context.workbench
                or listed.context.setup != context.setup):
            # Its errors are the search's, which reports them.
            self.start_work("documents", partial(list_documents, context), self._show_documents,
                            failed=lambda message: None)
        if context.query.strip():
            self._mark_recomputing(context)
            self.start_work("search", partial(find, context), self._show_rows, failed=self._search_failed)
        else:
            self._show_rows(Found(context, [], HINT))

    def _mark_recomputing(self, context: Context) -> None:
        """Results on screen that another setup (or corpus, or engine) computed stay until the new ones
        arrive, dimmed, the title naming the scorer they come from: the setup line names the new one."""
        shown = self._shown
        if shown is None or not self._rows or ranks_alike(shown, context):
            return
        self.add_class("-recomputing")
        old, new = spec(shown.setup.scorer).short(shown.setup), spec(context.setup.scorer).short(context.setup)
        # a chunking or analysis change keeps the scorer's name: the title says "recomputing" all the same
        self.query_one(ResultsTable).border_title = (f"results of {old} · recomputing for {new}…" if old != new
                                                     else "results of the previous setup · recomputing…")

    def _search_failed(self, message: str) -> None:
        if self.context is None:
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
        self._typing.restart(partial(self._send_query, event.value))

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self._send_query(event.value)

    def _send_query(self, text: str) -> None:
        self._typing.cancel()
        self.post_message(self.QueryChanged(text))

    # -- the results ------------------------------------------------------------------------------

    def _show_rows(self, found: Found) -> None:
        context = found.context
        self.remove_class("-recomputing")
        # The same query and setup again (the workspace changed: a judgment): the cursor stays on its row
        # and the detail on its explanation.
        same = self._shown is not None and (self._shown.query, self._shown.setup) == (context.query, context.setup)
        self.shown_query, self.shown_generation = context.query, context.generation
        self._shown, self._rows, self._terms, self._found = context, found.rows, found.terms, found
        notes = [found.lost] if found.lost else []
        if found.not_reranked:
            notes.insert(0, "first stage only: the reranker cannot load")
            if found.not_reranked != self._told:  # once, not at every keystroke
                self._told = found.not_reranked
                self.notify(found.not_reranked, severity="warning", markup=False)
        if found.known:
            hits = sum(row.hit.index in found.relevant for row in found.rows)
            notes.append(f"✓ {hits} relevant in the top {len(found.rows)}" if hits
                         else f"a known question: no relevant chunk in the top {len(found.rows)}")
        results = self.query_one(ResultsTable)
        # Query words are untrusted: the subtitle is Content, never markup.
        results.border_subtitle = Content(one_line(" · ".join(notes), 200)) if notes else None
        self._fill_table(None if same else 0)
        if not results.shown_rows:
            self.query_one(ResultDetail).show_note(found.note if not found.rows else
                                                   "No judged result among these: o shows them all.")
        elif not same:
            self._explain(results.shown_rows[0])

    def _fill_table(self, cursor: int | None = None) -> None:
        """Fill the table from the rows; the cursor goes to row ``cursor`` (None: stays where it is)."""
        self.query_one(ResultsTable).show(self._found, judging=self.judging, judged_only=self.judged_only,
                                          cursor=cursor, rater=self._rater)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fill_table)

    # -- the selected result ----------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#results")
    def _result_highlighted(self, event: DataTable.RowHighlighted) -> None:
        visible = self.query_one(ResultsTable).shown_rows
        if 0 <= event.cursor_row < len(visible):
            self._explain(visible[event.cursor_row])

    @on(DataTable.RowSelected, "#results")
    def _result_selected(self) -> None:
        self.query_one(ResultDetail).focus()

    def _explain(self, row: ResultRow) -> None:
        # Only rows of the current context: older rows stay on screen until the new search answers, and
        # explaining one then could land after that answer (a failed search's note hidden under it).
        if self._shown is not None and self._shown is self.context:
            self.start_work("explain", partial(explain, self._shown, row, self._terms), self._show_explained,
                            failed=self._search_failed)

    def _show_explained(self, explained: Explained) -> None:
        self.query_one(ResultDetail).show_result(explained.heading, explained.text, explained.explanation)

    # -- judging ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.JUDGING and not self.judging:
            return False  # the key falls through to the app: 1-3 switch tabs
        return super().check_action(action, parameters)

    def takes_tab_keys(self) -> bool:
        return self.judging  # 1-3 grade (TakesTabKeys): alt+digit switches tabs meanwhile

    def action_judge_mode(self) -> None:
        self.judging = not self.judging
        self.post_message(TabKeysChanged())
        results = self.query_one(ResultsTable)
        if not self.judging:
            self.judged_only = False
            self._fill_table()
        else:
            results.retitle(judging=self.judging, judged_only=self.judged_only, rater=self._rater)
            results.focus()
        self.refresh_bindings()

    @property
    def _rater(self) -> str:
        """Who judges, for judge mode's title ("" until the first judgment asked)."""
        return self.context.rater if self.context is not None else ""

    def action_grade(self, grade: int) -> None:
        off = off_the_scale(self.context, grade)
        if off is not None:
            self.notify(off, severity="warning")
            return
        results = self.query_one(ResultsTable)
        row, context = results.selected(), self._shown
        if row is None or context is None or not context.query.strip():
            self.notify("no result to grade: search first", severity="warning")
            return
        graded = results.cursor_row
        # a grade the rater question dropped (Escape) puts the cursor back on the result it was for
        self.post_message(ChangeWorkspace(partial(grade_result, context.query, row.hit.chunk, grade), judges=True,
                                          dropped=partial(self._back_to, graded)))
        # On to the next result, as one judges down a list.
        if graded + 1 < len(results.shown_rows):
            results.move_cursor(row=graded + 1)

    def _back_to(self, row: int) -> None:
        results = self.query_one(ResultsTable)
        if row < len(results.shown_rows):
            results.move_cursor(row=row)

    def action_undo_judgment(self) -> None:
        self.post_message(ChangeWorkspace(undo_judgment, judges=True))

    def action_judged_only(self) -> None:
        self.judged_only = not self.judged_only
        self._fill_table(0)
        visible = self.query_one(ResultsTable).shown_rows
        if visible:
            self._explain(visible[0])
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
            row = self.query_one(ResultsTable).selected()
            if row is None:
                self.notify("no result selected", severity="warning")
                return
            chunk = row.hit.chunk.id
        self.start_work("why", partial(why_not, self._shown, chunk), self._show_why, failed=self._why_failed)

    def _show_why(self, why: Why) -> None:
        self.query_one(ResultDetail).show_why(why)

    def _why_failed(self, message: str) -> None:
        self.notify(message, severity="warning", markup=False)  # it may quote a chunk id or the query

    # -- the documents tree -----------------------------------------------------------------------

    def _show_documents(self, documents: Documents) -> None:
        self.query_one(DocumentTree).show(documents)

    @on(DocumentTree.Highlighted)
    def _document_highlighted(self, event: DocumentTree.Highlighted) -> None:
        self.query_one(ResultDetail).show_document(event.heading, event.text)
