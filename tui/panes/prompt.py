"""The Prompt tab: the exact prompt a model would get for the current query and k.

Shown literally (control characters made visible); copied to the clipboard
with OSC 52, which reaches the user's own terminal over SSH; saved to a file
through the flow every tab saves with (tui/saving.py): atomically, never into
the corpus folder and never over an existing file without a yes.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from ranklens.engine.work.progress import Progress
from ranklens.tui.context import Context, ranks_alike
from ranklens.tui.panes.base import WorkPane
from ranklens.tui.safe import clean, safe_text
from ranklens.tui.saving import SaveFlow, ask_and_save
from ranklens.tui.widgets.lists import KeyScroll

DEFAULT_FILE = "ranklens-prompt.txt"  # in the home folder, until a save picks another path


@dataclass(frozen=True)
class Built:
    context: Context
    prompt: str


def build_prompt(context: Context, progress: Progress) -> Built:
    """The prompt for the context's query with its k best chunks (in a thread worker)."""
    return Built(context, context.workbench.retriever(context.setup, progress).prompt(context.query, context.setup.k))


class PromptPane(WorkPane):
    # Its boxes are framed to the edge. A prompt another setup built, until the new one arrives: dimmed.
    DEFAULT_CSS = """
    PromptPane { padding: 0; }
    PromptPane.-recomputing #prompt-view { text-opacity: 55%; }
    """
    WAITS_FOR_INDEX = True
    BINDINGS = [
        Binding("c", "copy", "copy", tooltip="Copy prompt", id="prompt.copy"),
        Binding("ctrl+s", "save", "save", tooltip="Save prompt", id="prompt.save"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.prompt = ""  # the prompt on screen, exactly as a model would receive it
        self.prompt_query: str | None = None
        self._built_for: Context | None = None  # the context of the prompt on screen
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
        return (context.workbench, context.setup, context.query)

    def refresh_content(self, context: Context) -> None:
        if context.query.strip():
            shown = self._built_for
            if self.prompt and shown is not None and not ranks_alike(shown, context):
                self.add_class("-recomputing")
                self._show_info("the prompt below is the previous setup's · recomputing…")
            self.start_work("prompt", partial(build_prompt, context), self._built, failed=self._failed_to_build)
        else:
            self._show(context, "", "Type a question on the Search tab (1, then /) to see its prompt.")

    def _built(self, result: Built) -> None:
        info = f"k={result.context.setup.k} · {len(result.prompt):,} characters · c copies · ctrl+s saves to a file"
        self._show(result.context, result.prompt, info)

    def _failed_to_build(self, message: str) -> None:
        if self.context is not None:
            self._show(self.context, "", message)

    def _show(self, context: Context, prompt: str, info: str) -> None:
        self.remove_class("-recomputing")
        self.prompt, self.prompt_query, self._built_for = prompt, context.query, context
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
        source = self.context.corpus.source if self.context is not None else None
        flow = SaveFlow("Save the prompt to", f"Enter saves, Escape cancels; relative paths start in {Path.cwd()}",
                        "prompt saved to", source)
        # Not the current folder by default: it is wherever ranklens was started (a corpus, a repository).
        default = str(self._last_saved) if self._last_saved is not None else f"~/{DEFAULT_FILE}"
        ask_and_save(self, flow, default, lambda target: prompt, self._saved)

    def _saved(self, target: Path) -> None:
        self._last_saved = target
