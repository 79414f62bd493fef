"""A dialog asking for a path (a corpus to open, a file to save to); dismisses with it or None."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from ranklens.tui.safe import safe_content
from ranklens.tui.widgets.input import TextBox


class PathPrompt(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="path.cancel")]

    def __init__(self, title: str, default: str = "", hint: str = "", suggester: Suggester | None = None,
                 recent: list[str] | None = None) -> None:
        super().__init__()
        self._title = title
        self._default = default
        self._hint = hint
        self._suggester = suggester
        self._recent = recent or []

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog", classes="dialog"):
            yield Static(self._title, classes="dialog-title", markup=False)
            yield TextBox(self._default, id="path-input", select_on_focus=False, suggester=self._suggester)
            yield Static(safe_content(self._hint or "Enter to confirm, Escape to cancel"), classes="dialog-hint")
            if self._recent:  # file names: untrusted, so Content, never markup
                listed = "\n".join(f"  {path}" for path in self._recent)
                yield Static(safe_content(f"recent (type the start, → completes):\n{listed}"),
                             id="path-recent", classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
