"""The help screen (F1 or ?): every key of the app and of each tab, generated from the bindings."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ranklens.tui.key_map import KeyRow
from ranklens.tui.widgets.lists import KeyTable


SCROLLBAR = 2


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close the help", id="help.close")]

    def __init__(self, rows: list[KeyRow]) -> None:
        super().__init__()
        self._rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static("Keys  (j/k or arrows scroll; Escape closes). While typing, and in judge mode (J) where "
                         "digits grade, alt+digit (or Escape then the digit) switches tabs.", classes="dialog-title",
                         markup=False)
            yield KeyTable(id="help-keys", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#help-keys", KeyTable).focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fill)  # once the table's width is laid out

    def _fill(self) -> None:
        """The rows, each description wrapped at words to the room the table leaves it (80 columns cut
        them mid-word)."""
        table = self.query_one("#help-keys", KeyTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        where = max(len(row.where) for row in self._rows)
        keys = max(len(row.keys) for row in self._rows)
        # each column has a cell of padding either side; room is kept for the scrollbar
        room = max(20, table.size.width - where - keys - 3 * 2 - SCROLLBAR)
        table.add_column("where", width=where)
        table.add_column("key", width=keys)
        table.add_column("what it does", width=room)
        for row in self._rows:
            table.add_row(row.where, Text(row.keys, style="bold"), Text(row.description), height=None)
        table.move_cursor(row=cursor)
