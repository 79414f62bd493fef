"""Run a module as ``__main__`` and write this process' peak resident memory to a file when it ends.

    python -m benchmarks.peak OUT_FILE MODULE [ARGS...]

The kernel's per-child peak (``ru_maxrss``) also counts the image the child
was forked from, i.e. the parent's memory; ``VmHWM`` belongs to the program
after ``exec`` alone. Imports nothing beyond the standard library.
"""
from __future__ import annotations

import atexit
import runpy
import sys
from pathlib import Path


def _peak_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return -1


def main() -> None:
    out, module = Path(sys.argv[1]), sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    atexit.register(lambda: out.write_text(str(_peak_bytes())))
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
