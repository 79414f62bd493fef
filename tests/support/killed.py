"""``ranklens`` as a separate process that dies at a chosen moment of its writes, as a kill -9 or a power
cut leaves files: no cleanup of any kind runs.

Two moments, both deterministic: just before the rename that makes a file (``os.replace`` of a file of
that name: the process SIGKILLs itself), and in the middle of a write (a file-size limit, RLIMIT_FSIZE:
the kernel writes up to the limit, then the default action of SIGXFSZ ends the process mid-write; with
the signal ignored, as Python ignores it, the write fails with EFBIG, a disk that filled up mid-write).
"""
from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_BEFORE_RENAME = """
import os, signal, sys
name, nth = sys.argv[1], int(sys.argv[2])
real, seen = os.replace, []
def replace(src, dst, *args, **kwargs):
    if os.path.basename(os.fspath(dst)) == name:
        seen.append(dst)
        if len(seen) == nth:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)
os.replace = replace
from ranklens.cli.main import main
sys.exit(main(sys.argv[3:]))
"""

_SIZE_LIMIT = """
import resource, signal, sys
limit, die = int(sys.argv[1]), sys.argv[2] == "die"
from ranklens.cli.main import main
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXFSZ dumps core by default: no core file left behind
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
if die:
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
sys.exit(main(sys.argv[3:]))
"""


def _run(script: str, args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, input=stdin, capture_output=True,
                          timeout=300, check=False)


def killed_before_rename(name: str, argv: list[str], nth: int = 1) -> subprocess.CompletedProcess[bytes]:
    """``ranklens *argv`` SIGKILLed just before its ``nth`` rename onto a file called ``name``; asserts it was."""
    done = _run(_BEFORE_RENAME, [name, str(nth), *argv])
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr.decode())
    return done


def killed_mid_write(limit: int, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    """``ranklens *argv`` ended by the kernel in the middle of the first write taking a file past ``limit``
    bytes; asserts it was."""
    done = _run(_SIZE_LIMIT, [str(limit), "die", *argv])
    assert done.returncode == -signal.SIGXFSZ, (done.returncode, done.stderr.decode())
    return done


def full_mid_write(limit: int, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    """``ranklens *argv`` whose writes fail (EFBIG) once a file would pass ``limit`` bytes, a part written."""
    return _run(_SIZE_LIMIT, [str(limit), "ignore", *argv])
