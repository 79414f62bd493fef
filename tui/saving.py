"""Saving a tab's text to a file (the Prompt tab's ctrl+s, the Metrics tab's export): one flow for both.

The palette's workspace exports (``tui/workspace_files.py``) write through the
engine, and are asked and refused through ``cleared`` here, as the tabs' saves.

Asked where (a dialog offering the last place saved to), never into the
corpus folder, never over an existing file without a yes (Escape is a no),
written atomically in a thread worker: a temporary file in the same folder,
flushed to disk, then renamed over the target, so a failure or a kill at any
point leaves the old file whole or the new one. A replaced file keeps its
permissions; a new one gets those the user's umask gives any file. Every
message is one line, the file name shown literally.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.content import Content
from textual.widget import Widget

from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.trec import atomic_write
from ranklens.tui.recent import PathSuggester
from ranklens.tui.safe import clean
from ranklens.tui.widgets.confirm import Confirm
from ranklens.tui.widgets.path_prompt import PathPrompt


@dataclass(frozen=True)
class SaveFlow:
    """What a tab saves and how the dialog and the messages name it."""

    title: str  # the dialog's question: "Save the prompt to"
    hint: str  # under the path: what Enter does, what decides the format
    saved: str  # the message once written, before the path: "prompt saved to"
    corpus_source: str | None  # the corpus' file or folder: nothing is written inside it


def ask_and_save(widget: Widget, flow: SaveFlow, default: str, render: Callable[[Path], str],
                 done: Callable[[Path], None] = lambda target: None) -> None:
    """Ask for a path (``default`` offered), then write ``render(target)`` there; ``done(target)`` once written.

    ``render`` runs in the worker (an export may serialise a large table) and
    gets the target, whose name may decide the format.
    """

    def chosen(text: str | None) -> None:
        if text:
            save(widget, flow, Path(text).expanduser().absolute(), render, done)

    # → completes a folder's names, as the Open and workspace dialogs do
    widget.app.push_screen(PathPrompt(flow.title, default, hint=f"{flow.hint}; → completes a path",
                                      suggester=PathSuggester([])), chosen)


def save(widget: Widget, flow: SaveFlow, target: Path, render: Callable[[Path], str],
         done: Callable[[Path], None]) -> None:
    """Write to ``target`` (absolute) unless it is refused; asks first when it exists."""
    cleared(widget, target, flow.corpus_source, lambda: widget.run_worker(
        lambda: _write(widget, flow, target, render, done), name="save", group="save", thread=True,
        exit_on_error=False))


def cleared(widget: Widget, target: Path, corpus_source: str | None, write: Callable[[], object]) -> None:
    """``write()`` once ``target`` may be written: never when ``refusal`` has a reason (it is notified),
    after an explicit yes when the file exists, at once otherwise. Every writer of a user's file goes here."""
    problem = refusal(target, corpus_source)
    if problem:
        widget.notify(problem, severity="error", markup=False)
    elif target.exists():
        def answered(yes: bool | None) -> None:
            if yes:
                write()

        widget.app.push_screen(Confirm(Content(f"{_shown(target)} exists. Overwrite it?")), answered)
    else:
        write()


def refusal(target: Path, corpus_source: str | None) -> str:
    """Why ``target`` must not be written, or ""."""
    if target.is_dir():
        return f"{_shown(target)} is a folder: give a file name"
    if corpus_source:
        source = Path(corpus_source).resolve()
        folder = source if source.is_dir() else source.parent
        if target.resolve().is_relative_to(folder):
            return f"not saving inside the corpus folder ({_shown(folder)}): ranklens never writes there"
    if not target.parent.is_dir():
        return f"no such folder: {_shown(target.parent)}"
    return ""


def _write(widget: Widget, flow: SaveFlow, target: Path, render: Callable[[Path], str],
           done: Callable[[Path], None]) -> None:
    """The worker: render, write, then tell on the event loop."""
    try:
        atomic_write(target, render(target))
    except RanklensError as error:
        widget.app.call_from_thread(widget.notify, clean(str(error), keep_newlines=False), severity="error",
                                    markup=False)
        return

    def finished() -> None:
        done(target)
        widget.notify(f"{flow.saved} {_shown(target)}", markup=False)

    widget.app.call_from_thread(finished)


def _shown(path: Path) -> str:
    """A path on one line, its control characters visible."""
    return clean(str(path), keep_newlines=False)
