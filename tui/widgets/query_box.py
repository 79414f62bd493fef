"""The query box of the Search tab: typing here searches; Escape hands the keys back to the app."""
from __future__ import annotations

from textual.binding import Binding

from ranklens.tui.widgets.input import TextBox


class QueryBox(TextBox):
    BINDINGS = [
        Binding("escape", "leave", "Leave the query box", id="query.leave"),
    ]

    def action_leave(self) -> None:
        self.screen.focus_next()
