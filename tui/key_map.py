"""Every key of the app, read from the BINDINGS of ranklens' own classes: the help screen and the
command palette list what is bound, so nothing is typed twice and nothing goes stale.

Textual's own widget bindings (cursor moves inside an Input, ...) are left out:
every class but Textual's counts, so a pane lists its keys wherever it is defined.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import TabbedContent, TabPane

if TYPE_CHECKING:
    from textual.app import App

    from ranklens.tui.tabs import Tab

EVERYWHERE = "Everywhere"


@dataclass(frozen=True)
class KeyRow:
    where: str  # "Everywhere" or a tab's title
    keys: str  # as the footer shows them, alternatives joined: "f1, ?"
    description: str
    action: str
    owner: DOMNode  # the node the action runs on


@runtime_checkable
class BindsAtRunTime(Protocol):
    """A node whose bindings are not all in its class: the app binds the keys of its tab table."""

    def key_bindings(self) -> list[Binding]:
        """Every binding of the node, in the order the help lists them."""
        ...


def own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings that ranklens classes declare for ``node``, most derived class first; for a node
    that binds at run time, all of its bindings."""
    if isinstance(node, BindsAtRunTime):
        return node.key_bindings()
    found: list[Binding] = []
    for klass in type(node).__mro__:
        if klass.__module__.startswith("textual."):
            continue
        found.extend(b for b in klass.__dict__.get("BINDINGS", ()) if isinstance(b, Binding))
    return found


def rows_for(app: App, where: str, node: DOMNode, bindings: Iterable[Binding]) -> list[KeyRow]:
    rows = []
    for binding in bindings:
        if not binding.description:
            continue
        keys = ", ".join(app.get_key_display(single) for single in Binding.make_bindings([binding]))
        rows.append(KeyRow(where, keys, binding.description, binding.action, node))
    return rows


def app_rows(app: App) -> list[KeyRow]:
    return rows_for(app, EVERYWHERE, app, own_bindings(app))


def tab_rows(app: App, pane: TabPane, where: str) -> list[KeyRow]:
    """The keys of a tab: its widgets' bindings, one row per (class, binding)."""
    rows: list[KeyRow] = []
    seen: set[type] = set()
    for widget in pane.walk_children(with_self=False):
        if type(widget) in seen:
            continue
        seen.add(type(widget))
        rows.extend(rows_for(app, where, widget, own_bindings(widget)))
    return rows


def all_rows(app: App, tabs: Mapping[str, Tab]) -> list[KeyRow]:
    """The app's keys, then each tab's in tab order (every tab's pane must be built)."""
    rows = app_rows(app)
    tabbed = app.query_one(TabbedContent)
    for tab in tabs.values():
        rows.extend(tab_rows(app, tabbed.get_pane(tab.id), tab.title))
    return rows
