"""Judgments given elsewhere (another terminal, a teammate, the command line) seen while the app runs.

The workspace's files the judgments that count are read from (its questions, its judgment log, the
settings naming the rater rule) are stat'ed on a timer: three ``stat`` calls a second, nothing heavy on
the event loop. When one of them changed since the app last read them, the corpus is judged again in a
thread worker, as after the app's own writes (tui/workspace_actions.py), and every tab showing grades or
judged counts follows the new context. ``r`` reads them again at once, whatever the files say.

The app owns one ``JudgmentWatch`` (tui/app.py); whoever reads the files for a context (opening a corpus,
a write, a reload) tells it what they were like just before the read (``read``), so a change made during
the read is seen at the next poll, and the app's own writes are not read twice.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ranklens.engine.workspace.store import Workspace
    from ranklens.tui.app import RanklensApp

WATCH_EVERY_S = 1.0
Stamp = tuple[tuple[int, int, int] | None, ...]  # per file: inode, size, modification time (ns); None: none yet


def stamp(workspace: Workspace) -> Stamp:
    """What changes when anyone writes the judgments that count: each file's inode (an atomic rename makes a
    new one), size and modification time."""
    found: list[tuple[int, int, int] | None] = []
    for path in (workspace.queries_path, workspace.log_path, workspace.settings_path):
        try:
            status = os.stat(path)
        except OSError:
            found.append(None)
        else:
            found.append((status.st_ino, status.st_size, status.st_mtime_ns))
    return tuple(found)


class JudgmentWatch:
    def __init__(self, app: RanklensApp) -> None:
        self.app = app
        self._seen: tuple[Workspace, Stamp] | None = None  # the files as the open context's judgments read them

    def start(self) -> None:
        self.app.set_interval(WATCH_EVERY_S, self.poll)

    def read(self, workspace: Workspace, seen: Stamp) -> None:
        """The app judged the corpus from ``workspace``'s files as ``seen`` found them just before."""
        self._seen = (workspace, seen)

    def poll(self) -> None:
        """Judge the corpus again when the files changed since they were read (not while a write of the app's
        is on its way: it reads them when done)."""
        session, actions = self.app.session, self.app.workspace_actions
        opened = session.opened_workspace()
        if opened is None or not session.counting or actions.busy:
            return  # not counted: "Count my judgments" turned on reads them again
        workspace = opened[0]
        now = stamp(workspace)
        if self._seen == (workspace, now):
            return
        self._seen = (workspace, now)  # not again at the next poll: the reload stamps what it reads
        actions.reload()
