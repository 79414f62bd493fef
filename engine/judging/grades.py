"""The grade scale judgments are given on: whole numbers from 0 (not relevant) to a maximum.

The maximum is the corpus' ``ranklens.toml``'s ``max_grade`` when it declares one (a collection
graded 0-4, say); else the highest grade of the corpus' own qrels when that is above 3 (Cranfield's
grade 1-4), so that the corpus' own judgments are on its scale; else 3 (0 not relevant … 3 perfect,
the TUI's keys). A grade off the scale is refused wherever one is given: judging, importing qrels
(the whole import). The corpus' own qrels are its authors' and are read as they are.
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
    """The highest grade of ``corpus``' scale: its ranklens.toml's ``max_grade``, else the highest grade of its
    own qrels when above 3, else 3."""
    declared = corpus.settings.get(GRADE_KEY)
    if isinstance(declared, int) and not isinstance(declared, bool):
        return declared
    return max([DEFAULT_MAX_GRADE, *(grade for question in corpus.questions for grade in question.relevant.values())])


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
