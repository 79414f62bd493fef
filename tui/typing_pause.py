"""Work that waits for typing to pause: the query box's search, the find box's preview and the Metrics filter
start once the keys stop for a moment, not at every keystroke.

``SCALE`` multiplies every pause: the tests set 0, and the work starts at each change as Enter starts it (a
Textual timer cannot wait 0 s), or a large one where only Enter may start it.
"""
from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

SCALE = 1.0


class TypingPause:
    """``then()`` once typing has paused ``seconds`` since the latest ``restart``, which drops the one before."""

    def __init__(self, widget: Widget, seconds: float) -> None:
        self._widget = widget
        self.seconds = seconds
        self._timer: Timer | None = None

    @property
    def pending(self) -> bool:
        """Work waits for the pause: the screen is about to change."""
        return self._timer is not None

    def restart(self, then: Callable[[], object]) -> None:
        self.cancel()
        seconds = self.seconds * SCALE
        if not seconds:
            then()
            return

        def paused() -> None:
            self._timer = None
            then()

        self._timer = self._widget.set_timer(seconds, paused)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
