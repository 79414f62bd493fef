"""The settings a key (or a palette command) steps, derived from the settings declared on ``Setup``.

Every setting declared with a ``Step`` gets one step (a cycle or a toggle) or two
(down and up), whose key, description and move come from the declaration; the
app's bindings, the help screen and the palette read ``SETTING_STEPS``. A setting a
scorer declares on its spec (a plug-in's) steps from the palette alone
(``setting_steps``): the app's keys are bound before the plug-ins load, which waits
for a first lookup so that the first paint never scans the installed packages, and a
plug-in cannot know which keys are free. Each step
turns the current setup into the changes to apply; the app passes them through
``Setup.replace``, so a step that leaves the valid range (b above 1, k below 1)
becomes a validation message, not a broken setup.

Steps start from the value that runs: the setup names the chunking of raw
documents (100/20), and for a corpus' own passages a re-chunking starts there.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping

from ranklens.engine.chunking.chunkers import default_window
from ranklens.engine.settings import LANGUAGES, Setting, next_value
from ranklens.engine.setup import Setup, setup_settings
from ranklens.engine.setup import declared_settings

Changes = dict[str, Any]
Change = Callable[[Setup, Mapping[str, Any]], Changes]  # (setup, corpus settings) -> changes


@dataclass(frozen=True)
class SettingStep:
    id: str  # the binding id, also the argument of the app's ``setting`` action
    key: str | None  # None: reachable from the command palette only
    description: str
    change: Change
    setting: str  # the Setup field it moves


def _language_options(setup: Setup, corpus_settings: Mapping[str, Any], own: Any = None) -> list[str]:
    """none, then the corpus' own choice (a stop-word file), then its language or every language."""
    language = setup.language or corpus_settings.get("language")
    options = ["none"]
    if isinstance(own, str) and own != "none":
        options.append(own)
    options.extend([str(language)] if language else LANGUAGES)
    return options


# Cycles whose options depend on the corpus rather than on the declaration alone.
_OPTIONS: dict[str, Callable[[Setup, Mapping[str, Any]], list[str]]] = {
    "stopwords": lambda s, c: _language_options(s, c, c.get("stopwords")),
    "stem": lambda s, c: _language_options(s, c),
}


def _effective_chunking(setup: Setup) -> tuple[int, int]:
    """(size, overlap) that a re-chunking starts from: the setup's, or the default for own passages."""
    return (setup.size, setup.overlap) if setup.size is not None else default_window(setup.chunker)


def _move(spec: Setting, up: bool) -> Change:
    def change(setup: Setup, corpus_settings: Mapping[str, Any]) -> Changes:
        if spec.name in ("size", "overlap"):
            size, overlap = _effective_chunking(setup)
            if spec.name == "size":
                size = next_value(spec, size, up)
                # Shrinking below the overlap would be refused; pull the overlap down with it.
                return {"size": size, "overlap": min(overlap, max(size - 1, 0))}
            return {"size": size, "overlap": next_value(spec, overlap, up)}
        options = _OPTIONS.get(spec.name)
        current = setup.value_of(spec.name)
        return {spec.name: next_value(spec, current, up, options(setup, corpus_settings) if options else None)}

    return change


def _steps(spec: Setting) -> list[SettingStep]:
    step = spec.step
    assert step is not None
    title = spec.label()
    title = title[0].upper() + title[1:]
    if spec.kind is bool or spec.choices is not None or spec.name in _OPTIONS:
        verb = "Toggle" if spec.kind is bool else "Next"
        key = step.keys if isinstance(step.keys, str) else None
        return [SettingStep(spec.name, key, f"{verb} {spec.label()}", _move(spec, True), spec.name)]
    down, up = step.keys if isinstance(step.keys, tuple) else (None, None)
    if step.by is not None:
        words = (f"{title} - {step.by:g}", f"{title} + {step.by:g}")
    else:
        words = (f"{title}: smaller", f"{title}: larger")
    return [SettingStep(f"{spec.name}_up", up, words[1], _move(spec, True), spec.name),
            SettingStep(f"{spec.name}_down", down, words[0], _move(spec, False), spec.name)]


def _native(setup: Setup, corpus_settings: Mapping[str, Any]) -> Changes:
    return {"size": None, "overlap": 0}


SETTING_STEPS: tuple[SettingStep, ...] = (
    *(step for spec in setup_settings().values() if spec.step is not None for step in _steps(spec)),
    SettingStep("native_chunks", None, "Use the corpus' own passages (undo re-chunking)", _native, "size"),
)
STEPS_BY_ID = {step.id: step for step in SETTING_STEPS}


def setting_steps() -> tuple[SettingStep, ...]:
    """``SETTING_STEPS`` and the steps of the settings the scorers declare, those without a key."""
    return (*SETTING_STEPS, *(step for spec in declared_settings().values() if spec.step is not None
                              for step in _steps(dataclasses.replace(spec, step=dataclasses.replace(
                                  spec.step, keys=None)))))


def find_step(step_id: str) -> SettingStep:
    """The step ``step_id``: a key's, or a palette command's (a scorer's own setting's too)."""
    return STEPS_BY_ID.get(step_id) or next(step for step in setting_steps() if step.id == step_id)
