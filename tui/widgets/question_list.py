"""The Metrics tab's questions: each one's gold chunks and the rank of its first relevant chunk under every
scorer (and the setup's ranking reranked), drawn as rows scroll into view; Enter searches one.

A filter keeps the questions holding every word typed; the order is the
file's, or the setup's worst rank first (a miss last of all, worst).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from ranklens.engine.scoring.registry import spec
from ranklens.tui.colours import theme_colour
from ranklens.tui.metrics_work import RERANKED, Reranked
from ranklens.tui.safe import one_line, safe_text
from ranklens.tui.widgets.row_list import Column, RowList

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison

RANK_WIDTH = 6
GOLD_WIDTH = 14
QUESTION_CUT = 400  # a question's text is cut here before the list cuts it to its column


class QuestionList(RowList):
    """Every question with its ranks; Enter is described because it leaves the tab."""

    BINDINGS = [Binding("enter", "select_cursor", "search it", tooltip="Search it", id="metrics.use")]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._folded: tuple[ScorerComparison | None, list[str]] = (None, [])  # texts casefolded, for the filter

    def clear(self) -> None:
        self._folded = (None, [])  # the measured result goes with the rows, however big
        super().clear()

    def show(self, result: ScorerComparison, reranked: Reranked | None, words: list[str], worst_first: bool) -> None:
        """The questions holding every one of ``words`` (casefolded), in file order or worst rank first."""
        shown = self._ordered(result, reranked, words, worst_first)
        matching = f" · {len(shown):,} of {len(result.questions):,} match" if len(shown) < len(result.questions) else ""
        self.border_title = f"questions{matching} · Enter searches one"
        columns = [Column("question", 0), Column("gold", GOLD_WIDTH),
                   *(Column(spec(r.scorer).label, RANK_WIDTH) for r in result.scorers)]
        if reranked is not None:
            columns.append(Column(RERANKED, RANK_WIDTH))
        self.set_rows(columns, shown, lambda n: self._question_cells(result, reranked, int(str(n))))

    def _question_cells(self, result: ScorerComparison, reranked: Reranked | None, n: int) -> list[Text]:
        """Question ``n``'s row, drawn when it scrolls into view."""
        q = result.questions[n]
        gold = safe_text(one_line(", ".join(q.gold), GOLD_WIDTH) if q.gold else "answer cut")
        if not q.gold:
            gold.stylize(theme_colour(self.app, "error"))
        ranks = [*q.ranks]
        if reranked is not None:
            ranks.append(reranked.reranking.evaluation.per_question[n].rank)
        return [safe_text(one_line(q.text, QUESTION_CUT)), gold, *(self._rank(rank) for rank in ranks)]

    def _ordered(self, result: ScorerComparison, reranked: Reranked | None, words: list[str],
                 worst_first: bool) -> list[int]:
        """Positions of the questions in the file that match the filter, in file order or worst rank first
        under the setup's ranking (its scorer's, reranked when it has a reranker)."""
        if self._folded[0] is not result:
            self._folded = (result, [q.text.casefold() for q in result.questions])
        rows = [n for n, text in enumerate(self._folded[1]) if all(word in text for word in words)]
        names = [r.scorer for r in result.scorers]
        if worst_first and reranked is not None:
            ranks = [r.rank for r in reranked.reranking.evaluation.per_question]
        elif worst_first and result.current in names:
            at = names.index(result.current)
            ranks = [q.ranks[at] for q in result.questions]
        else:
            return rows
        rows.sort(key=lambda n: (ranks[n] is None, ranks[n] or 0), reverse=True)
        return rows

    def _rank(self, rank: int | None) -> Text:
        """A rank, coloured by how far the answer is from the top; a miss stands out."""
        if rank is None:
            return Text("miss", style=f"bold {theme_colour(self.app, 'error')}")
        colour = theme_colour(self.app, "success" if rank == 1 else "warning" if rank <= 3 else "error")
        return Text(str(rank).rjust(RANK_WIDTH - 1), style=colour if rank == 1 else f"bold {colour}")
