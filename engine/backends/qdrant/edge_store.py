"""The folder behind ``qdrant:PATH``: ranklens' collections, each a Qdrant Edge shard, switched atomically.

Layout (``LAYOUT`` 1)::

    PATH/ranklens-edge.json        {"ranklens_edge": 1}: a folder of ranklens' Edge collections
    PATH/NAME/current.json         {"shard": "shard-<hex>", "metadata": {the push's fingerprint}}
    PATH/NAME/shard-<hex>/         the Edge shard (Qdrant's own files: edge_config.json, segments/)
    PATH/NAME/.partial-<hex>-<pid>/  a push under way (or one killed)
    PATH/NAME/.gone-<hex>/         a leftover of a dead push, set aside to be deleted
    PATH/NAME/.push.lock           flock'ed by the push of NAME under way; it holds that push's process id

A push writes a new shard beside the one answering and, once it is complete
and flushed, renames it into place and replaces ``current.json`` in one
``os.replace``: a reader sees the previous shard or the new one, never half of
one. The previous shard is deleted after the switch. A shard holds no write-
ahead log (it is written once, by its push, and flushed before it is named),
so several processes may read it at once.

A push holds the collection's lock from its start to its switch, so a second
push of the same collection is refused rather than replacing the first one's
shard unasked. Whoever finds the lock free (the next push, or a command
opening the collection) removes what no push is writing: partial folders
(a killed push's) and shards other than the current one (a push killed
between its switch and its deletion of the old shard). It renames them to
``.gone-<hex>`` holding the lock (milliseconds), and deletes them after: a
push starting meanwhile does not wait for gigabytes to be deleted. The lock
is an ``flock``: the system lets it go when its process ends, killed or not.

A folder qdrant-client's local mode wrote (``collection/NAME/storage.sqlite``,
what ``qdrant:PATH`` was before Edge), a bare Edge shard, a folder with other
files, or a layout of another ranklens version: one line each, never misread.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens.engine.errors import RanklensError

LAYOUT = 1
MARKER = "ranklens-edge.json"
CURRENT = "current.json"
PARTIAL = ".partial-"
LOCK = ".push.lock"
GONE = ".gone-"  # a leftover set aside (renamed, under the lock) to be deleted by anyone, lock or not
LOCK_WAIT_S = 2.0  # a push waits this long for a command setting leftovers aside (renames: milliseconds)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Pointer:
    """A collection as ``current.json`` names it: its shard folder and the metadata of its push."""

    shard: Path
    metadata: dict[str, Any]


@dataclass(frozen=True)
class EdgeStore:
    """The folder of ``qdrant:PATH`` (``text``: the target as the user wrote it)."""

    text: str
    path: Path

    def refuse_foreign(self) -> None:
        """One line for a folder that holds something other than ranklens' Edge collections."""
        path = self.path
        if path.exists() and not path.is_dir():
            raise RanklensError(f"{self.text}: {path} is a file, not a folder (qdrant:PATH names a folder of "
                                "collections)")
        if (path / "collection").is_dir() and any(path.glob("collection/*/storage.sqlite")):
            raise RanklensError(
                f"{self.text} is a folder of qdrant-client's local mode (collection/*/storage.sqlite, what qdrant:PATH "
                "was before ranklens used Qdrant Edge); push the corpus again into a new folder: "
                "ranklens push CORPUS --to qdrant:NEW_FOLDER")
        if (path / "edge_config.json").is_file():
            raise RanklensError(f"{self.text} is a bare Qdrant Edge shard, not a folder ranklens pushed to "
                                f"(no {MARKER}); ranklens push CORPUS --to qdrant:FOLDER makes one")
        marker = path / MARKER
        if marker.is_file():
            layout = _read_json(marker, self.text).get("ranklens_edge")
            if layout != LAYOUT:
                raise RanklensError(f"{self.text} was written by another version of ranklens (Edge layout {layout!r}, "
                                    f"this one reads {LAYOUT}); push the corpus again with this version")
        elif path.is_dir() and _listed(path, self.text):
            raise RanklensError(f"{self.text} is not a folder of ranklens' Qdrant Edge collections (no {MARKER}); "
                                "give an empty or new folder to push to")

    def check_readable(self) -> None:
        self.refuse_foreign()
        if not self.path.is_dir():
            raise RanklensError(f"{self.text}: no such folder (ranklens push CORPUS --to {self.text} makes one)")
        if not (self.path / MARKER).is_file():
            raise RanklensError(f"{self.text} holds no collections (ranklens push CORPUS --to {self.text} makes one)")

    def names(self) -> list[str]:
        return sorted(p.parent.name for p in self.path.glob(f"*/{CURRENT}"))

    def read(self, name: str) -> Pointer:
        """The collection ``name``; one line when there is none, naming those there are."""
        current = self.path / name / CURRENT if _NAME.fullmatch(name) else None
        if current is None or not current.is_file():
            names = self.names()
            known = f" (it has {', '.join(names)})" if names else " (it has no collections)"
            raise RanklensError(f"{self.text}: no collection {name!r}{known}; ranklens push CORPUS --to ... makes one")
        data = _read_json(current, self.text)
        shard = self.path / name / str(data.get("shard", ""))
        if not isinstance(data.get("metadata"), dict) or not (shard / "edge_config.json").is_file():
            raise RanklensError(f"{self.text}: collection {name!r} is damaged ({CURRENT} names no Edge shard)")
        return Pointer(shard, data["metadata"])

    @contextmanager
    def pushing(self, name: str, replace: bool, needed: int) -> Iterator[tuple[Path, str | None]]:
        """(the folder a push of ``name`` writes its new shard into, the shard answering now or None), the
        collection locked for the block: a second push of ``name`` meanwhile is refused, naming this one.

        Refuses a foreign folder, a name that is not a plain file name, a disk without ``needed`` bytes free
        (before writing anything), and an existing collection without ``replace``; removes what dead pushes
        of ``name`` left. A block that raises removes the new folder."""
        self.refuse_foreign()
        if not _NAME.fullmatch(name):
            raise RanklensError(f"{self.text}: {name!r} cannot name a collection (letters, digits, '.', '_', '-')")
        folder = self.path / name
        self.require_room(name, needed)
        with _writing(self.text):
            folder.mkdir(parents=True, exist_ok=True)
        with self._locked(name, LOCK_WAIT_S) as held:
            if not held:
                raise RanklensError(f"{self.text}: collection {name!r} is being pushed by {_holder(folder / LOCK)}; "
                                    "push again once that push has ended")
            previous = self._current(name)
            if previous is not None and not replace:
                raise RanklensError(f"{self.text}: collection {name!r} exists (--replace replaces it)")
            _write_json(self.path / MARKER, {"ranklens_edge": LAYOUT}, self.text)
            self._set_aside(name)
            self._delete_set_aside(name)
            partial = folder / f"{PARTIAL}{uuid.uuid4().hex[:12]}-{os.getpid()}"
            try:
                yield partial, previous
            except BaseException:
                shutil.rmtree(partial, ignore_errors=True)  # the previous shard, if any, was never touched
                raise

    def commit(self, name: str, partial: Path, metadata: dict[str, Any]) -> str:
        """Name the complete shard in ``partial`` as collection ``name`` (one atomic replace of its pointer),
        then delete the shard it replaces; its folder name. Called inside ``pushing``."""
        folder = self.path / name
        before = self._current(name)
        shard = f"shard-{partial.name[len(PARTIAL):].split('-')[0]}"
        with _writing(self.text):
            os.replace(partial, folder / shard)
        try:
            _write_json(folder / CURRENT, {"shard": shard, "metadata": metadata}, self.text)
        except BaseException:
            shutil.rmtree(folder / shard, ignore_errors=True)  # never named: the previous shard still answers
            raise
        if before and before != shard:
            shutil.rmtree(folder / before, ignore_errors=True)  # readers holding it keep their open files
        return shard

    def require_room(self, name: str, needed: int) -> None:
        """One line unless the disk holding collection ``name`` has ``needed`` bytes free: Edge writes its
        files through memory maps, and a write into a map that finds the disk full kills the process
        (SIGBUS) instead of raising."""
        existing = next(p for p in (self.path / name, *(self.path / name).parents) if p.exists())
        with _writing(self.text):
            free = shutil.disk_usage(existing).free
        if free < needed:
            raise RanklensError(f"{self.text}: not enough free space for the shard ({free / 2**20:,.1f} MB free, "
                                f"about {needed / 2**20:,.1f} MB needed); free some, or push to another disk")

    def tidy(self, name: str) -> None:
        """Remove what pushes of ``name`` left behind (a killed push's folder, a shard a later push replaced
        but could not delete), when no push of ``name`` is under way; a folder this process cannot write
        is left as it is."""
        try:
            if self._stale(name):
                with self._locked(name, 0) as held:
                    if held:
                        self._set_aside(name)
            self._delete_set_aside(name)  # the lock let go: a push may start meanwhile
        except (OSError, RanklensError):
            pass

    def _current(self, name: str) -> str | None:
        """The shard folder collection ``name``'s pointer names, None when it has none."""
        current = self.path / name / CURRENT
        if not current.is_file():
            return None
        return str(_read_json(current, self.text).get("shard", "")) or None

    def _set_aside(self, name: str) -> None:
        """Rename every partial folder and every shard but the current one out of the way, the collection
        locked: no push writes any of them now (a push holds the lock from its start to its switch)."""
        for stale in self._stale(name):
            if not stale.name.startswith(GONE):
                with suppress(OSError):
                    stale.rename(stale.with_name(f"{GONE}{uuid.uuid4().hex[:12]}"))

    def _delete_set_aside(self, name: str) -> None:
        for gone in (self.path / name).glob(f"{GONE}*"):
            shutil.rmtree(gone, ignore_errors=True)

    def _stale(self, name: str) -> list[Path]:
        """The partial folders of collection ``name``, its shards but the current one, what was set aside."""
        folder, current = self.path / name, self._current(name)
        return [p for p in _listed(folder, self.text) if p.name.startswith((PARTIAL, GONE))
                or (p.name.startswith("shard-") and p.name != current)]

    @contextmanager
    def _locked(self, name: str, wait: float) -> Iterator[bool]:
        """Whether this process holds collection ``name``'s lock for the block (an ``flock``, let go when the
        process ends, however it ends), waiting up to ``wait`` seconds for it."""
        lock = self.path / name / LOCK
        with _writing(self.text):
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        yield False
                        return
                    time.sleep(0.05)
            with suppress(OSError):  # who holds it, for the message of who waits (a full disk: not said)
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
            yield True
        finally:
            os.close(fd)


def _read_json(path: Path, text: str) -> dict[str, Any]:
    from ranklens.engine.storage.json_object import parse_object

    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RanklensError(f"{text}: cannot read {path} ({error})") from None
    return parse_object(raw, f"{text}: {path}")


def _write_json(path: Path, data: dict[str, Any], text: str) -> None:
    """Written beside, then renamed over: a reader sees the old file or the new one, and a failed write
    (a full disk) leaves nothing of its own."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    try:
        with _writing(text):
            temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def _writing(text: str) -> Iterator[None]:
    """A failed write to the folder (full, read-only, not a folder) as one line naming the file."""
    try:
        yield
    except OSError as error:
        where = error.filename or text
        raise RanklensError(f"{text}: cannot write {where}: {error.strerror or error}") from None


def _listed(folder: Path, text: str) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError as error:
        raise RanklensError(f"{text}: cannot read {folder}: {error.strerror or error}") from None


def _holder(lock: Path) -> str:
    """Who holds a collection's lock, as its file says."""
    try:
        pid = lock.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        pid = ""
    return f"process {pid}" if pid.isdigit() else "another process"
