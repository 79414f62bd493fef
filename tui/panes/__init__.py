"""One module per tab, each a ``WorkPane`` (base.py): what the tab computes and how it shows it.

The app hands every pane each new context; the base decides when it matters
and runs the pane's work in thread workers, dropping stale results. A new tab
is a module here and one line in the tab table (tui/tabs.py).
"""
