"""The Metrics tab's strata view as text: a row per stratum of a question field, a column per scorer.

One of eval's metrics at a time (``B`` steps through the metric table), shown as the tables
show it (counts such as ``3/4`` for hit rates); each row's best value stands out, so "LSA
wins on long questions" reads down a column. Stratum names come from queries.jsonl:
untrusted, cleaned and held in a ``Text``, never markup.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ranklens.engine.measuring.metric_table import metric
from ranklens.engine.scoring.registry import spec
from ranklens.tui.safe import one_line

if TYPE_CHECKING:
    from ranklens.tui.metrics_work import StrataTable

STRATUM_CELLS = 22  # a stratum's name is cut to this many cells
TIE = 1e-9  # values this close are equally best


def strata_text(table: StrataTable, key: str, best_style: str) -> Text:
    """The table of metric ``key`` (a key of the metric table) per stratum and scorer; each row's best in
    ``best_style``."""
    shown = metric(key)
    names = [one_line(stratum.stratum, STRATUM_CELLS) for stratum in table.strata]
    name_cells = max(7, *(len(name) for name in names)) if names else 7
    biggest = max((stratum.questions for stratum in table.strata), default=1)
    value_cells = len(f"{biggest}/{biggest}") if shown.counted else 5
    headings = [spec(name).label for name in table.scorers]
    cells = [max(len(heading), value_cells) for heading in headings]
    text = Text()
    text.append(f"{'stratum':<{name_cells}} {'n':>4}")
    for heading, width in zip(headings, cells):
        text.append(f"  {heading:>{width}}")
    for name, stratum in zip(names, table.strata):
        values = [stratum.means[scorer][key] for scorer in table.scorers]
        best = max(values, default=0.0)
        text.append(f"\n{name:<{name_cells}} {stratum.questions:>4}")
        for value, width in zip(values, cells):
            style = best_style if len(values) > 1 and value >= best - TIE else ""
            text.append("  ")
            text.append(f"{shown.text(value, stratum.questions):>{width}}", style=style)
    overlap = sum(stratum.questions for stratum in table.strata) > table.questions
    text.append(f"\n\n{table.questions} questions measured"
                + ("; a question with several values counts in each of their strata" if overlap else "")
                + f". {shown.header}: {shown.definition}.")
    return text
