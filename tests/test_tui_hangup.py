"""The app ends when its terminal hangs up, even under a parent that leads the session and stays (``make run``):
a real pseudo-terminal closed under a running app, as tmux closes a pane (Linux: processes found through /proc)."""
from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists() or shutil.which("make") is None,
                                reason="needs Linux's /proc and make")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def _drain(fd: int, seconds: float) -> bytes:
    """What the terminal shows within ``seconds`` (read, so that the app never blocks writing)."""
    got, end = b"", time.monotonic() + seconds
    while time.monotonic() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                got += os.read(fd, 65536)
            except OSError:
                break
    return got


def test_the_app_ends_when_its_terminal_hangs_up_under_a_parent_that_stays(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(f"run:\n\t{sys.executable} -m ranklens.cli.main studio-alfa\n")
    leader: int | None
    leader, terminal = pty.fork()
    if leader == 0:  # the child: make, leading the terminal's session; on SIGHUP it waits for the app
        os.environ.update({"TERM": "xterm-256color", "XDG_DATA_HOME": str(tmp_path / "data"),
                           "RANKLENS_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100", "LINES": "30"})
        os.execvp("make", ["make", "-s", "-C", str(tmp_path), "run"])
    app: int | None = None
    try:
        deadline = time.monotonic() + 60
        shown = b""
        while time.monotonic() < deadline and (app is None or b"Search" not in shown):
            shown += _drain(terminal, 0.2)
            app = app or next(iter(_children(leader)), None)
        assert app is not None and b"Search" in shown, shown[-500:]
        # as tmux ends a pane: its process (the session's leader) is sent SIGHUP, then the terminal closes, with
        # whatever the app wrote since left unread (its writer may be stuck on the full terminal). The hangup
        # signals the leader only: the app just finds its input ended.
        os.kill(leader, signal.SIGHUP)
        os.close(terminal)
        deadline = time.monotonic() + 30
        while _running(app) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(app), "the app went on after its terminal hung up"
        os.waitpid(leader, 0)  # make ends with it
        leader = None
    finally:
        for pid in (app, leader):
            if pid is not None and _running(pid):
                os.kill(pid, signal.SIGKILL)
        if leader is not None:
            os.waitpid(leader, 0)
