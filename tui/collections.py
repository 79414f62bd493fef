"""Ranking the open corpus through a collection (engine/backends/), and with ranklens' own index again.

The palette's "Open a Qdrant collection…" (one row per backend of engine/backends/registry.py) asks
where the collection is and its name, then opens it in a worker; "Use the local index" lets it go.
The app owns one ``Collections`` (tui/app.py).
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.tui.widgets.path_prompt import PathPrompt

if TYPE_CHECKING:
    from ranklens.engine.backends.base import Backend
    from ranklens.engine.setup import Setup
    from ranklens.tui.app import RanklensApp
    from ranklens.tui.session import Context


class Collections:
    def __init__(self, app: RanklensApp) -> None:
        self.app = app
        self.session = app.session

    def ask(self, backend: str) -> None:
        """Ask where a collection of ``backend`` (a registry name) is and its name, then rank the open corpus
        through it."""
        from ranklens.engine.backends.registry import backend_spec

        spec = backend_spec(backend)
        context = self.session.context
        if context is None:
            self.app.notify("no corpus is open yet", severity="warning")
            return
        name = context.corpus.name

        def located(target: str | None) -> None:
            if not target:
                return

            def named(collection: str | None) -> None:
                if collection is not None:  # Escape: nothing opened; Enter on an empty box: the corpus' name
                    self.open(target, collection or name)

            self.app.push_screen(PathPrompt(f"The collection in {target}", name,
                                            hint="Enter opens it (ranklens push names it after the corpus), "
                                                 "Escape cancels"), named)

        credentials = f" ({spec.credentials})" if spec.credentials else ""
        self.app.push_screen(PathPrompt(f"Open a {spec.label} collection: {spec.locations}{credentials}",
                                        hint="Enter goes on to the collection's name, Escape cancels"), located)

    def open(self, target: str, collection: str | None) -> None:
        """Rank the open corpus through ``collection`` at ``target`` (None: a retriever of the workspace's
        retrievers/ folder, which has none); on any refusal the app ranks as before."""
        context = self.session.context
        if context is None:
            return
        self.app.status.say(f"opening {target}…")
        # A local folder admits one client at a time: the one open now lets go first (the panes rank
        # locally meanwhile), and stays let go if the new one is refused.
        previous = self.session.backend
        if previous is not None:
            self._go_local()
        self.app.run_worker(partial(self._open, context, target, collection, previous), thread=True,
                            exclusive=True, group="backend")

    def _open(self, context: Context, target: str, collection: str | None, previous: Backend | None) -> None:
        from ranklens.engine.backends.registry import open_target

        close_quietly(previous)
        progress = self.app.status.progress()
        backend: Backend | None = None
        try:
            backend = open_target(target, collection)
            retriever = context.workbench.with_backend(backend).retriever(context.setup, progress)
        except (Cancelled, RanklensError) as error:
            close_quietly(backend)
            cancelled = isinstance(error, Cancelled)
            self.app.call_from_thread(self.app.status.say, f"cancelled: opening {target}" if cancelled else "")
            if not cancelled:
                self.app.call_from_thread(self.app.notify, str(error), title="collection", severity="error")
            return
        self.app.call_from_thread(self._opened, context, backend, len(retriever.chunks), retriever.setup)

    def _opened(self, context: Context, backend: Backend, chunks: int, ran: Setup) -> None:
        now = self.session.context
        if now is None or now.workspace is not context.workspace or self.session.backend is not None:
            self.close_in_worker(backend)  # another corpus (or collection) came first
            return
        self.app.status.say("")
        if self.session.rank_through(backend):
            self.app.publish()
        if self.session.index_built(context.setup, backend, chunks, ran):
            self.app.status.refresh()
        else:  # the setup changed meanwhile: build what runs of the new one through the collection
            self.app.indexer.build()
        self.app.notify(f"ranking through {backend.label}", title="collection")

    def use_local_index(self) -> None:
        backend = self.session.backend
        if backend is None:
            self.app.notify("the local index ranks already")
            return
        self._go_local()
        self.close_in_worker(backend)
        self.app.notify(f"ranking with the local index (not through {backend.label})")

    def _go_local(self) -> None:
        """The open corpus ranked by ranklens' own index again (its pieces are built already)."""
        if self.session.rank_through(None):
            self.app.publish()
        self.app.indexer.build()

    def close_in_worker(self, backend: Backend) -> None:
        self.app.run_worker(backend.close, thread=True, group="backend-close", exit_on_error=False)


def close_quietly(backend: Backend | None) -> None:
    if backend is not None:
        backend.close()
