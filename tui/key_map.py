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

from ranklens.tui.host import Host

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
        description = binding.tooltip or binding.description  # the footer's label is the short one
        if not description:
            continue
        # Escape-digit characters ("£" for Escape then 3) are said once, in the help's title, not per tab.
        hidden = app.keys_over_boxes if isinstance(app, Host) else frozenset()
        keys = ", ".join(app.get_key_display(single.with_key(single.key))
                         for single in Binding.make_bindings([binding]) if single.key not in hidden)
        rows.append(KeyRow(where, keys, description, binding.action, node))
    return rows


def app_rows(app: App) -> list[KeyRow]:
    return rows_for(app, EVERYWHERE, app, own_bindings(app))


def tab_rows(app: App, pane: TabPane, where: str) -> list[KeyRow]:
    """The keys of a tab: its widgets' bindings, one row per (class, binding)."""
    rows: list[KeyRow] = []
    seen: set[type] = set()
    listed: set[tuple[str, str]] = set()  # a key that does the same in several widgets is listed once
    for widget in pane.walk_children(with_self=False):
        if type(widget) in seen:
            continue
        seen.add(type(widget))
        # "app." actions: the app's own keys, which a pane shows in its footer; listed under Everywhere
        own = [b for b in own_bindings(widget) if not b.action.startswith("app.")]
        for row in rows_for(app, where, widget, own):
            if (row.keys, row.description) not in listed:
                listed.add((row.keys, row.description))
                rows.append(row)
    return rows


def all_rows(app: App, tabs: Mapping[str, Tab]) -> list[KeyRow]:
    """The app's keys, then each tab's in tab order (every tab's pane must be built)."""
    rows = app_rows(app)
    tabbed = app.query_one(TabbedContent)
    for tab in tabs.values():
        rows.extend(tab_rows(app, tabbed.get_pane(tab.id), tab.title))
    return rows


_NON_TYPING_KEYS = {"escape", "enter", "tab", "backspace", "delete", "insert", "up", "down", "left", "right",
                    "home", "end", "pageup", "pagedown"}


def types_in_a_box(key: str) -> bool:
    """Whether ``key`` types a character into a text box instead of reaching a binding ("a", "slash")."""
    if key == "plus":
        return True
    if "+" in key or key in _NON_TYPING_KEYS:
        return False
    return not (key.startswith("f") and key[1:].isdigit())


def typing_actions(bindings: Iterable[Binding]) -> frozenset[str]:
    """Names of the actions whose every key types into a text box: while a box has the focus they cannot
    be pressed, so the footer leaves them out."""
    keys: dict[str, list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        keys.setdefault(binding.action.partition("(")[0].rpartition(".")[2], []).append(binding.key)
    return frozenset(action for action, found in keys.items() if all(types_in_a_box(key) for key in found))
