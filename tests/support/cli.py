"""Running the ``ranklens`` command in-process, as scripts and users call it, or as a process with its memory."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ranklens.cli.main import main
from tests.support.files import listing
from tests.support.hostile import assert_terminal_safe

ROOT = Path(__file__).resolve().parents[2]

# The 200 MB runs take about a minute on two cores: opt in with RANKLENS_SLOW=1.
slow = pytest.mark.skipif(os.environ.get("RANKLENS_SLOW") != "1", reason="slow: set RANKLENS_SLOW=1 to run")


@dataclass
class Run:
    status: int
    out: str
    err: str

    @property
    def json(self):  # noqa: ANN201
        return json.loads(self.out)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    status = main(list(argv))
    captured = capsys.readouterr()
    return Run(status, captured.out, captured.err)


def run_on(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> Run:
    """``ranklens *argv`` in-process, asserting nothing in ``folder`` was created, changed or removed."""
    before = listing(folder)
    run = run_cli(capsys, *argv)
    assert listing(folder) == before, "ranklens wrote into the corpus folder"
    return run


def assert_error(run: Run, *needles: str) -> None:
    """Exit status 2 and exactly one line on stderr, naming every needle, no traceback, nothing on stdout."""
    assert run.status == 2, (run.status, run.err)
    assert run.out == ""
    lines = run.err.strip("\n").split("\n")
    assert len(lines) == 1, run.err
    assert lines[0].startswith("ranklens"), lines[0]
    assert "Traceback" not in run.err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert_terminal_safe(run.err)


def stderr_lines(run: Run, kind: str) -> list[str]:
    """The ``ranklens: KIND: ...`` lines of a run's stderr."""
    return [line for line in run.err.splitlines() if line.startswith(f"ranklens: {kind}: ")]


@dataclass
class Measured:
    status: int
    out: bytes
    err: bytes
    peak_rss: int  # bytes, the child's peak resident set


def measured_run(argv: list[str], stdout: int | None = subprocess.PIPE) -> Measured:
    """``ranklens *argv`` as a separate process, with its peak memory.

    A wrapper process runs the command as its only child, so RUSAGE_CHILDREN
    measures that command and nothing else the test session started.
    """
    wrapper = (
        "import json, resource, subprocess, sys\n"
        "status = subprocess.call([sys.executable, '-m', 'ranklens.cli.main', *sys.argv[1:]])\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"  # kilobytes on Linux
        "sys.stderr.write('\\n' + json.dumps({'status': status, 'peak': peak}))\n"
    )
    result = subprocess.run([sys.executable, "-c", wrapper, *argv], cwd=ROOT, stdout=stdout,
                            stderr=subprocess.PIPE, timeout=600)
    err, _, tail = result.stderr.rpartition(b"\n")
    report = json.loads(tail)
    return Measured(report["status"], result.stdout or b"", err, report["peak"])
