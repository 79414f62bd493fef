"""The tab table: every tab of the app, in order, with its title, its pane and the key that shows it.

The app composes the tabs from it (the first one is shown at start), binds
the keys, and the help screen and the command palette list each tab's keys
under its title. A new tab is one
module in ``tui/panes/`` (a ``WorkPane`` subclass: see ``tui/panes/base.py``)
and one line here.
"""
from __future__ import annotations

from dataclasses import dataclass

from ranklens.tui.panes.base import WorkPane
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.panes.compare import ComparePane
from ranklens.tui.panes.index import IndexPane
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.panes.prompt import PromptPane
from ranklens.tui.panes.search import SearchPane


@dataclass(frozen=True)
class Tab:
    id: str  # the TabPane's id; the pane's is "<id>-pane"
    title: str
    pane: type[WorkPane]
    key: str  # shows the tab from anywhere but a text box; also its label's prefix

    @property
    def label(self) -> str:
        return f"{self.key} {self.title}"


def tab_table(*tabs: Tab) -> dict[str, Tab]:
    """``tabs`` by id, in order; ids and keys must be unique, or a tab could never be reached."""
    for attribute in ("id", "key"):
        values = [getattr(tab, attribute) for tab in tabs]
        if len(set(values)) != len(values):
            raise ValueError(f"two tabs share a {attribute}: {values}")
    return {tab.id: tab for tab in tabs}


TABS = tab_table(
    Tab("search", "Search", SearchPane, "1"),
    Tab("metrics", "Metrics", MetricsPane, "2"),
    Tab("chunking", "Chunking", ChunkingPane, "3"),
    Tab("index", "Index", IndexPane, "4"),
    Tab("prompt", "Prompt", PromptPane, "5"),
    Tab("compare", "Compare", ComparePane, "6"),
)
