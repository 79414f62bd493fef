"""Experiments: the tables that vary one thing and measure retrieval, with progress and cancellation.

``scorers``   every scorer under one setup: metrics, each question's rank, the threshold
``chunking``  chunk size x overlap: re-chunk, re-evaluate, pick the winner
``indexes``   an approximate index's knob against exact search, on a corpus' vectors or the synthetic set
``common``    what they share: stages of progress, the rule for "better", scorer labels

Each returns a plain dataclass with ``to_dict()``. Progress may raise
``Cancelled``: the experiment then returns what it finished, with
``complete`` False, so a long table stopped halfway keeps its finished rows.
The modules import nothing heavy at load time, so the TUI can name their
types before numpy is loaded.
"""
