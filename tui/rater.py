"""Who judges in the TUI: asked once a session, at its first judgment (or undo), in a small dialog
prefilled with the name given last time (kept in the user's data folder), else the login name.

The name goes with every judgment of the session (engine/judging/raters.py); Escape, or an empty or unusable
name, judges nothing: neither the grade that asked nor those typed while the dialog was asking. Best
effort: a remembered name that cannot be read or written is the login name.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App

from ranklens.tui.widgets.path_prompt import PathPrompt

TITLE = "Who is judging? Your name is kept with each judgment"
HINT = "Enter accepts, Escape cancels (nothing is judged)"


def _file() -> Path:
    from ranklens.engine.workspace.store import data_home

    return data_home() / "ranklens" / "rater.json"


def remembered_rater() -> str:
    """The name given last time, when it is still a usable one; else the login name."""
    from ranklens.engine.judging.raters import default_rater, rater_problem

    try:
        name = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default_rater()
    return name if isinstance(name, str) and rater_problem(name) is None else default_rater()


def remember_rater(name: str) -> None:
    """Keep ``name`` for the next session's dialog."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.measuring.trec import atomic_write

    target = _file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, json.dumps(name, ensure_ascii=False))
    except (OSError, RanklensError):
        pass


def ask_rater(app: App[Any], then: Callable[[str | None], None]) -> None:
    """Ask who judges; ``then(name)`` with a usable name, ``then(None)`` after a notification otherwise.

    The dialog opens unasked, at a grade: the keys typed before it showed (more grades) are not the name's.
    They wait, and once a name is given they are handled as typed; on Escape they go with the grade.
    """
    from ranklens.engine.judging.raters import rater_problem

    prompt = PathPrompt(TITLE, remembered_rater(), hint=HINT, unasked=True)

    def answered(name: str | None) -> None:
        problem = "judging asks who judges first" if name is None else rater_problem(name)
        if name is None or problem is not None:
            app.notify(f"nothing judged: {problem}", severity="warning" if name is None else "error", markup=False)
            then(None)
            return
        then(name)
        for key in prompt.typed_before:
            app.post_message(events.Key(key.key, key.character))

    app.push_screen(prompt, answered)
