"""Building the index of the session's setup in a worker, with progress, so the panes find it ready.

A setting change or a collection opened or let go asks for it; a build that finishes for a setup the
session no longer holds (or for another engine) is dropped. The app owns one ``IndexBuilder``
(tui/app.py).
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.tui.heap import keep_built

if TYPE_CHECKING:
    from ranklens.engine.setup import Setup
    from ranklens.tui.app import RanklensApp
    from ranklens.tui.context import Context


class IndexBuilder:
    def __init__(self, app: RanklensApp) -> None:
        self.app = app

    def build(self) -> None:
        """Build the index of the session's setup now (a newer build replaces one running)."""
        context = self.app.context
        assert context is not None
        self.app.run_worker(partial(self._build, context), thread=True, exclusive=True, group="index")

    def _build(self, context: Context) -> None:
        app = self.app
        try:
            retriever = context.workbench.retriever(context.setup, app.status.progress())
            keep_built()
        except Cancelled:
            app.call_from_thread(app.status.say, "indexing cancelled")
            return
        except RanklensError as error:
            app.call_from_thread(app.opener.failed, str(error))
            return
        except Exception as error:  # noqa: BLE001 - a bug in a scorer must not close the app with the user's work
            app.call_from_thread(app.opener.failed, f"indexing failed: {type(error).__name__}: {error}")
            return
        app.call_from_thread(self._built, context, len(retriever.chunks), retriever.notes, retriever.setup)

    def _built(self, context: Context, chunks: int, notes: list[str], ran: Setup) -> None:
        app = self.app
        # built for another setup, or ranked by another engine (a collection opened or let go since)
        if not app.session.index_built(context.setup, context.workbench.backend, chunks, ran):
            return
        app.status.say("")
        for note in notes:
            app.notify(note)
        if app.backend is not None and ran.scorer != context.setup.scorer:
            from ranklens.engine.scoring.registry import spec

            asked, runs = spec(context.setup.scorer).label, spec(ran.scorer).label
            app.notify(f"the collection ranks by {runs}, not {asked}: the palette's 'Use the local index' "
                       f"ranks by {asked}")
