"""Every key of the app, read from the BINDINGS of ranklens' own classes: the help screen and the
command palette list what is bound, so nothing is typed twice and nothing goes stale.

Textual's own widget bindings (cursor moves inside an Input, ...) are left out:
only classes defined under ``tui.`` count, which includes every pane.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import TabbedContent, TabPane

if TYPE_CHECKING:
    from textual.app import App

EVERYWHERE = "Everywhere"


@dataclass(frozen=True)
class KeyRow:
    where: str  # "Everywhere" or a tab's title
    keys: str  # as the footer shows them, alternatives joined: "f1, ?"
    description: str
    action: str
    owner: DOMNode  # the node the action runs on


def own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings that ranklens classes declare for ``node``, most derived class first."""
    found: list[Binding] = []
    for klass in type(node).__mro__:
        if not klass.__module__.startswith("ranklens.tui."):
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


def all_rows(app: App, titles: Mapping[str, str]) -> list[KeyRow]:
    """The app's keys, then each tab's in tab order; ``titles`` maps tab ids to titles."""
    rows = app_rows(app)
    tabs = app.query_one(TabbedContent)
    for tab_id, title in titles.items():
        rows.extend(tab_rows(app, tabs.get_pane(tab_id), title))
    return rows
