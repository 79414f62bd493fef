"""A text box that never puts a control character on screen, keeps keys in the order typed, and whose
cursor blink the app decides.

Text reaches a box from pasting and from questions other tabs send (untrusted
corpus text); Textual's Input would draw an ESC in it raw. Control, bidi and
invisible characters are made visible as they arrive (tui/safe.py), one line.
Snapshot tests turn the blink off so that screens compare equal.
"""
from __future__ import annotations

from textual import events
from textual.binding import Binding, BindingsMap
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, TabPane

from ranklens.tui.host import Host
from ranklens.tui.safe import clean

# Textual's own editing keys of a text box: backspace, delete, arrows, home, end, enter, ...
_EDITING_KEYS = BindingsMap(Input.BINDINGS)


class TextBox(Input):
    BINDINGS = [Binding("escape", "leave", "leave", tooltip="Leave the box: keys act on the tab again",
                        id="box.leave")]

    _host: Host | None = None  # the app, if a Host: asked once, as a runtime Protocol's isinstance costs ~30 µs

    def on_mount(self) -> None:
        self._host = self.app if isinstance(self.app, Host) else None
        self.cursor_blink = self._host.cursor_blink if self._host is not None else True

    def validate_value(self, value: str) -> str:
        return clean(value, keep_newlines=False)

    async def on_key(self, event: events.Key) -> None:
        """Editing keys act here, in turn with the characters typed around them.

        Textual inserts a typed character as soon as the box sees its key, but
        runs a key binding only once the key has bubbled up to the app: in a
        burst of keys (fast typing, a key held down, keys queued while a worker
        holds the GIL) a backspace could land after the characters typed after
        it, and the box would hold text nobody typed.
        """
        bindings = _EDITING_KEYS.key_to_bindings.get(event.key)
        if bindings:
            event.stop()
            event.prevent_default()
            await self.run_action(bindings[0].action)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        # Escape then a digit arrives as a character ("£" for 3) that switches tabs: the app says which.
        if self._host is not None and key in self._host.keys_over_boxes:
            return False
        return super().check_consume_key(key, character)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # In a dialog, Escape belongs to the dialog (it cancels it).
        return action != "leave" or self._scope() is not None

    def _scope(self) -> Widget | None:
        """Where Escape hands the keys: the box's tab, else its screen; None in a dialog."""
        tab = next((a for a in self.ancestors if isinstance(a, TabPane)), None)
        if tab is not None:
            return tab
        return None if isinstance(self.screen, ModalScreen) else self.screen

    def action_leave(self) -> None:
        """Hand the keys back to the tab: focus the next widget of the tab that is not a text box."""
        scope = self._scope()
        chain = self.screen.focus_chain
        if scope is None or self not in chain:
            return
        here = chain.index(self)
        for widget in chain[here + 1:] + chain[:here]:
            if scope in widget.ancestors and not isinstance(widget, Input):
                widget.focus()
                return
        self.screen.set_focus(None)
