"""What the panes and the app say to each other: the context every pane works from, the messages
panes send the app, and what the app sends or asks of panes.

``Context`` is the session's (tui/session.py, no Textual); panes import it from here with the messages.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual.message import Message

from ranklens.tui.session import Context

if TYPE_CHECKING:  # numpy and scipy load with the engine; the first paint must not wait for them
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.workspace.store import Workspace

__all__ = ["ChangeSetup", "ChangeWorkspace", "Context", "ListsRuns", "ShowQuery", "TabKeysChanged", "TakesTabKeys",
           "UseQuery", "ranks_alike"]


def ranks_alike(shown: Context, context: Context) -> bool:
    """Whether results computed for ``shown`` are ``context``'s for their query: the same setup over the same
    chunks, ranked by the same engine (a judgment, which changes neither, leaves them standing)."""
    return (shown.setup == context.setup and shown.workbench.backend is context.workbench.backend
            and shown.corpus.chunks is context.corpus.chunks)


class UseQuery(Message):
    """A pane asks the app to run ``text`` on the Search tab (and switch to it)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ChangeSetup(Message):
    """A pane asks the app to apply setting changes (keys are Setup fields)."""

    def __init__(self, changes: dict[str, Any], reason: str = "") -> None:
        super().__init__()
        self.changes = changes
        self.reason = reason


class ChangeWorkspace(Message):
    """A pane asks the app to write to the workspace: ``change(workspace, corpus)`` runs in a thread worker,
    ``corpus`` being the corpus as loaded (without the workspace), and returns what to tell the user; then
    the app applies the workspace again and publishes the new context. A change that ``judges`` (a grade,
    an undo) is made as the session's rater, asked for first at the session's first judgment; ``dropped()`` runs
    when that question is cancelled, and nothing is written."""

    def __init__(self, change: Callable[[Workspace, Corpus], str], judges: bool = False,
                 dropped: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.change = change
        self.judges = judges
        self.dropped = dropped


class ShowQuery(Message, bubble=False):
    """The app asks the pane holding the query box to show ``text`` (a question sent from another tab)
    and to send it back at once as the box holds it (``SearchPane.QueryChanged``)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class TabKeysChanged(Message):
    """A pane took the tab keys (digits) for its own, or gave them back: the app relabels the tabs."""


@runtime_checkable
class TakesTabKeys(Protocol):
    """A pane whose keys may include the tabs' digits (judge mode's grades): while they do and the focus is
    in the pane, alt+digit switches tabs, as while typing, and the tab bar and the footer say so."""

    def takes_tab_keys(self) -> bool: ...


@runtime_checkable
class ListsRuns(Protocol):
    """A pane that lists the workspace's saved runs: the app tells it when a run is saved."""

    def runs_changed(self) -> None: ...
