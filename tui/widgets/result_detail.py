"""The detail pane of the Search tab: one result's text and the score's term-by-term explanation,
or a document with one chunk highlighted, or why a chunk ranks where it does, or a note when there is
nothing to show."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from ranklens.tui.safe import safe_text
from ranklens.tui.widgets.lists import KeyScroll

if TYPE_CHECKING:  # the engine pulls in numpy; this module is imported before the first paint
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.explain import Explanation
    from ranklens.engine.why import WhyReport

_NUMBER = "{:.3f}"


class ResultDetail(KeyScroll):
    def compose(self) -> ComposeResult:
        yield Static(id="detail-body")

    def show_note(self, note: str) -> None:
        # notes quote engine errors, which quote file names and queries: made safe like any untrusted text
        self._show(safe_text(note, style="italic"))

    def show_result(self, heading: Text, text: Text, explanation: Explanation) -> None:
        """``heading`` and ``text`` arrive made safe; the explanation's terms are cleaned here."""
        # The score's terms first: they are what this pane explains, and at 80x24 the chunk's text
        # would push them below the fold. The formula and notes, read once, come last.
        parts: list[RenderableType] = [heading]
        if explanation.terms:
            parts.append(explanation_table(explanation))
        parts.extend([Text(), text, Text()])
        parts.append(Text(f"{explanation.scorer}: {explanation.formula}", style="dim"))
        parts.extend(Text(note, style="dim") for note in explanation.notes)
        self._show(Group(*parts))

    def show_why(self, why: Why) -> None:
        """"Why not?": the report's sentences, then the chunk's explanation beside the top result's."""
        self._show(why.view())

    def show_document(self, heading: Text, text: Text) -> None:
        self._show(Group(heading, text))

    def _show(self, renderable: RenderableType) -> None:
        self.query_one("#detail-body", Static).update(renderable)
        self.scroll_home(animate=False)


def explanation_table(explanation: Explanation) -> Table:
    """term, counts, idf, norm, weights and contribution per term, and a total equal to the score.

    The query-count column shows only when a term repeats in the query: at 80 columns its four
    cells are what the contribution column needs."""
    repeated = any(row.query_count != 1 for row in explanation.terms)
    table = Table(box=None, padding=(0, 1, 0, 0), show_edge=False, header_style="bold")
    table.add_column("term", overflow="ellipsis", no_wrap=True, min_width=6)
    numbers = ("qtf", "tf", "df", "idf", "norm", "weight", "q.w", "contrib") if repeated else (
        "tf", "df", "idf", "norm", "weight", "q.w", "contrib")
    for name in numbers:
        table.add_column(name, justify="right", no_wrap=True)
    for row in explanation.terms:
        counts = ([str(row.query_count)] if repeated else []) + [str(row.tf), str(row.df)]
        table.add_row(
            safe_text(row.term, keep_newlines=False), *counts,
            *(_NUMBER.format(value) for value in (row.idf, row.norm, row.weight, row.query_weight, row.contribution)),
        )
    table.add_section()
    table.add_row(Text("total", style="bold"), *[""] * (len(numbers) - 1),
                  Text(_NUMBER.format(explanation.total), style="bold"))
    return table


@dataclass(frozen=True)
class Why:
    """engine/why.py's report with what its sentences need: how many chunks were ranked, the decimals shown."""

    report: WhyReport
    chunks: int
    decimals: int

    def view(self) -> Group:
        return why_view(self.report, self.chunks, self.decimals)


def explained_why(retriever: Retriever, query: str, chunk: str) -> Why:
    """Why ``chunk`` ranks where it does for ``query`` under the retriever's setup (in a thread worker)."""
    from ranklens.engine.why import why

    return Why(why(retriever, query, chunk), len(retriever.chunks), retriever.setup.decimals)


def why_view(report: WhyReport, chunks: int, decimals: int) -> Group:
    """The report as the detail pane shows it (ids, terms and texts are untrusted: Text, never markup)."""
    lines = report.summary(chunks, decimals)
    parts: list[RenderableType] = [safe_text(f"why? {lines[0]}", style="bold", keep_newlines=False)]
    parts.extend(safe_text(line, keep_newlines=False) for line in lines[1:])
    for title, chunk, explanation in ((f"this chunk, {report.placed}", report.chunk, report.explanation),
                                      ("the top result, #1", report.top, report.top_explanation)):
        parts.append(Text())
        parts.append(safe_text(f"{title}: {chunk.id}", style="bold", keep_newlines=False))
        if explanation.terms:
            parts.append(explanation_table(explanation))
        parts.append(safe_text(chunk.text[:300], style="dim"))
    return Group(*parts)
