"""The keys that switch tabs, from the tab table, and the tab labels that name them from where the focus is.

Outside a text box a tab's digit shows it; while typing, alt with the digit (which a box cannot type).
The tab bar says which of the two work now: "1 Search" or "alt+1 Search".
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from textual.binding import Binding
from textual.widgets import TabbedContent

from ranklens.tui.tabs import Tab

# What Textual makes of Escape then a digit (and of alt+digit in terminals that send it so): the
# characters macOS types with Option and the digit ("\x1b3" is "£"). They switch tabs as alt+digit
# does; the price is that these characters cannot be typed into a box.
ESCAPE_DIGIT_KEYS = {
    "1": "inverted_exclamation_mark", "2": "trade_mark_sign", "3": "pound_sign", "4": "cent_sign",
    "5": "infinity", "6": "section_sign", "7": "pilcrow_sign", "8": "bullet", "9": "ª", "0": "º",
}

Labels = Literal["keys", "alt", "titles"]  # what the tab labels show: "1 Search", "alt+1 Search", "Search"


def _alt_keys(key: str) -> str:
    escaped = ESCAPE_DIGIT_KEYS.get(key)
    return f"alt+{key},{escaped}" if escaped else f"alt+{key}"


def tab_bindings(tabs: Mapping[str, Tab]) -> list[Binding]:
    """Two keys per tab, from the tab table: its key (a digit) and alt with it, which a text box cannot
    type (many terminals send Escape then the digit as alt+digit, too). The footer shows the first
    tab's pair for all of them: "1-5 tabs" where digits work, "alt+1-5 tabs" while typing."""
    listed = list(tabs.values())
    span = f"{listed[0].key}-{listed[-1].key}" if len(listed) > 1 else listed[0].key
    bindings = []
    for n, tab in enumerate(listed):
        bindings.append(Binding(f"{tab.key},{_alt_keys(tab.key)}", f"show_tab('{tab.id}')", "tabs",
                                show=n == 0, key_display=span, tooltip=f"{tab.title} tab", id=f"tab.{tab.id}"))
        # Priority: a text box would type the digit of alt+digit. Enabled only while typing (see check_action).
        bindings.append(Binding(_alt_keys(tab.key), f"jump_tab('{tab.id}')", "tabs",
                                show=n == 0, key_display=f"alt+{span}", tooltip=f"{tab.title} tab (while typing)",
                                priority=True, id=f"tab.{tab.id}.typing"))
    return bindings


def keys_over_boxes(tabs: Mapping[str, Tab]) -> frozenset[str]:
    """Keys a text box must not type, so that they reach the tab bindings (see ESCAPE_DIGIT_KEYS)."""
    return frozenset(ESCAPE_DIGIT_KEYS[tab.key] for tab in tabs.values() if tab.key in ESCAPE_DIGIT_KEYS)


def labels_for(tabs: Mapping[str, Tab], typing: bool, width: int) -> Labels:
    """What the labels show in a tab bar ``width`` cells wide: the digits, or while typing the alt+digits;
    where "alt+1 Search …" does not fit (each label has a cell of padding either side), the titles alone
    (the footer says "alt+1-6 tabs")."""
    if not typing:
        return "keys"
    fits = sum(len(f"alt+{tab.key} {tab.title}") + 2 for tab in tabs.values()) < width
    return "alt" if fits else "titles"


def label(tab: Tab, labels: Labels) -> str:
    return {"alt": f"alt+{tab.key} {tab.title}", "titles": tab.title, "keys": tab.label}[labels]


class TabLabels:
    """The labels of a tab bar, following the focus: relabelled only when what they show changes."""

    def __init__(self, tabs: Mapping[str, Tab]) -> None:
        self.tabs = tabs
        self.shown: Labels | None = None

    def follow(self, tabbed: TabbedContent, typing: bool, width: int) -> None:
        labels = labels_for(self.tabs, typing, width)
        if labels == self.shown:
            return
        self.shown = labels
        for tab in self.tabs.values():
            tabbed.get_tab(tab.id).label = label(tab, labels)
        # Textual moves the underline once the relabelled tabs are refreshed, which can be before their new
        # widths are laid out. Showing the active tab again (a tab never hidden: nothing else changes) is
        # Tabs' public way to move the underline after the next refresh: asked once that layout is done,
        # it spans the active tab's new label.
        active = tabbed.active
        tabbed.call_after_refresh(tabbed.show_tab, active)
