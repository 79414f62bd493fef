"""One measurement per fresh process: memory peaks, crashes and time-outs stay apart.

The parent calls ``run_task(module, function, args)``; the child
(``python -m benchmarks.worker``) imports ``module``, calls
``function(args, arrays)`` and writes the returned dict as JSON plus the
numpy arrays it put in ``arrays`` as an .npz (never pickle). A peer that
runs out of memory or time becomes a one-line reason in the table, not a
crash of the whole run.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from benchmarks.common import REPO

RESULT = "result.json"
ARRAYS = "arrays.npz"


class TaskFailed(Exception):
    """A measurement that did not produce a result; the message goes into the table."""


@dataclass
class Finished:
    """A child process that ran to its end: its output, wall time and peak resident memory."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_bytes: int | None  # the child's whole-process peak RSS (VmHWM, see benchmarks/peak.py)


def run_module(module: str, args: list[str], timeout: float, env: dict[str, str] | None = None) -> Finished:
    """``python -m module args`` from the repository root, with that process' own peak RSS."""
    with tempfile.TemporaryDirectory(prefix="ranklens-bench-peak-") as tmp:
        peak_file = Path(tmp) / "peak"
        done = run_command([sys.executable, "-m", "benchmarks.peak", str(peak_file), module, *args], timeout, env)
        done.peak_bytes = int(peak_file.read_text()) if peak_file.exists() else None
        return done


def run_command(command: list[str], timeout: float, env: dict[str, str] | None = None) -> Finished:
    """Run ``command`` from the repository root (no peak memory: see ``run_module``)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=err, env=env)
        while True:
            pid, status, _ = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout:
                child.kill()
                os.wait4(child.pid, 0)
                child.returncode = -9
                raise TaskFailed(f"did not finish in {timeout:.0f} s")
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Finished(child.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                        seconds, None)


def run_task(module: str, function: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run ``module.function(args, arrays)`` in a child process; its result with the arrays merged in."""
    with tempfile.TemporaryDirectory(prefix="ranklens-bench-") as tmp:
        out = Path(tmp)
        command = [sys.executable, "-m", "benchmarks.worker", module, function, json.dumps(args), str(out)]
        done = run_command(command, timeout)
        if (out / RESULT).exists():
            result = json.loads((out / RESULT).read_text())
            if "error" in result:
                raise TaskFailed(result["error"])
            if (out / ARRAYS).exists():
                with np.load(out / ARRAYS, allow_pickle=False) as arrays:
                    result.update({name: arrays[name] for name in arrays.files})
            return result
        if done.returncode < 0:
            reason = "killed (out of memory?)" if done.returncode == -9 else f"killed by signal {-done.returncode}"
            raise TaskFailed(reason)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise TaskFailed(f"exit {done.returncode}: {last[:160]}")


def main(argv: list[str]) -> int:
    module, function, args, out = argv[0], argv[1], json.loads(argv[2]), Path(argv[3])
    arrays: dict[str, np.ndarray] = {}
    try:
        result = getattr(importlib.import_module(module), function)(args, arrays)
    except MemoryError:
        result = {"error": "out of memory"}
    except Exception as error:  # any failure of a peer is reported, not raised: the run goes on
        traceback.print_exc()
        result = {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"}
    if arrays and "error" not in result:
        np.savez(out / ARRAYS, **cast(dict[str, Any], arrays))  # the stubs read a key as allow_pickle
    (out / RESULT).write_text(json.dumps(result))
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
