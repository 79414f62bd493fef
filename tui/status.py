"""What the setup line says: the corpus and the setup every number comes from (as it runs, once its index
is built), the collection ranking it, and what the app is doing now (a worker's progress, an error).

The app owns one ``Status`` (tui/app.py); workers report their progress through ``progress``.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from ranklens.engine.work.progress import cancellable
from ranklens.tui.setting_text import describe
from ranklens.tui.widgets.setup_line import SetupLine

if TYPE_CHECKING:
    from ranklens.engine.work.progress import Progress
    from ranklens.tui.app import RanklensApp

PROGRESS_EVERY_S = 0.1  # how often a worker's progress reaches the screen


class Status:
    def __init__(self, app: RanklensApp) -> None:
        self.app = app
        self.session = app.session
        self.text = ""
        self.is_error = False
        self._last_progress = 0.0

    def say(self, text: str, error: bool = False) -> None:
        self.text, self.is_error = text, error
        self.refresh()

    def published(self) -> None:
        """A new context is on screen: an old error (a failed open) does not describe it."""
        if self.is_error:
            self.text, self.is_error = "", False
        self.refresh()

    def refresh(self) -> None:
        line = self.app.query_one(SetupLine)
        context, setup = self.session.context, self.session.running  # LSA's dimensions clamped, once known
        if context is None or setup is None:
            line.show(self.app.corpus_spec, None, "", self.text, self.is_error)
            return
        corpus = context.corpus
        language = str(corpus.settings.get("language") or "")
        if language and corpus.language_detected:
            language += " (detected)"
        backend = self.session.backend
        line.show(corpus.name, self.session.chunk_count, describe(setup), self.text, self.is_error, language,
                  backend.label if backend is not None else "")

    def progress(self) -> Progress:
        """Progress for the worker that asks (in its thread): shown on the setup line, and raising
        ``Cancelled`` once the worker is cancelled (Escape)."""
        worker = get_current_worker()
        return cancellable(self._from_thread, lambda: worker.is_cancelled)

    def _from_thread(self, done: int, total: int, label: str) -> None:
        """Shown at most every PROGRESS_EVERY_S, so reporting stays cheap."""
        now = time.monotonic()
        if now - self._last_progress < PROGRESS_EVERY_S:
            return
        self._last_progress = now
        amount = f"{done * 100 // total}%" if total else f"{done:,}"
        self.app.call_from_thread(self.say, f"{label} {amount} (Esc cancels)")
