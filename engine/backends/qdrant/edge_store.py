"""The folder behind ``qdrant:PATH``: ranklens' collections, each a Qdrant Edge shard, switched atomically.

Layout (``LAYOUT`` 1)::

    PATH/ranklens-edge.json        {"ranklens_edge": 1}: a folder of ranklens' Edge collections
    PATH/NAME/current.json         {"shard": "shard-<hex>", "metadata": {the push's fingerprint}}
    PATH/NAME/shard-<hex>/         the Edge shard (Qdrant's own files: edge_config.json, segments/)
    PATH/NAME/.partial-<hex>-<pid>/  a push under way (or one killed: the next push of NAME removes it)

A push writes a new shard beside the one answering and, once it is complete
and flushed, renames it into place and replaces ``current.json`` in one
``os.replace``: a reader sees the previous shard or the new one, never half of
one. The previous shard is deleted after the switch. A shard holds no write-
ahead log (it is written once, by its push, and flushed before it is named),
so several processes may read it at once.

A folder qdrant-client's local mode wrote (``collection/NAME/storage.sqlite``,
what ``qdrant:PATH`` was before Edge), a bare Edge shard, a folder with other
files, or a layout of another ranklens version: one line each, never misread.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens.engine.errors import RanklensError

LAYOUT = 1
MARKER = "ranklens-edge.json"
CURRENT = "current.json"
PARTIAL = ".partial-"
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
        elif path.is_dir() and any(path.iterdir()):
            raise RanklensError(f"{self.text} is not a folder of ranklens' Qdrant Edge collections (no {MARKER}); "
                                "give an empty or new folder to push to")

    def check_readable(self) -> None:
        if not self.path.is_dir():
            raise RanklensError(f"{self.text}: no such folder (ranklens push CORPUS --to {self.text} makes one)")
        self.refuse_foreign()
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

    def start(self, name: str, replace: bool) -> tuple[Path, str | None]:
        """(the folder a push of ``name`` writes its new shard into, the shard answering now or None).

        Refuses a foreign folder, a name that is not a plain file name, and an existing collection without
        ``replace``; removes the partial shards of pushes of ``name`` whose process is gone."""
        self.refuse_foreign()
        if not _NAME.fullmatch(name):
            raise RanklensError(f"{self.text}: {name!r} cannot name a collection (letters, digits, '.', '_', '-')")
        folder = self.path / name
        previous = _read_json(folder / CURRENT, self.text).get("shard") if (folder / CURRENT).is_file() else None
        if previous is not None and not replace:
            raise RanklensError(f"{self.text}: collection {name!r} exists (--replace replaces it)")
        folder.mkdir(parents=True, exist_ok=True)
        _write_json(self.path / MARKER, {"ranklens_edge": LAYOUT})
        for stale in folder.glob(f"{PARTIAL}*"):
            if not _alive(stale.name.rsplit("-", 1)[-1]):
                shutil.rmtree(stale, ignore_errors=True)
        return folder / f"{PARTIAL}{uuid.uuid4().hex[:12]}-{os.getpid()}", None if previous is None else str(previous)

    def commit(self, name: str, partial: Path, metadata: dict[str, Any]) -> str:
        """Name the complete shard in ``partial`` as collection ``name`` (one atomic replace of its pointer),
        then delete the shard it replaces; its folder name."""
        folder = self.path / name
        old = folder / CURRENT
        before = _read_json(old, self.text).get("shard") if old.is_file() else None
        shard = f"shard-{partial.name[len(PARTIAL):].split('-')[0]}"
        os.replace(partial, folder / shard)
        _write_json(old, {"shard": shard, "metadata": metadata})
        if before and before != shard:
            shutil.rmtree(folder / str(before), ignore_errors=True)  # readers holding it keep their open files
        return shard


def _read_json(path: Path, text: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RanklensError(f"{text}: cannot read {path.name} ({error})") from None
    if not isinstance(data, dict):
        raise RanklensError(f"{text}: {path.name} is not a JSON object")
    return data


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Written beside, then renamed over: a reader sees the old file or the new one."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)


def _alive(pid: str) -> bool:
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True
