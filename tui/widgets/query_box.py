"""The query box of the Search tab: typing here searches; Escape hands the keys back to the app."""
from __future__ import annotations

from ranklens.tui.widgets.input import TextBox


class QueryBox(TextBox):
    """Escape (TextBox's) hands the keys back to the tab."""
