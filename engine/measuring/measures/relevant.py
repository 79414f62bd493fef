"""Which judged ids count as relevant: grade >= 1 (grade 0 is judged not relevant)."""
from __future__ import annotations

from collections.abc import Mapping


def relevant_only(grades: Mapping[str, int]) -> dict[str, int]:
    """The judged ids with grade >= 1: what counts as relevant."""
    return {doc: grade for doc, grade in grades.items() if grade >= 1}
