"""Opening a corpus for the app: in a worker thread, load it, lay its setup over the command line's,
count the judgments the one rule counts (engine/judging/counted.py: with its workspace's unless "Count my
judgments" is off), build the index of the setup, and rank through the command line's collection
when it holds the corpus' chunks under that setup; then, on the event loop, make it the session's.

``open_corpus`` is the worker's part: it returns what the app shows, or raises what it reports. The
engine is imported inside the functions, so the first paint does not wait for it. The app owns one
``CorpusOpener`` (tui/app.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.tui.heap import keep_built, release_kept
from ranklens.tui.widgets.path_prompt import PathPrompt

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.work.progress import Progress
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace.store import Workspace
    from ranklens.tui.app import RanklensApp
    from ranklens.tui.judgment_watch import Stamp

MAX_WARNINGS = 3  # corpus warnings shown as notifications; the rest are counted
HOW_TO_OPEN = "Press ctrl+o to open a path, or ctrl+p for the bundled corpora."
# Term indexes of corpora with this many chunks or more are kept on disk between runs, as the command
# line keeps them; None: the engine's threshold (tests lower it).
CACHE_MIN_CHUNKS: int | None = None


@dataclass(frozen=True)
class Toast:
    """A notification to show once the corpus is open."""

    message: str
    severity: Literal["information", "error"] = "information"


@dataclass(frozen=True)
class Opened:
    """A corpus opened: its workbench (the corpus with the judgments that count), setup and index."""

    workbench: Workbench
    setup: Setup
    chunks: int  # of the setup's chunking
    ran: Setup  # the setup as it runs (LSA's dimensions clamped to the corpus)
    workspace: Workspace
    loaded: Corpus  # the corpus as loaded, without its workspace
    judged: Judged  # the judgments the workbench's corpus counts
    seen: Stamp  # the workspace's files as they were when ``judged`` read them
    recent: list[str]  # corpora opened lately, this one first when it is a path
    warnings: list[str]  # the corpus' and its workspace's
    collection: Toast | None = None  # what became of the command line's collection, if one was given


def open_corpus(spec: str, overrides: dict[str, Any], backend: Backend | None, progress: Progress,
                counting: bool = True) -> Opened:
    """Load ``spec`` and build its index under ``overrides`` (the command line's settings), its workspace's
    judgments counted unless ``counting`` is False (as ``--no-workspace``), ranked through
    ``backend`` when it holds the corpus' chunks under its setup; else locally, the reason told. Raises
    ``RanklensError`` or ``Cancelled`` (any other error is a loader's bug); ``backend`` is closed on
    every failure."""
    from ranklens.engine.corpus import loaders
    from ranklens.engine.storage.cache import IndexCache
    from ranklens.engine.retriever import CACHE_MIN_CHUNKS as ENGINE_CACHE_MIN_CHUNKS
    from ranklens.engine.retriever import Workbench, setup_for
    from ranklens.engine.workspace.store import Workspace
    from ranklens.tui.judgment_watch import stamp
    from ranklens.tui.recent import recent_corpora, remember_corpus

    try:
        corpus = loaders.load_corpus(spec, progress)
        setup = setup_for(corpus, overrides, source="command line")
        # The user's own questions and judgments count at once, as on the command line.
        workspace = Workspace.for_corpus(corpus)
        seen = stamp(workspace)  # before the read: a judgment given meanwhile is seen at the next poll
        judged = judged_with(corpus, workspace, counting)
        # The persisted term index, as the command line uses it: a large corpus reopens in a fraction
        # of the time its analysis takes.
        minimum = ENGINE_CACHE_MIN_CHUNKS if CACHE_MIN_CHUNKS is None else CACHE_MIN_CHUNKS
        workbench = Workbench(judged.corpus, IndexCache(), minimum)
        collection = None
        if backend is not None:
            workbench, backend, collection = _through(workbench, backend, setup, progress)
        retriever = workbench.retriever(setup, progress)
        keep_built()
        if Path(spec).expanduser().exists():  # a path, not a bundled name: offered again by the Open dialog
            remember_corpus(spec)
        recent = recent_corpora()
    except Exception:
        if backend is not None:
            backend.close()
        raise
    return Opened(workbench, setup, len(retriever.chunks), retriever.setup, workspace, corpus, judged, seen, recent,
                  [*corpus.warnings, *judged.warnings], collection)


def _through(workbench: Workbench, backend: Backend, setup: Setup,
             progress: Progress) -> tuple[Workbench, Backend | None, Toast]:
    """``workbench`` ranking through ``backend`` when the collection answers for ``setup``; else
    ``workbench`` itself, the backend closed and the reason told."""
    try:
        through = workbench.with_backend(backend)
        through.retriever(setup, progress)
    except RanklensError as error:
        backend.close()
        return workbench, None, Toast(f"ranked locally: {error}", "error")
    return through, backend, Toast(f"ranking through {backend.label}")


def judged_with(corpus: Corpus, workspace: Workspace, counting: bool) -> Judged:
    """``corpus`` with the judgments that count: its own, plus ``workspace``'s when ``counting``. A workspace
    that cannot be read is a warning (the corpus' own judgments count), not a failure to open the corpus."""
    from ranklens.engine.judging.counted import Judged, judged_corpus

    try:
        return judged_corpus(corpus, workspace if counting else None)
    except RanklensError as error:
        return Judged(corpus, None, warnings=(f"the workspace is left out: {error}",))


class CorpusOpener:
    def __init__(self, app: RanklensApp, backend: Backend | None) -> None:
        self.app = app
        self.session = app.session
        self.recent: list[str] = []  # corpora opened lately (paths), read in the opening worker
        self._first_backend = backend  # the collection of the command line, for the first corpus opened

    def ask(self) -> None:
        """Ask for a path (completed from the file system and the corpora opened lately), then open it."""
        from ranklens.tui.recent import PathSuggester

        def chosen(path: str | None) -> None:
            if path:
                self.open(path)

        self.app.push_screen(PathPrompt("Open a corpus: a BEIR folder, a folder of .txt/.md files or a .jsonl file",
                                        hint="Enter opens it, → completes a path, Escape cancels",
                                        suggester=PathSuggester(self.recent), recent=self.recent), chosen)

    def open(self, spec: str) -> None:
        """Open ``spec``; the current corpus stays until the new one is ready (or fails to load)."""
        self.app.status.say(f"opening {spec}…")
        # The command line's collection ranks the first corpus; another corpus is ranked locally.
        backend, self._first_backend = self._first_backend, None
        # After the next frame: at start, the worker's imports (numpy, scipy) would hold the GIL the
        # first paint needs.
        self.app.call_after_refresh(self.app.run_worker, partial(self._open, spec, backend), thread=True,
                                    exclusive=True, group="corpus")

    def _open(self, spec: str, backend: Backend | None) -> None:
        try:
            opened = open_corpus(spec, self.app.overrides, backend, self.app.status.progress(), self.session.counting)
        except Cancelled:
            self.app.call_from_thread(self.failed, f"cancelled: opening {spec}", False)
        except RanklensError as error:
            self.app.call_from_thread(self.failed, str(error))
        except Exception as error:  # noqa: BLE001 - a loader bug on input nobody foresaw must not end the app
            self.app.call_from_thread(self.failed, f"cannot open {spec}: {type(error).__name__}: {error}")
        else:
            self.app.call_from_thread(self._opened, opened)

    def _opened(self, opened: Opened) -> None:
        if opened.collection is not None:
            self.app.notify(opened.collection.message, title="collection", severity=opened.collection.severity)
        previous = self.session.context
        if previous is not None and previous.workbench.backend not in (None, opened.workbench.backend):
            self.app.collections.close_in_worker(previous.workbench.backend)  # the corpus it ranked is gone
        self.recent = opened.recent
        self.session.open(opened.workbench, opened.setup, opened.workspace, opened.loaded, opened.chunks, opened.ran,
                          opened.judged)
        self.app.judgment_watch.read(opened.workspace, opened.seen)
        if previous is not None:
            self.app.tab_panes.corpus_replaced()
        self.app.status.say("")
        self.app.publish()
        if previous is not None:
            release_kept()  # the old corpus goes: its cycles, if any, must be collectable
        self.show_warnings(opened.warnings)

    def show_warnings(self, warnings: list[str]) -> None:
        for warning in warnings[:MAX_WARNINGS]:
            self.app.notify(warning, title="corpus", severity="warning")
        if len(warnings) > MAX_WARNINGS:
            self.app.notify(f"and {len(warnings) - MAX_WARNINGS} more warnings", severity="warning")

    def failed(self, message: str, error: bool = True) -> None:
        """Say that opening (or indexing) failed; with no corpus open yet, the panes say why and how to go on."""
        self.app.status.say(message, error=error)
        if error:
            self.app.notify(message, title="error", severity="error")
        if self.session.context is None:  # not "Opening…"
            self.session.no_corpus = f"{message}. {HOW_TO_OPEN}"
            for pane in self.app.panes:
                pane.no_corpus(self.session.no_corpus)
