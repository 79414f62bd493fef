"""The Search tab's ranked results: rank (✓ for a chunk judged relevant), grade, score, document, snippet.

Its title counts the judged results and says whether judge mode is on, and in
judge mode the table may show the judged results only. Columns are fitted to
the table's width: below MIN_DOCUMENT_COLUMN cells the document's name goes.
"""
from __future__ import annotations

from rich.text import Text
from textual.content import Content

from ranklens.tui.colours import theme_colour
from ranklens.tui.search_work import Found, ResultRow
from ranklens.tui.widgets.lists import KeyTable

RANK_WIDTH, SCORE_WIDTH, GRADE_WIDTH = 3, 6, 1
SCROLLBAR_WIDTH = 2
MIN_DOCUMENT_COLUMN = 70  # cells of the results table below which the document column is left out


class ResultsTable(KeyTable):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")
        self.found: Found | None = None  # what the rows come from
        self.shown_rows: list[ResultRow] = []  # the rows in the table, in order (judged only: a subset)

    def show(self, found: Found | None, *, judging: bool, judged_only: bool, cursor: int | None = None,
             rater: str = "") -> None:
        """Fill the table from ``found``'s rows (``judged_only``: those with a grade); the cursor goes to row
        ``cursor`` (None: stays where it is)."""
        keep = self.cursor_row if cursor is None else cursor
        self.clear(columns=True)
        self.found = found
        rows = found.rows if found is not None else []
        grades = found.grades if found is not None else {}
        relevant = found.relevant if found is not None else frozenset()
        self.shown_rows = [row for row in rows if not judged_only or row.hit.index in grades]
        self.retitle(judging=judging, judged_only=judged_only, rater=rater)
        # Room for a vertical scrollbar is always kept, so widths do not depend on whether one shows.
        width = self.size.width - SCROLLBAR_WIDTH
        # Below MIN_DOCUMENT_COLUMN cells the document's name goes (the detail's heading names it):
        # at 80 columns the snippet is what tells results apart.
        document_width = max(8, min(18, width // 6)) if width >= MIN_DOCUMENT_COLUMN else 0
        # Each column has one cell of padding on either side.
        snippet_width = max(10, width - RANK_WIDTH - SCORE_WIDTH - GRADE_WIDTH - document_width
                            - (10 if document_width else 8))
        self.add_column("#", width=RANK_WIDTH, key="rank")
        self.add_column("g", width=GRADE_WIDTH, key="grade")
        self.add_column("score", width=SCORE_WIDTH, key="score")
        if document_width:
            self.add_column("document", width=document_width, key="document")
        self.add_column("snippet", width=snippet_width, key="snippet")
        for row in self.shown_rows:
            is_relevant = row.hit.index in relevant
            rank = Text(f"✓{row.hit.rank}" if is_relevant else str(row.hit.rank), justify="right",
                        style=f"bold {theme_colour(self.app, 'success')}" if is_relevant else "")
            cells = [rank, self._grade_cell(grades.get(row.hit.index)), Text(f"{row.hit.score:.3f}", justify="right")]
            if document_width:
                cells.append(Text(row.document, no_wrap=True, overflow="ellipsis"))
            self.add_row(*cells, row.snippet, key=str(row.hit.rank))
        if self.shown_rows and keep > 0:
            self.move_cursor(row=min(keep, len(self.shown_rows) - 1))

    def retitle(self, *, judging: bool, judged_only: bool, rater: str = "") -> None:
        """The title: how many of the results are judged, and the judge mode's state (with who judges, once
        known)."""
        title = "results"
        if self.found is not None and self.found.rows:
            judged = sum(row.hit.index in self.found.grades for row in self.found.rows)
            title += f" · judged {judged}/{len(self.found.rows)}"
        # The state, and where the tab keys went (digits grade): the footer lists the judging keys.
        if judged_only:
            title += " · JUDGE MODE · judged only"
        elif judging:
            title += " · JUDGE MODE (alt+digit: tabs)"
        if rater and (judging or judged_only):  # last: a narrow terminal cuts it before the mode's state
            title += f" · as {rater}"
        self.border_title = Content(title)  # a rater's name is the user's text: never markup

    def selected(self) -> ResultRow | None:
        """The row under the cursor."""
        return self.shown_rows[self.cursor_row] if 0 <= self.cursor_row < len(self.shown_rows) else None

    def _grade_cell(self, grade: int | None) -> Text:
        """A judged result's grade; "·" marks one not judged yet."""
        if grade is None:
            return Text("·", style="dim")
        return Text(str(grade), style=f"bold {theme_colour(self.app, 'success' if grade > 0 else 'error')}")
