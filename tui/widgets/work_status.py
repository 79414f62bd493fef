"""One line under a tab's title: a progress bar while work runs, then what the work found."""
from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import ProgressBar

from ranklens.engine.work.progress import Progress
from ranklens.tui.safe import safe_content
from ranklens.tui.widgets.fitted_line import FittedLine

UPDATE_EVERY_S = 0.1  # the engine may report thousands of times; the eye needs a few updates a second


class WorkStatus(Horizontal):
    DEFAULT_CSS = """
    WorkStatus { height: 1; }
    WorkStatus ProgressBar { display: none; width: auto; margin-right: 1; }
    WorkStatus.-busy ProgressBar { display: block; }
    WorkStatus #work-message { width: 1fr; height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class Update(Message):
        """Progress of a run, posted from its worker thread."""

        def __init__(self, run: int, done: int, total: int, label: str) -> None:
            super().__init__()
            self.run = run
            self.done = done
            self.total = total
            self.label = label

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Each run gets a number; updates from a run that is no longer the current one are ignored.
        self._run = 0

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=None, show_eta=False)
        yield FittedLine(id="work-message")

    def begin(self, label: str) -> int:
        """Show the bar at zero for a new run; returns the run's number for ``reporter``."""
        self._run += 1
        self.add_class("-busy")
        self.query_one(ProgressBar).update(total=None, progress=0)
        self._say(f"{label} … (Escape cancels)")
        return self._run

    def reporter(self, run: int) -> Progress:
        """A ``Progress`` that worker threads may call: it only posts messages, a few a second."""
        last, last_label = 0.0, ""

        def report(done: int, total: int, label: str) -> None:
            nonlocal last, last_label
            now = time.monotonic()
            # A new stage and a stage's end always show: dropping them left "exact: search" on screen
            # through the 4 s IVF build that followed it.
            if now - last >= UPDATE_EVERY_S or label != last_label or (total and done >= total):
                last, last_label = now, label
                self.post_message(WorkStatus.Update(run, done, total, label))

        return report

    def show(self, text: str) -> None:
        """End the current run (if any) and show ``text``, which may quote corpus names."""
        self._run += 1
        self.remove_class("-busy")
        self._say(text)

    def on_work_status_update(self, update: Update) -> None:
        update.stop()
        if update.run != self._run:
            return
        # A total of 0 means "unknown" (e.g. lines of a file still being read).
        self.query_one(ProgressBar).update(total=update.total or None, progress=update.done)
        self._say(f"{update.label} … (Escape cancels)")

    def _say(self, text: str) -> None:
        self.query_one("#work-message", FittedLine).say(safe_content(text, keep_newlines=False))
