"""Theme colours as Rich styles, for cells drawn as Rich ``Text`` (which does not know theme variables)."""
from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from textual.app import App

# Generating a theme's variables takes about a millisecond, and a table of 500 questions asks for
# thousands of colours: they are generated once per app and theme.
_VARIABLES: WeakKeyDictionary[App[object], tuple[str, dict[str, str]]] = WeakKeyDictionary()


def theme_colour(app: App[object], name: str) -> str:
    """The app's theme colour ``name`` ("success", "error") as a Rich colour; ``name`` itself when the
    theme has no such variable (a Rich colour name already)."""
    cached = _VARIABLES.get(app)
    if cached is None or cached[0] != app.theme:
        cached = _VARIABLES[app] = (app.theme, app.get_css_variables())
    return cached[1].get(name, name)
