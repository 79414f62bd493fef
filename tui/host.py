"""What a pane or a widget may ask of the app that hosts it.

The ranklens app (tui/app.py) has these; a test harness around one pane
(tests/support/panes.py) declares them too. A widget checks with
``isinstance(self.app, Host)`` and otherwise behaves as in a plain Textual app.
"""
from __future__ import annotations

from collections.abc import Set
from typing import Protocol, runtime_checkable


@runtime_checkable
class Host(Protocol):
    @property
    def typing(self) -> bool:
        """Whether keys type into a text box now: a tab's letter keys cannot be pressed meanwhile."""
        ...

    @property
    def cursor_blink(self) -> bool:
        """Whether text boxes blink their cursor (snapshot tests turn it off so that screens compare equal)."""
        ...

    @property
    def keys_over_boxes(self) -> Set[str]:
        """Keys a text box must not type, so that they reach the app's bindings (Escape-digit characters)."""
        ...
