"""Saving a tab's text to a file (the Prompt tab's ctrl+s, the Metrics tab's export): one flow for both.

Asked where (a dialog offering the last place saved to), never into the
corpus folder, never over an existing file without a yes (Escape is a no),
written atomically in a thread worker: a temporary file in the same folder,
flushed to disk, then renamed over the target, so a failure or a kill at any
point leaves the old file whole or the new one. A replaced file keeps its
permissions; a new one gets those the user's umask gives any file. Every
message is one line, the file name shown literally.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.content import Content
from textual.widget import Widget

from ranklens.tui.safe import clean
from ranklens.tui.widgets.confirm import Confirm
from ranklens.tui.widgets.path_prompt import PathPrompt

# New files get the permissions the user's umask gives any file (a temporary file is private, 0600).
_UMASK = os.umask(0)
os.umask(_UMASK)


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

    widget.app.push_screen(PathPrompt(flow.title, default, hint=flow.hint), chosen)


def save(widget: Widget, flow: SaveFlow, target: Path, render: Callable[[Path], str],
         done: Callable[[Path], None]) -> None:
    """Write to ``target`` (absolute) unless it is refused; asks first when it exists."""
    problem = refusal(target, flow.corpus_source)
    if problem:
        widget.notify(problem, severity="error", markup=False)
        return

    def write() -> None:
        widget.run_worker(lambda: _write(widget, flow, target, render, done), name="save", group="save",
                          thread=True, exit_on_error=False)

    if not target.exists():
        write()
        return

    def answered(yes: bool | None) -> None:
        if yes:
            write()

    widget.app.push_screen(Confirm(Content(f"{_shown(target)} exists. Overwrite it?")), answered)


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


def write_atomically(target: Path, text: str) -> None:
    """``text`` (UTF-8) as ``target``'s content, through a temporary file beside it renamed over it."""
    # Not a `with`: the file's name must outlive the handle, to be renamed or removed below.
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent,  # noqa: SIM115
                                         prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())  # on disk before the rename makes it the file
        if target.exists():  # a temporary file is private (0600): keep the old file's mode
            shutil.copymode(target, handle.name)
        else:
            os.chmod(handle.name, 0o666 & ~_UMASK)
        os.replace(handle.name, target)
    except BaseException:
        os.unlink(handle.name)
        raise


def _write(widget: Widget, flow: SaveFlow, target: Path, render: Callable[[Path], str],
           done: Callable[[Path], None]) -> None:
    """The worker: render, write, then tell on the event loop."""
    try:
        write_atomically(target, render(target))
    except (OSError, ValueError) as error:  # ValueError: a name the file system cannot encode
        reason = getattr(error, "strerror", None) or error
        widget.app.call_from_thread(widget.notify, clean(f"cannot save to {target}: {reason}", keep_newlines=False),
                                    severity="error", markup=False)
        return

    def finished() -> None:
        done(target)
        widget.notify(f"{flow.saved} {_shown(target)}", markup=False)

    widget.app.call_from_thread(finished)


def _shown(path: Path) -> str:
    """A path on one line, its control characters visible."""
    return clean(str(path), keep_newlines=False)
