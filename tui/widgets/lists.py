"""A tree, a table and a scroll view that also move with j/k and g/G (Home/End), as a keyboard user expects.

The three share one pair of bindings; each maps them onto its own cursor or
scroll actions, which are named alike in Textual (``cursor_down``,
``scroll_down``).
"""
from __future__ import annotations

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Tree


def _vim_moves(down: str, up: str, where: str, top: str, bottom: str) -> list[BindingType]:
    return [
        Binding("j", down, "Down", show=False, id=f"{where}.down"),
        Binding("k", up, "Up", show=False, id=f"{where}.up"),
        Binding("g,home", top, "First line", show=False, id=f"{where}.top"),
        Binding("G,end", bottom, "Last line", show=False, id=f"{where}.bottom"),
    ]


class KeyTree(Tree):
    BINDINGS = [
        *_vim_moves("cursor_down", "cursor_up", "tree", "scroll_home", "scroll_end"),
        # Textual's, described for the help: a tree's keys are not obvious.
        Binding("enter", "select_cursor", "Open or close a document", show=False, id="tree.select"),
        Binding("space", "toggle_node", "Open or close a document", show=False, id="tree.toggle"),
        Binding("shift+left", "cursor_parent", "Up to the document", show=False, id="tree.parent"),
    ]

    def on_focus(self) -> None:
        # Textual's tree starts without a cursor line: the first Enter would do nothing.
        if self.cursor_line < 0 and self.root.children:
            self.cursor_line = 0


class KeyTable(DataTable):
    # Home and End move to the first and last row (Textual's go to the first and last column).
    BINDINGS = _vim_moves("cursor_down", "cursor_up", "table", "scroll_top", "scroll_bottom")


class KeyScroll(VerticalScroll, can_focus=True):
    """A focusable scroll view: long text is read with the keyboard, no mouse."""

    BINDINGS = _vim_moves("scroll_down", "scroll_up", "scroll", "scroll_home", "scroll_end")
