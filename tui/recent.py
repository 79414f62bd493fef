"""Corpora opened lately (paths, newest first), kept in the cache folder between runs, and a suggester that
completes a path from them and from the file system: what the Open dialog offers.

Best effort: a recent list that cannot be read or written is an empty list, never an error.
"""
from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from textual.suggester import Suggester

MAX_RECENT = 8
MAX_LISTED = 200  # entries of a folder looked at for a completion: a huge folder must not stall typing


def _file() -> Path:
    from ranklens.engine.storage.cache import cache_root  # no numpy: the cache module imports it lazily

    return cache_root() / "recent-corpora.json"


def recent_corpora() -> list[str]:
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [entry for entry in data if isinstance(entry, str)][:MAX_RECENT] if isinstance(data, list) else []


def remember_corpus(spec: str) -> None:
    """Put ``spec`` (a path, made absolute) first in the recent list."""
    path = str(Path(spec).expanduser().absolute())
    entries = [path, *(entry for entry in recent_corpora() if entry != path)][:MAX_RECENT]
    target = _file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        pass


class PathSuggester(Suggester):
    """Completes what is typed: from the recent corpora first, else from the folder it names."""

    def __init__(self, recent: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)  # the file system changes under the cache
        self.recent = recent

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        for entry in self.recent:
            if entry.startswith(value) and entry != value:
                return entry
        expanded = os.path.expanduser(value)
        folder, prefix = os.path.split(expanded)
        # Listing a folder can wait on a slow disk: never on the event loop.
        names = await asyncio.to_thread(_names, folder or ".", prefix)
        if not names or names[0] == prefix:
            return None
        return value + names[0][len(prefix):]


def _names(folder: str, prefix: str) -> list[str]:
    """Entries of ``folder`` starting with ``prefix`` (hidden ones only when asked for), folders with a /."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_LISTED:
                    break
                if entry.name.startswith(prefix) and (prefix.startswith(".") or not entry.name.startswith(".")):
                    found.append(entry.name + ("/" if entry.is_dir() else ""))
    except OSError:
        return []
    return sorted(found)
