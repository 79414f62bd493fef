"""The grade scale judgments are given on: whole numbers from 0 (not relevant) to a maximum.

The maximum is 3 (0 not relevant … 3 perfect, the TUI's keys) unless the corpus'
``ranklens.toml`` declares its own with ``max_grade`` (a collection graded 0-4, say).
A grade off the scale is refused wherever one is given: judging, importing qrels.
The corpus' own qrels are its authors' and are read as they are.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus

DEFAULT_MAX_GRADE = 3
GRADE_KEY = "max_grade"  # the ranklens.toml key declaring a corpus' maximum grade


class GradeError(RanklensError):
    """A grade off the scale."""


def max_grade(corpus: Corpus) -> int:
    """The highest grade of ``corpus``' scale: its ranklens.toml's ``max_grade``, else 3."""
    declared = corpus.settings.get(GRADE_KEY)
    return declared if isinstance(declared, int) and not isinstance(declared, bool) else DEFAULT_MAX_GRADE


def on_scale(grade: int, maximum: int) -> bool:
    """Whether ``grade`` is a grade of the scale 0..``maximum``."""
    return 0 <= grade <= maximum


def check_grade(grade: int, maximum: int) -> int:
    """``grade`` when it is on the scale 0..``maximum``; else ``GradeError`` saying the scale."""
    if not on_scale(grade, maximum):
        raise GradeError(f"grade {grade} is off the scale 0-{maximum} (0 not relevant … {maximum} perfect)")
    return grade


def check_declared(value: object, source: str) -> int:
    """A declared ``max_grade`` (from ``source``, e.g. a toml's path): a whole number of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RanklensError(f"{source}: {GRADE_KEY} must be a whole number of at least 1 (got {value!r})")
    return value
