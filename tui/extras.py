"""What needs the optional neural extra, and whether it is installed, known before anything is chosen.

Without the extra a dense scorer or a reranker fails only once its model loads, after the setup line
already names it: the Search tab went empty under three error messages. The app asks here first, so
``s`` skips such a scorer and says why, a setting that needs the extra is refused with the reason (the
setup, and the results of its first stage, stay), and the palette says why on the entry itself.

Whether the extra is installed is read from the import system's finders (``importlib.util.find_spec``):
nothing is imported, so asking costs microseconds and no model library loads on the event loop.
"""
from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from ranklens.engine.scoring.registry import scorer_names, spec

if TYPE_CHECKING:
    from ranklens.engine.setup import Setup

NEURAL_MODULES = ("model2vec", "sentence_transformers", "wordllama")  # pyproject.toml's neural extra
RERANK_SETTINGS = ("rerank", "rerank_top")


def neural_missing() -> str:
    """Why a neural model cannot load here ("needs the neural extra: pip install …"), "" when it can."""
    if all(importlib.util.find_spec(module) is not None for module in NEURAL_MODULES):
        return ""
    from ranklens.engine.neural.models import NEURAL_EXTRA  # no model library: those load inside its loaders

    return f"needs the neural extra: {NEURAL_EXTRA}"


def neural_settings() -> frozenset[str]:
    """The settings only a neural model reads: the text-reading scorers' own (the dense model) and the
    reranker's."""
    return frozenset({*(name for scorer in scorer_names() if spec(scorer).reads_text
                        for name in spec(scorer).reads()), *RERANK_SETTINGS})


def unavailable_scorers() -> list[str]:
    """The labels of the scorers that cannot run here (none when the neural extra is installed)."""
    if not neural_missing():
        return []
    return [spec(name).label for name in scorer_names() if spec(name).reads_text]


def unavailable(setup: Setup) -> str:
    """Why ``setup`` cannot run here ("dense needs the neural extra: …"), "" when it can."""
    active = spec(setup.scorer)
    parts = [spec(part) for part in active.parts(setup)] if active.parts else []
    neural = [scorer.label for scorer in (active, *parts) if scorer.reads_text]
    if setup.rerank:
        neural.append("the reranker")
    if not neural:
        return ""
    missing = neural_missing()
    return f"{' and '.join(neural)} {missing}" if missing else ""
