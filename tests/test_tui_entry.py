"""`ranklens CORPUS` (the TUI) from a script, a pipe or cron: one line naming the subcommands and status 2,
before Textual starts, instead of escape codes in the output and an app waiting for keys for ever."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ranklens.cli.subcommands import COMMANDS


@pytest.mark.parametrize("stdin", [subprocess.DEVNULL, subprocess.PIPE])
def test_the_tui_without_a_terminal_says_so_and_exits_2(stdin: int) -> None:
    done = subprocess.run([sys.executable, "-c", "import sys, ranklens.cli.main as m; "
                           "code = m.main(['studio-alfa']); "
                           "sys.exit(code + 10 * ('textual' in sys.modules))"],
                          stdin=stdin, capture_output=True, text=True, timeout=60, input=None)
    assert done.returncode == 2, (done.returncode, done.stderr)  # 12: Textual was imported first
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ranklens: the TUI needs a terminal on standard input and output")
    assert all(command in lines[0] for command in COMMANDS)


def test_the_entry_point_without_a_terminal_exits_2() -> None:
    done = subprocess.run([sys.executable, "-m", "ranklens.cli", "studio-alfa"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert "\x1b" not in done.stderr and "needs a terminal" in done.stderr
