"""Suite-wide settings: caches go to a temporary folder, never the user's; apps run without animations; every
test is marked with the lane it exercises (engine, cli, tui, benchmarks); ranx runs uncompiled; the slowest work is
handed out first; Hypothesis' "fast" profile (make test-fast) draws a third of the examples."""
from __future__ import annotations

import functools
import gc
import os
import re
import tempfile
from pathlib import Path

# ranx (the oracle of the measures) is numba-compiled Python: compiling its kernels cost 80 s of CPU in a fresh
# venv (9 s with numba's cache warm) for tests that measure tens of questions, which its Python source, the same
# code uncompiled, measures in under a second. Set before anything imports numba, which reads it once.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

import pytest  # noqa: E402
import textual.app  # noqa: E402
import textual.constants  # noqa: E402
from _pytest.mark.expression import Expression  # noqa: E402

import tests.support.examples  # noqa: E402, F401 - registers the "fast" profile before Hypothesis loads one

# The tab underline slides to the active tab: on a loaded machine a snapshot caught it mid-slide.
# App reads this when it is made, so every app of the suite (and a subprocess, by the variable) keeps still.
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]
# A toast leaves the screen after the app's timeout (5 s): on a loaded machine a test read the notifications after
# that and found none (test_tui_raters, test_tui_judging). Under test a toast stays for the test's whole life; the
# app's own rule (the same message twice is one toast while it shows) is unchanged.
textual.app.App.NOTIFICATION_TIMEOUT = 3600

LANES = ("engine", "cli", "tui", "benchmarks")
# A test file's name (test_tui_*, test_cli_*, test_benchmarks_*), else what it imports, says what it exercises: the
# app (or a pane harness), else the command line (in-process or a subprocess), else the engine. Every test of a
# file is in the file's lane.
_TUI = ("ranklens.tui", "tests.support.app", "tests.support.panes", "textual")
_CLI = ("ranklens.cli", "tests.support.cli", "subprocess")
_FIRST = ("benchmarks", "tui", "cli", "engine")  # the order work is handed out in: the longest first


def pytest_configure(config: pytest.Config) -> None:
    for lane, what in zip(LANES, ("the engine alone", "the command line", "the TUI", "the benchmark script")):
        config.addinivalue_line("markers", f"{lane}: exercises {what} (make test-fast runs engine and cli)")


@functools.cache
def _lane(path: Path) -> str:
    named = next((lane for lane in LANES if path.name.startswith(f"test_{lane}_")), None)
    if named is not None:
        return named
    source = path.read_text(encoding="utf-8")
    if any(name in source for name in _TUI):
        return "tui"
    return "cli" if any(name in source for name in _CLI) else "engine"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # `-m` naming lanes alone (make test-fast's "engine or cli") leaves out whole files: not importing the others
    # saves each worker the TUI test modules' imports (about 6 s of CPU), which the marks would deselect anyway.
    expression = config.getoption("markexpr")
    if not expression or not (collection_path.name.startswith("test_") and collection_path.suffix == ".py"):
        return None
    if not set(re.findall(r"\w+", expression)) - {"and", "or", "not"} <= set(LANES):
        return None
    lane = _lane(collection_path)
    return True if not Expression.compile(expression).evaluate(lambda name, **_: name == lane) else None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank: dict[str, int] = {}
    for item in items:
        lane = _lane(item.path)
        item.add_marker(lane)
        rank[item.nodeid] = _FIRST.index(lane)
    items.sort(key=lambda item: rank[item.nodeid])  # stable: a file's tests keep their order


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    # The collected modules (Textual, numpy, the tests) stay for the run: frozen, no collection walks them again.
    # Apps made and dropped by the hundred keep the young generation filling: collected every 10,000 allocations
    # instead of 700, the collector took 1.9 s of CPU instead of 4.5 s over three TUI files (50 s in all).
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["RANKLENS_CACHE_DIR"] = str(tmp_path_factory.mktemp("ranklens-cache"))


@pytest.fixture(scope="session")
def _data_homes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ranklens-data")


@pytest.fixture(autouse=True)
def _isolated_workspaces(_data_homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Workspaces (judgments, saved runs) default to the XDG data folder: never the user's in tests, and
    # one per test, since every measure counts the default workspace's judgments. Not by mktemp: pytest numbers a
    # folder by listing every folder of the run (a second of CPU per worker, each test's listing longer).
    monkeypatch.setenv("XDG_DATA_HOME", tempfile.mkdtemp(dir=_data_homes))
