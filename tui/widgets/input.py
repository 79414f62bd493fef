"""A text box that never puts a control character on screen, keeps keys in the order typed, and whose
cursor blink the app decides.

Text reaches a box from pasting and from questions other tabs send (untrusted
corpus text); Textual's Input would draw an ESC in it raw. Control, bidi and
invisible characters are made visible as they arrive (tui/safe.py), one line.
Snapshot tests turn the blink off so that screens compare equal.
"""
from __future__ import annotations

from textual import events
from textual.binding import BindingsMap
from textual.widgets import Input

from ranklens.tui.safe import clean

# Textual's own editing keys of a text box: backspace, delete, arrows, home, end, enter, ...
_EDITING_KEYS = BindingsMap(Input.BINDINGS)


class TextBox(Input):
    def on_mount(self) -> None:
        self.cursor_blink = getattr(self.app, "cursor_blink", True)

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
