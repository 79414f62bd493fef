"""The bundled corpora, shipped as package data: one folder per corpus.

Each folder is a BEIR layout plus a ``ranklens.toml`` whose ``description``
is what ``ranklens corpora`` lists.
"""
from __future__ import annotations

import tomllib
from functools import cache
from importlib.resources import files
from pathlib import Path

DEFAULT_CORPUS = "studio-alfa"
# The lesson's corpora in the order of the seeds they come from; any other
# bundled folder is listed after them, alphabetically.
_LESSON_ORDER = ("studio-alfa", "battery", "bateria")


@cache  # package data does not change while ranklens runs; the palette asks on every keystroke
def bundled_corpora() -> tuple[tuple[str, str], ...]:
    """``(name, description)`` of every bundled corpus, lesson corpora first."""
    return tuple((name, _description(name)) for name in _names())


def bundled_path(name: str) -> Path | None:
    """The folder of bundled corpus ``name``, or None when there is no such corpus."""
    if name not in _names():
        return None
    return Path(str(files(__name__) / name))


def _names() -> list[str]:
    found = {entry.name for entry in files(__name__).iterdir() if (entry / "ranklens.toml").is_file()}
    rank = {name: i for i, name in enumerate(_LESSON_ORDER)}
    return sorted(found, key=lambda name: (rank.get(name, len(rank)), name))


def _description(name: str) -> str:
    settings = tomllib.loads((files(__name__) / name / "ranklens.toml").read_text(encoding="utf-8"))
    return str(settings.get("description", ""))
