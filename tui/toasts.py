"""The toasts on screen, as the app raised them: the same message twice (a key pressed twice at a limit)
stays one toast.

Textual keeps its own list of the notifications on screen but offers no public way to read it, so the
app keeps this record. Textual says nothing public when a toast is dismissed by a click either: such a
toast counts as shown until its timeout.
"""
from __future__ import annotations

import time
from collections.abc import Callable


class Toasts:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until: dict[tuple[str, str], float] = {}  # (message, title) -> when its toast goes

    def first(self, message: str, title: str, timeout: float) -> bool:
        """Whether a toast of ``message`` and ``title`` is new (none on screen now); if so it is recorded
        as shown for ``timeout`` seconds."""
        now = self._clock()
        self._until = {key: until for key, until in self._until.items() if until > now}
        if (message, title) in self._until:
            return False
        self._until[(message, title)] = now + timeout
        return True

    def clear(self) -> None:
        self._until.clear()
