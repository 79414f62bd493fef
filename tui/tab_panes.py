"""The tabs' panes, each built the first time its tab is shown, and where the focus goes in each tab.

Only the first tab is composed at start; each other tab's pane is built the first time the tab is
shown (mounting all of them costs about as much as the rest of the first paint) and starts from the
context current at that moment. A tab shown gets the focus its widget last had there, never a text
box, so that the keys switching tabs do not land in one. The app owns one ``TabPanes`` (tui/app.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import AwaitMount, Widget
from textual.widgets import Input, TabbedContent, TabPane

from ranklens.tui.panes.base import WorkPane
from ranklens.tui.widgets.query_box import QueryBox

if TYPE_CHECKING:
    from ranklens.tui.app import RanklensApp


class TabPanes:
    def __init__(self, app: RanklensApp) -> None:
        self.app = app
        # The panes built so far, by tab; a pane joins once mounted, so every context reaches it whole.
        self._built: dict[str, WorkPane] = {}
        self._mounts: dict[str, tuple[WorkPane, AwaitMount]] = {}  # panes being mounted
        self._focus: dict[str, Widget] = {}  # what last had the focus in each tab

    def composed(self, tab: str, pane: WorkPane) -> None:
        """``pane`` of ``tab`` was composed with the app (the first tab's)."""
        self._built[tab] = pane

    @property
    def built(self) -> list[WorkPane]:
        """The panes built so far, in tab order."""
        return [self._built[tab] for tab in self.app.tabs if tab in self._built]

    def get(self, tab: str) -> WorkPane | None:
        """``tab``'s pane if built (not while it is being mounted)."""
        return self._built.get(tab)

    async def build(self, tab: str) -> WorkPane:
        """``tab``'s pane, composed and mounted the first time it is asked for, given the current context."""
        if tab in self._built:
            return self._built[tab]
        if tab not in self._mounts:
            pane = self.app.tabs[tab].pane(id=f"{tab}-pane")
            self._mounts[tab] = (pane, self._tabbed.get_pane(tab).mount(pane))
        pane, mounted = self._mounts[tab]
        await mounted  # a second caller during the mount waits for the same one
        if tab not in self._built:
            self._built[tab] = pane
            del self._mounts[tab]
            session = self.app.session
            if session.context is not None:
                pane.context_changed(session.context)
            elif session.no_corpus:
                pane.no_corpus(session.no_corpus)
        return pane

    async def show(self, tab: str) -> None:
        """Show ``tab`` (built first if need be), the focus in it."""
        await self.build(tab)
        tabbed = self._tabbed
        if tabbed.active != tab:
            # A focused widget that gets hidden hands focus to a neighbour, which can be in the old
            # tab, and focusing it switches back: let go first, focus_in picks in the new tab.
            self.app.set_focus(None)
            tabbed.active = tab
            # Now, not after the next refresh: a key pressed right after the tab's key ("3 f") must
            # reach the new tab.
            self.focus_in(tab)

    def focused(self, widget: Widget) -> None:
        """``widget`` got the focus: remembered for its tab."""
        for ancestor in widget.ancestors:
            if isinstance(ancestor, TabPane) and ancestor.id is not None:
                self._focus[ancestor.id] = widget
                break

    def corpus_replaced(self) -> None:
        """Another corpus replaced the open one: each tab lets go of what it held for the old one, and the
        focus leaves a tab's box whose text went with it (the query box keeps the query, and the focus)."""
        for pane in self.built:
            pane.corpus_opened()
        focused = self.app.focused
        if (isinstance(focused, Input) and not isinstance(focused, QueryBox)
                and any(isinstance(ancestor, WorkPane) for ancestor in focused.ancestors)):
            self.app.set_focus(None)
            self.focus_in(str(self._tabbed.active))

    def focus_in(self, tab: str) -> None:
        """Focus what last had focus in ``tab``, else its first widget; never a text box."""
        pane = self._tabbed.get_pane(tab)
        focused = self.app.focused
        if focused is not None and pane in focused.ancestors:
            return
        remembered = self._focus.get(tab)
        candidates = [w for w in self.app.screen.focus_chain if pane in w.ancestors and not isinstance(w, Input)]
        target = remembered if remembered in candidates else (candidates[0] if candidates else None)
        self.app.set_focus(target)

    @property
    def _tabbed(self) -> TabbedContent:
        return self.app.query_one("#tabs", TabbedContent)
