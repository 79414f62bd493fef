"""A setup as the API takes it: the command line's words, keywords, or both.

``"bm25 --k1 0.9 --stem en"`` is read by the command line's own parser (``cli/sides.py``'s
``inline_setup``, what ``ranklens compare`` reads an inline setup with), so a setup written
for the shell works here unchanged. Keywords are settings by name (``scorer="bm25"``,
``stem="en"``, ``sublinear_tf=True``, ``k=10``) and win over the words. Either way the engine
checks them when the setup is built (``setup_for``), as it checks the command line's.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEYWORDS = "keywords"  # where keyword settings came from, in the engine's messages


def setup_overrides(words: str | None, keywords: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The settings ``words`` and ``keywords`` give, and how messages name where they came from."""
    from ranklens.cli.sides import NotASetup, inline_setup
    from ranklens.engine.errors import RanklensError

    if not words:
        return dict(keywords), KEYWORDS
    source = f"setup {words!r}"
    try:
        given = inline_setup(words)
    except NotASetup as error:
        raise RanklensError(f"{source}: {error}") from None
    if given is None:
        raise RanklensError(f"{source}: not setup options (a quote is not closed)")
    return {**given, **keywords}, source
