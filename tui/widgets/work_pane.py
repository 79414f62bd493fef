"""Where the pane base used to live: the Metrics, Chunking and Index tabs still import it from here.

The base is ``ranklens.tui.panes.base``; import it from there. This module
goes once no pane imports it.
"""
from ranklens.tui.panes.base import Run, WorkPane, stage

__all__ = ["Run", "WorkPane", "stage"]
