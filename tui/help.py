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
        table = self.query_one("#help-keys", KeyTable)
        table.add_columns("where", "key", "what it does")
        for row in self._rows:
            table.add_row(row.where, Text(row.keys, style="bold"), row.description)
        table.focus()
