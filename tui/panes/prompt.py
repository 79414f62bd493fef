"""The Prompt tab: the exact prompt a model would get for the current query and k.

Shown literally (control characters made visible); copied to the clipboard
with OSC 52, which reaches the user's own terminal over SSH; saved to a file
atomically (a temporary file in the same folder, then os.replace), never into
the corpus folder and never over an existing file without a yes.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from ranklens.engine.progress import Progress
from ranklens.tui.context import Context
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.safe import clean, safe_text
from ranklens.tui.widgets.confirm import Confirm
from ranklens.tui.widgets.lists import KeyScroll
from ranklens.tui.widgets.path_prompt import PathPrompt

DEFAULT_FILE = "ranklens-prompt.txt"  # in the home folder, until a save picks another path
# New files get the permissions the user's umask gives any file (a temporary file is private, 0600).
_UMASK = os.umask(0)
os.umask(_UMASK)


@dataclass(frozen=True)
class Built:
    context: Context
    prompt: str


def build_prompt(context: Context, progress: Progress) -> Built:
    """The prompt for the context's query with its k best chunks (in a thread worker)."""
    return Built(context, context.workbench.retriever(context.setup, progress).prompt(context.query, context.setup.k))


class PromptPane(WorkPane):
    DEFAULT_CSS = "PromptPane { padding: 0; }"  # its boxes are framed to the edge
    WAITS_FOR_INDEX = True
    BINDINGS = [
        Binding("c", "copy", "copy", tooltip="Copy prompt", id="prompt.copy"),
        Binding("ctrl+s", "save", "save", tooltip="Save prompt", id="prompt.save"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.prompt = ""  # the prompt on screen, exactly as a model would receive it
        self.prompt_query: str | None = None
        self._last_saved: Path | None = None  # the dialog offers it next time

    def compose(self) -> ComposeResult:
        yield Static(id="prompt-info")
        view = KeyScroll(id="prompt-view")
        view.border_title = "prompt"
        with view:
            yield Static(id="prompt-text")

    def on_mount(self) -> None:
        self._show_info("Opening the corpus…")

    def no_corpus(self, message: str) -> None:
        self._show_info(message)

    # -- following the app ----------------------------------------------------------------------

    def context_key(self, context: Context) -> Hashable:
        return (id(context.workbench), context.setup, context.query)

    def refresh_content(self, context: Context) -> None:
        if context.query.strip():
            self.start_work("prompt", partial(build_prompt, context))
        else:
            self._show(context, "", "Type a question on the Search tab (1, then /) to see its prompt.")

    def work_done(self, group: str, result: Built) -> None:
        info = f"k={result.context.setup.k} · {len(result.prompt):,} characters · c copies · ctrl+s saves to a file"
        self._show(result.context, result.prompt, info)

    def work_failed(self, group: str, message: str) -> None:
        if self.context is not None:
            self._show(self.context, "", message)

    def _show(self, context: Context, prompt: str, info: str) -> None:
        self.prompt, self.prompt_query = prompt, context.query
        self.query_one("#prompt-text", Static).update(safe_text(prompt))
        self._show_info(info)

    def _show_info(self, info: str) -> None:
        self.query_one("#prompt-info", Static).update(Content(clean(info, keep_newlines=False)))

    # -- copy and save ----------------------------------------------------------------------------

    def action_copy(self) -> None:
        if not self.prompt:
            self.notify("no prompt yet: type a question first", severity="warning")
            return
        self.app.copy_to_clipboard(self.prompt)
        self.notify(f"prompt copied to the clipboard ({len(self.prompt):,} characters)")

    def action_save(self) -> None:
        if not self.prompt:
            self.notify("no prompt yet: type a question first", severity="warning")
            return
        prompt = self.prompt

        def chosen(path: str | None) -> None:
            if path:
                self._save_to(Path(path).expanduser(), prompt)

        # Not the current folder by default: it is wherever ranklens was started (a corpus, a repository).
        default = str(self._last_saved) if self._last_saved is not None else f"~/{DEFAULT_FILE}"
        self.app.push_screen(PathPrompt("Save the prompt to", default,
                                        hint=f"Enter saves, Escape cancels; relative paths start in {Path.cwd()}"),
                             chosen)

    def _save_to(self, path: Path, prompt: str) -> None:
        target = path if path.is_absolute() else Path.cwd() / path
        problem = self._refusal(target)
        if problem:
            self.notify(problem, severity="error", markup=False)
            return
        if target.exists():
            question = Content(f"{clean(str(path), keep_newlines=False)} exists. Overwrite it?")

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write(target, prompt)

            self.app.push_screen(Confirm(question), answered)
            return
        self._write(target, prompt)

    def _refusal(self, target: Path) -> str:
        """Why ``target`` must not be written, or ""."""
        if target.is_dir():
            return f"{target} is a folder: give a file name"
        if self.context is not None and self.context.corpus.source:
            source = Path(self.context.corpus.source).resolve()
            folder = source if source.is_dir() else source.parent
            if target.resolve().is_relative_to(folder):
                return f"not saving inside the corpus folder ({folder}): ranklens never writes there"
        if not target.parent.is_dir():
            return f"no such folder: {target.parent}"
        return ""

    @work(thread=True, group="save", exit_on_error=False)
    def _write(self, target: Path, prompt: str) -> None:
        """Write a temporary file beside ``target``, then rename it over ``target``: a failure or a
        kill at any point leaves the old file whole, or the new one."""
        try:
            # Not a `with`: the file's name must outlive the handle, to be renamed or removed below.
            handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent,  # noqa: SIM115
                                                 prefix=f".{target.name}.", suffix=".tmp", delete=False)
            try:
                with handle:
                    handle.write(prompt)
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
        except (OSError, ValueError) as error:  # ValueError: a name the file system cannot encode
            reason = getattr(error, "strerror", None) or error
            self.app.call_from_thread(self.notify, f"cannot save to {target}: {reason}", severity="error", markup=False)
            return
        self.app.call_from_thread(self._saved, target)

    def _saved(self, target: Path) -> None:
        self._last_saved = target
        self.notify(f"prompt saved to {target}", markup=False)
