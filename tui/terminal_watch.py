"""Ending the app when its terminal goes away without a hangup signal reaching it.

A terminal that hangs up (a dropped SSH connection, a killed tmux pane) signals only
the leader of its session. When that is not ranklens but a parent that stays (``make
run``: make leads the session), nothing tells the app: Textual's input thread then
reads an ended input at every turn and spins, and the process lives on at full CPU. A
check each second asks the terminal which process group it serves: a hung-up
terminal cannot say, and the app exits. Its shutdown writes to the terminal, which may
block for good (a writer stuck on a full terminal before the hangup); after
``SHUTDOWN_GRACE_S`` the process ends without it: a dead terminal needs no restoring.
"""
from __future__ import annotations

import os
import sys
import threading

CHECK_EVERY_S = 1.0
SHUTDOWN_GRACE_S = 5.0
HUNG_UP_STATUS = 129  # the shells' status for a process ended by SIGHUP (128 + 1)


def terminal_fd() -> int | None:
    """The app's terminal (its standard input), or None when it has none (tests, a pipe)."""
    try:
        fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
        return fd if fd >= 0 and os.isatty(fd) else None
    except (OSError, ValueError):  # a closed or replaced stream
        return None


def hung_up(fd: int) -> bool:
    """Whether the terminal on ``fd`` has hung up (every call on it but close then fails)."""
    try:
        os.tcgetpgrp(fd)
    except OSError:
        return True
    return False


def end_after_grace() -> None:
    """End the process ``SHUTDOWN_GRACE_S`` from now unless it has ended by then."""
    timer = threading.Timer(SHUTDOWN_GRACE_S, os._exit, args=(HUNG_UP_STATUS,))
    timer.daemon = True  # a shutdown that ends in time is not held up
    timer.start()
