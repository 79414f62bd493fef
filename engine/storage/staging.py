"""Staging folders of cache entries: each named by the process writing it, removed once that process is gone.

A cache entry is written into a hidden staging folder beside it and renamed into place
(``engine/storage/cache.py``'s docstring). A process killed mid-write leaves its staging folder
behind, tens of megabytes of a large corpus' term index, and a disk that filled up kept
full. So a staging folder is named ``.STEM.PID.staging-RANDOM``, ``PID`` the writer's
process id, and before a writer makes one it removes those beside it whose process no
longer runs. A live process' folder (another ranklens writing now, or this one on another
thread) is left alone; a process id reused since by another process only keeps a stale
folder until that process ends. Staging folders named before they carried a process id
(``.STEM-RANDOM``, the entry's name cut short) cannot be told live or stale that way: those
are removed once a day old, far longer than any write takes.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

_STAGING = re.compile(r"\..*\.(\d+)\.staging-[^.]+")
# without a process id: a term index' or embeddings' key cut to 12, a corpus entry, scorer weights; tempfile's suffix
_UNNAMED = re.compile(r"\.([0-9a-f]{12}|corpus-[0-9a-f]{32}|(bm25|tfidf)-[0-9a-f]{20})-[a-z0-9_]{8}")
_UNNAMED_STALE_S = 24 * 3600


def write_entry(final: Path, write: Callable[[Path], None]) -> None:
    """The entry ``final`` made by ``write`` in a staging folder beside it, then renamed into place; kept as it is
    when another process made it meanwhile. Any error (a full or read-only disk: ``OSError``) leaves no staging
    folder and is raised."""
    staging = staging_folder(final.parent, final.name)
    try:
        write(staging)
        if not final.exists():
            os.replace(staging, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone already when renamed


def staging_folder(parent: Path, stem: str) -> Path:
    """A new, empty staging folder for an entry named ``stem`` in ``parent`` (made if need be), once
    the stale staging folders in ``parent`` are removed."""
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale(parent)
    return Path(tempfile.mkdtemp(prefix=f".{stem}.{os.getpid()}.staging-", dir=parent))


def remove_stale(parent: Path) -> None:
    """The staging folders in ``parent`` left by processes that no longer run, removed (live ones kept)."""
    with os.scandir(parent) as entries:
        stale = [entry.path for entry in entries if entry.is_dir(follow_symlinks=False) and _stale(entry)]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)


def _stale(entry: os.DirEntry[str]) -> bool:
    named = _STAGING.fullmatch(entry.name)
    if named:
        return not running(int(named.group(1)))
    if not _UNNAMED.fullmatch(entry.name):
        return False
    try:
        return time.time() - entry.stat().st_mtime > _UNNAMED_STALE_S
    except OSError:  # removed meanwhile by another writer
        return False


def running(pid: int) -> bool:
    """Whether a process with this id runs (one of another user's counts; one that ended, not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or not a process id at all
        return False
    except PermissionError:
        pass
    return not _ended(pid)


def _ended(pid: int) -> bool:
    """Whether the process ended and waits to be reaped (Linux's state Z or X): a killed process stays so under
    a parent that never waits, such as a container's first process when it is not an init."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:  # no /proc (macOS), or gone meanwhile
        return False
    return stat.rpartition(")")[2].split()[:1] in (["Z"], ["X"])


def reason(error: OSError) -> str:
    """What went wrong, in words: the system's (``No space left on device``), else the error's own text."""
    return error.strerror or str(error) or type(error).__name__
