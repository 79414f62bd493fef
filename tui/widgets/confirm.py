"""A yes/no question (overwrite a file?); dismisses with True only on an explicit yes."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class Confirm(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: Content) -> None:
        super().__init__()
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(self._question, classes="dialog-title")
            yield Static("y: yes   n / Escape: no", classes="dialog-hint", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
