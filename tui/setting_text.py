"""Settings as the app says them: the setup line's summary, what a change changed, a value, and the
hint for a key that moves a setting the active scorer does not read.

No Textual here and nothing that loads numpy: the session (tui/session.py) and its tests use these
without an app.
"""
from __future__ import annotations

from typing import Any

from ranklens.engine.scoring.registry import readers, running_scorers, spec
from ranklens.engine.setup import Setup, all_settings
from ranklens.tui.setting_steps import SETTING_STEPS


def describe(setup: Setup) -> str:
    """The setup line's summary: the engine's, with the number of results said as "top 5", so it is
    not mistaken for another k on the same line (fusion's RRF k=60), and said right after the scorer:
    a narrow terminal cuts the line's end, and how many results a number counts must stay in view."""
    parts = setup.describe().split(" · ")
    results = f"k={setup.k}"
    if parts[-1] == results:
        parts.insert(1, f"top {parts.pop()[2:]}")
    return " · ".join(parts)


def changed(before: Setup, after: Setup) -> str:
    """The settings that differ, as "BM25 k1 1.3 → 1.2, scorer bm25 → tfidf"."""
    parts = [f"{setting_title(name)} {shown(before.value_of(name))} → {shown(after.value_of(name))}"
             for name in all_settings() if before.value_of(name) != after.value_of(name)]
    return ", ".join(parts) or "no change"


def setting_title(name: str) -> str:
    """The setting ``name`` (a Setup field, a scorer's own) as the app names it: "BM25 k1", "chunk size"."""
    return all_settings()[name].label()


def typed_settings() -> tuple[str, ...]:
    """The settings no key steps, and the scorers' own (a key for them is not bound): the palette asks for
    their value."""
    stepped = {step.setting for step in SETTING_STEPS}
    return tuple(name for name in all_settings() if name not in stepped)


def shown(value: Any) -> str:
    """A setting's value as the app says it: "off" for a setting not set, "on"/"off", parts joined by +."""
    if value is None:  # an optional setting not set: a reranker, a language
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return "+".join(value)
    return str(value)


def typed_text(setup: Setup, name: str) -> str:
    """The value of ``name`` as the box asking for it starts: what the user would type (parts joined by commas)."""
    current = setup.value_of(name)
    if current is None:
        return ""
    return ",".join(current) if isinstance(current, tuple) else shown(current)


def inactive_hint(setup: Setup, name: str) -> str:
    """What to say when a key changes ``name``, a setting that only another scorer reads: that it
    does not change the ranking on screen ("BM25 k1 1.3 — applies to BM25; the active scorer is TF-IDF")."""
    reading = readers(name)
    if not reading:
        return ""  # analysis, chunking, k: every scorer reads them
    running = {scorer.name for scorer in running_scorers(setup)}
    if any(reader.name in running for reader in reading):
        return ""
    return (f"{setting_title(name)} {shown(setup.value_of(name))} — applies to "
            f"{', '.join(reader.label for reader in reading)}; the active scorer is {spec(setup.scorer).label}")
