"""Helpers shared by the test modules; test modules import from here, never from each other.

- ``cli``: run ``ranklens`` in-process or as a process, and check its errors and stderr.
- ``files``: corpora written to disk (BEIR folders, text folders) and folder listings.
- ``hostile``: text that would drive a terminal or a markup parser, and checks that none got through.
- ``seeds``: strings printed by the seed lessons, written out as the seeds print them.
- ``app``: waiting on the Textual app, typing a query, reading the screen.
- ``panes``: a minimal app around one pane.
"""
