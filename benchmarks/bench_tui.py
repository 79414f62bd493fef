"""Time from process start to the first paint: the ranklens app against a bare Textual app.

Each run is a fresh interpreter (``python -c``) started by this process, so
the time includes interpreter start-up and every import, as typing
``ranklens`` does. The app runs headless at 80×24; an auto-pilot asks for a
callback after the next screen refresh (``call_after_refresh``: the first
frame), prints a marker and exits. Work the app starts after its first frame
(ranklens opens its corpus in a worker) is not counted: the user already sees
the screen. The children
import nothing of the benchmark (numpy would skew the bare app's time).
The two apps alternate, so machine noise hits both alike; medians are reported.
"""
from __future__ import annotations

import importlib.util
import signal
import statistics
import subprocess
import sys
import threading
import time

from benchmarks.common import REPO, Table
from benchmarks.compare import log

MARKER = "FIRST-PAINT"
TIMEOUT = 30.0
QUICK_TIMEOUT = 10.0  # the smoke run must stay short even when an app hangs
TARGET_S = 0.3

_PAINT = f"""
import asyncio

async def painted(pilot):
    frame = asyncio.Event()
    pilot.app.call_after_refresh(frame.set)
    await frame.wait()
    print({MARKER!r}, flush=True)
    pilot.app.exit()

app.run(headless=True, size=(80, 24), auto_pilot=painted)
"""
APPS = {
    "bare Textual app (one Static)": """
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("ranklens")

app = Bare()
""",
    "ranklens (make_app(), default corpus)": """
import ranklens.cli.main  # what the ranklens command imports first
from ranklens.tui.app import make_app

app = make_app()
""",
}


class NoPaint(Exception):
    pass


def first_paint_s(code: str, timeout: float) -> float:
    """Seconds from spawning ``python -c code`` to its first-paint marker; NoPaint if it never comes."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code + _PAINT], cwd=REPO, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # an app that hangs before painting must not hang the benchmark: kill it after ``timeout``
    watchdog = threading.Timer(timeout, child.kill)
    watchdog.start()
    try:
        stdout, stderr = child.stdout, child.stderr
        assert stdout is not None and stderr is not None
        for line in stdout:
            if line.strip() == MARKER:
                elapsed = time.perf_counter() - started
                child.wait()
                return elapsed
        child.wait()
        last = (stderr.read().strip().splitlines() or [f"exit {child.returncode}"])[-1]
    finally:
        watchdog.cancel()
    if child.returncode == -signal.SIGKILL:
        raise NoPaint(f"no first paint within {timeout:.0f} s")
    raise NoPaint(last[:160])


def run(quick: bool) -> list[Table]:
    table = Table("TUI: process start to first paint (headless, 80×24)",
                  ["app", "median", "min", "max", "runs"])
    if importlib.util.find_spec("textual") is None or importlib.util.find_spec("ranklens.tui.app") is None:
        table.notes.append("skipped: tui/app.py (make_app) is not there yet")
        return [table]
    repeats = 1 if quick else 5
    times: dict[str, list[float]] = {name: [] for name in APPS}
    try:
        for _ in range(repeats):
            for name, code in APPS.items():
                times[name].append(first_paint_s(code, QUICK_TIMEOUT if quick else TIMEOUT))
    except NoPaint as failed:
        table.notes.append(f"skipped: an app did not paint ({failed})")
        return [table]
    for name, values in times.items():
        table.add(name, f"{statistics.median(values):.3f} s", f"{min(values):.3f} s", f"{max(values):.3f} s",
                  len(values))
    names = list(APPS)
    gap = statistics.median(times[names[1]]) - statistics.median(times[names[0]])
    verdict = "met" if gap <= TARGET_S else "not met"
    table.notes.append(f"ranklens paints {gap:+.3f} s after the bare app "
                       f"(medians; target within {TARGET_S} s: {verdict}).")
    log(f"  tui: ranklens {gap:+.3f} s after the bare app")
    return [table]
