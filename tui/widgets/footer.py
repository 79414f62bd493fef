"""The footer: Textual's, each key shown whole or not at all.

Textual's footer lays its keys out in one row and the screen's edge cuts the last one wherever it
falls ("y why" for "y why?", at 80 columns in judge mode). Here the keys that do not fit are left
out whole, in the order the bindings list them, after room is kept for the keys that say where the
tabs and the help are (a user who sees those finds the rest: the help lists every key).

The keys' widths are measured once laid out, each time the footer is composed anew (its keys follow
the focus and the tab); a resize fits the same widths again.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

KEPT_ACTIONS = frozenset({"show_tab", "jump_tab", "help", "help_while_typing"})  # always shown


class FittedFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._widths: dict[Widget, int] = {}  # the keys' widths as laid out, margins included
        self._composed: tuple[object, ...] = ()  # what the keys on show were made of (_shown)

    def on_mount(self) -> None:
        super().on_mount()
        # Keys composed while their screen is not laid out (another screen over it) are measured at its
        # next layout; asking again after every refresh instead kept the event loop busy all that while.
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out)

    def on_unmount(self) -> None:
        super().on_unmount()
        self.screen.screen_layout_refresh_signal.unsubscribe(self)

    async def recompose(self) -> None:
        # Asked on every change of the bindings (each focus move, each worker started or done), mostly
        # to show the same keys: they stay, measured, unless what they show changed.
        if self.children and self._shown() == self._composed:
            return
        await super().recompose()
        self.call_after_refresh(self.fit)

    def compose(self) -> ComposeResult:
        self._composed = self._shown()  # read when the keys are made: a change meanwhile recomposes again
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # Textual makes a key compact and then binds it to the footer's compact (not): two restylings of
                # every key at each recompose. Made as the footer is, neither happens. (The palette's key is not
                # bound: it stays compact.)
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def _shown(self) -> tuple[object, ...]:
        """What ``compose`` makes keys of: the screen's bindings, enabled or not, as the footer words them."""
        if not self._bindings_ready:
            return ()
        keys = tuple((binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                      binding.group, binding.show, enabled, tooltip)
                     for (_, binding, enabled, tooltip) in self.screen.active_bindings.values())
        return keys, self.show_command_palette

    def _laid_out(self, _screen: object) -> None:
        if any(child not in self._widths for child in self.children):
            self.fit()

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """Show the keys that fit whole, the kept ones first; leave the others out."""
        items = self._items()
        if not items:
            return
        # Keys composed since the last measure (a recompose replaces them all, each shown): measured now.
        if any(child not in self._widths for child in self.children):
            if any(not child.size.width for child in self.children):
                return  # not laid out yet: _laid_out fits them
            self._widths = {child: child.outer_size.width + child.styles.margin.left + child.styles.margin.right
                            for child in self.children}
        palette = sum(self._widths.get(child, 0) for child in self.children if child.has_class("-command-palette"))
        room = self.size.width - palette
        kept = [item for item in items if _kept(item)]
        room -= sum(self._width(item) for item in kept)
        for item in items:
            shown = item in kept or self._width(item) <= room
            if shown and item not in kept:
                room -= self._width(item)
            for child in item:
                child.display = shown

    def _items(self) -> list[tuple[Widget, ...]]:
        """The footer's keys in order, a group of keys with its label as one item; the palette's key apart."""
        items: list[tuple[Widget, ...]] = []
        for child in self.children:
            if child.has_class("-command-palette"):
                continue
            if isinstance(child, FooterLabel) and items and isinstance(items[-1][-1], KeyGroup):
                items[-1] = (*items[-1], child)
            else:
                items.append((child,))
        return items

    def _width(self, item: tuple[Widget, ...]) -> int:
        return sum(self._widths.get(child, 0) for child in item)


def _kept(item: tuple[Widget, ...]) -> bool:
    key = item[0]
    return isinstance(key, FooterKey) and key.action.partition("(")[0] in KEPT_ACTIONS
