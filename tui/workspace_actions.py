"""What the app writes to the open corpus' workspace (engine/workspace/store.py): the panes' changes (a grade,
a question saved), the palette's imports and exports, and the runs saved with ``S``; and "Count my
judgments", which counts the workspace's judgments or leaves them out (as ``--no-workspace``).

A change that judges (a grade, an undo) is made as the session's rater, asked for at the first one
(tui/rater.py). Every write runs in a thread worker; writes to the workspace run one at a time, in the order made,
and then the corpus is judged again by the one rule (engine/judging/counted.py) and the session publishes a
context whose workbench shares the old one's indexes. The app owns one ``WorkspaceActions`` (tui/app.py).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.content import Content

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.measuring.runs import RunFiles
from ranklens.tui.context import ListsRuns
from ranklens.tui.widgets.confirm import Confirm
from ranklens.tui.widgets.path_prompt import PathPrompt

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.workspace.store import Workspace
    from ranklens.tui.app import RanklensApp
    from ranklens.tui.session import Context

Change = Callable[["Workspace", "Corpus"], str]  # (workspace, corpus as loaded) -> what to tell the user


class WorkspaceActions:
    def __init__(self, app: RanklensApp) -> None:
        self.app = app
        self.session = app.session
        self._lock = threading.Lock()  # workspace writes, one at a time
        # what waits for the rater dialog's answer: what to do with a name, and without one
        self._waiting: list[tuple[Callable[[], object], Callable[[], object] | None]] | None = None

    def change(self, change: Change, judges: bool = False, dropped: Callable[[], object] | None = None) -> None:
        """Make ``change`` to the open corpus' workspace (a pane's ``ChangeWorkspace``); one that ``judges``
        as the session's rater, asking who that is first when no judgment of the session did (``dropped()`` when
        the question is cancelled)."""
        opened = self.session.opened_workspace()
        if opened is None:
            self.app.notify("no corpus is open yet", severity="warning")
            return
        if judges and self.session.rater is None:
            self.with_rater(partial(self.change, change, judges=True), dropped)
            return
        self._write(change, *opened, self.session.rater if judges else None)

    def judge_pool(self) -> None:
        """The judging queue over the open corpus, once the session knows who judges: asked before it opens, as
        a grade the dialog then dropped would leave the queue a pair ahead."""
        from ranklens.tui.pool_queue import PoolQueueScreen

        context = self.session.context
        if context is None or context.workspace is None:
            self.app.notify("no corpus is open yet", severity="warning")
            return
        self.with_rater(partial(self.app.push_screen, PoolQueueScreen(context)))

    def with_rater(self, then: Callable[[], object], dropped: Callable[[], object] | None = None) -> None:
        """``then()`` once the session knows who judges: at once, or after asking (``dropped()`` when not
        answered). What asks while the dialog is open waits for the same answer: one dialog, the grades in the
        order given."""
        from ranklens.tui.rater import ask_rater

        if self.session.rater is not None:
            then()
        elif self._waiting is not None:
            self._waiting.append((then, dropped))
        else:
            self._waiting = [(then, dropped)]
            ask_rater(self.app, self._judge_as)

    def _judge_as(self, rater: str | None) -> None:
        """The session's rater is ``rater`` from now on (and the next session's dialog offers it); what waited
        for it is done now (dropped when no name was given)."""
        from ranklens.tui.rater import remember_rater

        waiting, self._waiting = self._waiting or [], None
        if rater is None:
            for _, dropped in reversed(waiting):  # the first grade's undoing last: the cursor ends where it began
                if dropped is not None:
                    dropped()
            return
        self.session.rater = rater
        self.app.notify(f"judging as {rater} this session")
        self.app.run_worker(partial(remember_rater, rater), thread=True, group="rater")
        for then, _ in waiting:
            then()

    def _write(self, change: Change, workspace: Workspace, corpus: Corpus, rater: str | None = None) -> None:
        self.app.run_worker(partial(self._write_in_worker, change, workspace, corpus, rater), thread=True,
                            group="workspace")

    def _write_in_worker(self, change: Change | None, workspace: Workspace, corpus: Corpus,
                         rater: str | None = None, told: bool = False) -> None:
        """Make ``change`` (None: none, the toggle changed or the files are read again), as ``rater`` when
        given, and judge the corpus again, saying so when ``told``; changes run one at a time, in the order
        made."""
        from ranklens.engine.judging.counted import judged_corpus
        from ranklens.tui.judgment_watch import stamp

        with self._lock:
            try:
                writer = workspace if rater is None else workspace.as_rater(rater)
                said = change(writer, corpus) if change is not None else ""
                seen = stamp(workspace)  # before the read: a change made during it is seen at the next poll
                judged = judged_corpus(corpus, workspace if self.session.counting else None)
            except RanklensError as error:
                self.app.call_from_thread(self.app.notify, str(error), severity="error")
                return
            if told:
                said = f"judgments read again: {judged.describe()}"
            self.app.call_from_thread(self._changed, workspace, corpus, judged, said, rater is not None)
            self.app.call_from_thread(self.app.judgment_watch.read, workspace, seen)

    def _changed(self, workspace: Workspace, corpus: Corpus, judged: Judged, said: str, judges: bool) -> None:
        if not self.session.holds(workspace, corpus):
            return  # another corpus was opened meanwhile
        if self.session.judged_again(workspace, corpus, judged):
            self.app.publish()
        if (said or judges) and judged.workspace is None:  # a grade the tabs do not show: say why
            said = " · ".join(filter(None, [said, "not counted while Count my judgments is off (M)"]))
        if said:
            self.app.notify(said)  # plain text: it may quote a file name
        self.app.opener.show_warnings(list(judged.warnings))

    def reload(self, told: bool = False) -> None:
        """Judge the open corpus again from its workspace's files as they are now (judgments given elsewhere),
        in a worker; ``told``: say what counts now (``r``)."""
        opened = self.session.opened_workspace()
        if opened is None:
            if told:
                self.app.notify("no corpus is open yet", severity="warning")
            return
        self.app.run_worker(partial(self._write_in_worker, None, *opened, told=told), thread=True, group="workspace")

    @property
    def busy(self) -> bool:
        """Whether a write or a reading of the workspace is on its way."""
        return any(worker.group == "workspace" and not worker.is_finished for worker in self.app.workers)

    def toggle_counting(self) -> None:
        """Count the workspace's judgments with the corpus' own, or leave them out (as ``--no-workspace``);
        the numbers of every tab follow once the corpus is judged again (in a worker)."""
        on = self.session.toggle_counting()
        self.app.notify(f"Count my judgments: {'on' if on else 'off'}"
                        + ("" if on else " · the corpus' judgments only, as --no-workspace"))
        opened = self.session.opened_workspace()
        if opened is not None:
            self.app.run_worker(partial(self._write_in_worker, None, *opened), thread=True, group="workspace")

    def file(self, name: str) -> None:
        """Ask for a file, then import it into the workspace or export the workspace's questions or
        judgments to it (asking before replacing a file)."""
        from ranklens.tui.recent import PathSuggester
        from ranklens.tui.saving import cleared
        from ranklens.tui.workspace_files import WORKSPACE_FILES

        entry = next(f for f in WORKSPACE_FILES if f.name == name)
        opened = self.session.opened_workspace()
        if opened is None:
            self.app.notify("no corpus is open yet", severity="warning")
            return
        workspace, loaded = opened

        def run(path: Path) -> None:
            def change(workspace: Workspace, corpus: Corpus) -> str:
                return entry.run(workspace, corpus, path)

            if entry.imports:  # judgments imported are the session's rater's once asked, else the login name's
                self._write(change, workspace, loaded, self.session.rater)
            else:
                self.app.run_worker(partial(self._export, change, workspace, loaded), thread=True,
                                    group="workspace-file")

        def chosen(text: str | None) -> None:
            if not text:
                return
            path = Path(text).expanduser().absolute()
            if entry.imports:
                run(path)
            else:  # as the tabs' saves: never inside the corpus, a file replaced only on a yes
                cleared(self.app.screen, path, loaded.source, lambda: run(path))

        self.app.push_screen(PathPrompt(entry.prompt, hint="Enter to confirm, → completes a path, Escape cancels",
                                        suggester=PathSuggester(self.app.opener.recent)), chosen)

    def _export(self, change: Change, workspace: Workspace, corpus: Corpus) -> None:
        try:
            said = change(workspace, corpus)
        except RanklensError as error:
            self.app.call_from_thread(self.app.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self.app.notify, said)

    def save_run(self) -> None:
        """Ask for a name, then save a run of every question under the current setup in the workspace."""
        context = self.session.context
        if context is None or context.workspace is None:
            self.app.notify("no corpus is open yet", severity="warning")
            return
        workspace = context.workspace

        def save(name: str, replace: bool) -> None:
            self.app.run_worker(partial(self._save_run, context, name, replace), thread=True, exclusive=True,
                                group="save-run")

        def chosen(name: str | None) -> None:
            if name:
                self._unless_taken(workspace, name, save)

        where = workspace.runs_dir
        self.app.push_screen(PathPrompt("Save a run of every question under the current setup, named",
                                        context.setup.scorer,
                                        hint=f"Enter saves it in {where}, Escape cancels"), chosen)

    def _unless_taken(self, workspace: Workspace, name: str, save: Callable[[str, bool], None]) -> None:
        """``save(name, False)`` for a new name; for a run saved already, ask first: ``save(name, True)`` only
        on a yes, and on a no (or Escape) the saved run stays as it is."""
        try:
            there = workspace.run_files(name)
        except (OSError, RanklensError):
            there = None  # an unreadable runs folder or sidecar: the save says what is wrong with it
        if there is None:
            save(name, False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                save(name, True)
            else:
                self.app.notify(f"run {name} kept as it was")

        found = ("A run named {} is saved already" if there is RunFiles.SAVED
                 else "Run {} is half-saved (a save of it was interrupted)").format(name)
        self.app.push_screen(Confirm(Content(f"{found}. Replace it?")), answered)

    def _save_run(self, context: Context, name: str, replace: bool) -> None:
        from ranklens.engine.comparing.two_runs import run_depth, setup_run

        assert context.workspace is not None
        progress = self.app.status.progress()
        try:
            context.workspace.run_path(name)  # a bad name is refused before the run is made
            run, meta, _ = setup_run(context.workbench, run_depth(context.setup), name, progress)
            # replace is True only after a yes to replacing the run of that name (_unless_taken)
            saved = context.workspace.save_run(name, run, meta, replace=replace)
        except Cancelled:
            self.app.call_from_thread(self.app.status.say, "saving the run cancelled")
            return
        except RanklensError as error:
            self.app.call_from_thread(self.app.status.say, "")
            self.app.call_from_thread(self.app.notify, str(error), severity="error")
            return
        headline = "  ".join(f"{key} {value:.3f}" for key, value in list(meta["metrics"].items())[:2])
        self.app.call_from_thread(self.app.status.say, "")
        done = "replaced" if replace else "saved"
        self.app.call_from_thread(self.app.notify, f"run {name} {done}: {meta['questions']} questions"
                                                   f"{' · ' + headline if headline else ''} ({saved.path})")
        self.app.call_from_thread(self._runs_changed)

    def _runs_changed(self) -> None:
        """A run was saved: a pane listing runs lists it."""
        for pane in self.app.panes:
            if isinstance(pane, ListsRuns):
                pane.runs_changed()
