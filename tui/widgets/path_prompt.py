"""A dialog asking for a path (a corpus to open, a file to save to) or a name; dismisses with it or None.

Keys typed while it opens are its box's, never the tabs' shortcuts: the app hands the dialog every key it
handles from the moment the dialog is pushed (``holds``) until its box has the focus, and then passes them on
to the box in the order typed (``TypedAhead``: the app handles them as it would have). A dialog that opens
unasked (who is judging, at the first grade) keeps instead the keys typed before it showed (``typed_before``):
they were meant for what was on screen, and its caller replays them once it is answered.
"""
from __future__ import annotations

import time

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from ranklens.tui.safe import safe_content
from ranklens.tui.widgets.input import TextBox


class PathPrompt(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="path.cancel")]

    class TypedAhead(Message, bubble=False):
        """Posted to the app once the dialog's box has the focus: the keys held meanwhile go to it now."""

        def __init__(self, prompt: PathPrompt) -> None:
            super().__init__()
            self.prompt = prompt

    def __init__(self, title: str, default: str = "", hint: str = "", suggester: Suggester | None = None,
                 recent: list[str] | None = None, unasked: bool = False) -> None:
        super().__init__()
        self._title = title
        self._default = default
        self._hint = hint
        self._suggester = suggester
        self._recent = recent or []
        self._unasked = unasked
        self._held: list[events.Key] | None = []  # keys handed over before the box had the focus; None after
        self._shown_at: float | None = None  # when an unasked dialog was first drawn (time.monotonic, as keys)
        self.typed_before: list[events.Key] = []  # an unasked dialog's keys typed before it showed

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog", classes="dialog"):
            yield Static(self._title, classes="dialog-title", markup=False)
            yield TextBox(self._default, id="path-input", select_on_focus=False, suggester=self._suggester)
            yield Static(safe_content(self._hint or "Enter to confirm, Escape to cancel"), classes="dialog-hint")
            if self._recent:  # file names: untrusted, so Content, never markup
                listed = "\n".join(f"  {path}" for path in self._recent)
                yield Static(safe_content(f"recent (type the start, → completes):\n{listed}"),
                             id="path-recent", classes="dialog-hint")

    def on_mount(self) -> None:
        # Now, not after the next message (Widget.focus waits for one): from here on keys reach the box.
        self.set_focus(self.query_one(TextBox))
        if self._unasked:
            self._held = None
            self.call_after_refresh(self._drawn)
        else:
            self.app.post_message(self.TypedAhead(self))  # after the keys the app holds for the box now

    def _drawn(self) -> None:
        self._shown_at = time.monotonic()

    def holds(self, key: events.Key) -> bool:
        """Whether the dialog takes ``key`` from the app, which handles it no further (the app asks for each
        key it hands on while the dialog is on top)."""
        if self._unasked:
            return self.kept_for_later(key)
        if self._held is None:
            return False
        self._held.append(key)
        return True

    def kept_for_later(self, key: events.Key) -> bool:
        """Whether an unasked dialog keeps ``key``, typed before it showed (meant for what was on screen then):
        asked for each key the app hands on, and for each that comes back to it unused from under the dialog."""
        if not self._unasked or (self._shown_at is not None and key.time >= self._shown_at):
            return False
        self.typed_before.append(key)
        self.typed_before.sort(key=lambda typed: typed.time)  # those that came back arrive after later ones
        return True

    def release(self) -> list[events.Key]:
        """The keys held for the box, in the order typed; from now on the box takes keys as they come."""
        held, self._held = self._held or [], None
        return held

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
