"""What every pane of the app works from, and the messages panes send the app."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # numpy and scipy load with the engine; the first paint must not wait for them
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace import Workspace


@dataclass(frozen=True)
class Context:
    """The corpus (with its cached indexes), the current setup and query, and the corpus' workspace.

    The workbench's corpus is the corpus with the workspace applied (the user's questions and
    judgments): a change to the workspace makes a new context whose workbench shares the old
    one's indexes (``Workbench.with_questions``).

    The app replaces the context whenever one of them changes and hands the
    new one to every pane through ``context_changed``; panes never mutate it.
    """

    workbench: Workbench
    setup: Setup
    query: str = ""
    generation: int = 0  # bumps on every change, so workers can drop stale results
    workspace: Workspace | None = None  # None until a corpus is open

    @property
    def corpus(self) -> Corpus:
        return self.workbench.corpus


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
    the app applies the workspace again and publishes the new context."""

    def __init__(self, change: Callable[[Workspace, Corpus], str]) -> None:
        super().__init__()
        self.change = change
