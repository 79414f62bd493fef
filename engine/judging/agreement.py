"""How far raters agree on the workspace's judgments: Cohen's and Fleiss' kappa, raw agreement, and the
questions they disagree on most.

The items rated are (question, id) pairs, each rater's current grade of a pair (engine/workspace/store.py
``Workspace.ratings``: undone judgments are not counted). Grades are the categories; a grade 0 (not
relevant) is one like the others.

- Cohen's kappa (Cohen 1960), for two raters over the pairs both graded:
  ``1 - Σ w·O / Σ w·E``, O the observed share of pairs per (grade a, grade b), E the product of
  each rater's grade shares. Unweighted, ``w`` is 0 on the diagonal and 1 off it; linearly weighted
  (Cohen 1968), ``w = |grade a - grade b|``, so a 3 against a 2 costs a third of a 3 against a 0
  (scikit-learn's ``cohen_kappa_score(weights="linear", labels=range(max_grade + 1))``).
- Fleiss' kappa (Fleiss 1971), for two raters or more over the pairs *every* rater graded (Fleiss
  asks the same number of ratings per item): ``(P̄ - P̄e) / (1 - P̄e)``.
- Raw agreement: the share of those same pairs on which every rater gave the same grade.
Each kappa is None (JSON null) when it is undefined: no pair, or chance agreement already 1 (every
grade the same).

A question's disagreement is the mean, over its ids graded by two raters or more, of the mean
absolute grade difference between every two raters (in grades: 0 all agree, 3 one said 0 and the
other 3 on a 0-3 scale).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.raters import shown_rater

MOST_DISAGREED = 10  # questions listed under the most disagreement


@dataclass(frozen=True)
class RaterPair:
    """Two raters' agreement over the ``pairs`` (question, id) both graded."""

    raters: tuple[str, str]
    pairs: int
    kappa: float | None
    kappa_linear: float | None
    agreement: float | None  # share of those pairs graded alike, in [0, 1]

    def to_dict(self) -> dict[str, Any]:
        return {"raters": list(self.raters), "pairs": self.pairs, "kappa": self.kappa,
                "kappa_linear": self.kappa_linear, "agreement": self.agreement}


@dataclass(frozen=True)
class Disagreement:
    """A question the raters disagree on: ``judged`` ids graded by two raters or more, ``differing`` of them
    graded differently, ``mean_difference`` in grades (module docstring); ``ids`` the differing ones with
    each rater's grade."""

    question: str
    text: str
    judged: int
    differing: int
    mean_difference: float
    ids: tuple[tuple[str, dict[str, int]], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "text": self.text, "judged": self.judged, "differing": self.differing,
                "mean_difference": self.mean_difference,
                "ids": [{"id": ident, "grades": dict(grades)} for ident, grades in self.ids]}


@dataclass(frozen=True)
class Agreement:
    """The raters' agreement (module docstring). ``pairs`` counts the (question, id) pairs every rater
    graded, on which ``fleiss_kappa`` and ``agreement`` are computed, and ``kappa``/``kappa_linear`` when
    there are exactly two raters (None otherwise: ``rater_pairs`` has each two)."""

    raters: tuple[str, ...]
    pairs: int
    kappa: float | None
    kappa_linear: float | None
    fleiss_kappa: float | None
    agreement: float | None
    rater_pairs: tuple[RaterPair, ...]
    disagreements: tuple[Disagreement, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"raters": list(self.raters), "pairs": self.pairs, "kappa": self.kappa,
                "kappa_linear": self.kappa_linear, "fleiss_kappa": self.fleiss_kappa, "agreement": self.agreement,
                "rater_pairs": [pair.to_dict() for pair in self.rater_pairs],
                "disagreements": [d.to_dict() for d in self.disagreements]}


def cohen_kappa(a: Sequence[int], b: Sequence[int], linear: bool = False) -> float | None:
    """Cohen's kappa of two raters' grades of the same items (``a[i]``, ``b[i]``), unweighted or linearly
    weighted by the grades' difference; None when undefined (no item, or chance agreement 1)."""
    if len(a) != len(b):
        raise ValueError("two raters' grades of the same items")
    n = len(a)
    if not n:
        return None
    observed = Counter(zip(a, b))
    shares_a, shares_b = Counter(a), Counter(b)

    def weight(x: int, y: int) -> int:
        return abs(x - y) if linear else int(x != y)

    disagreed = sum(weight(x, y) * count for (x, y), count in observed.items()) / n
    expected = sum(weight(x, y) * ca * cb for x, ca in shares_a.items() for y, cb in shares_b.items()) / (n * n)
    return None if expected == 0 else 1 - disagreed / expected


def fleiss_kappa(counts: Sequence[Mapping[int, int]]) -> float | None:
    """Fleiss' kappa of items each rated by the same number of raters; ``counts[i]`` is grade -> how many
    raters gave item ``i`` that grade. None when undefined (no item, one rater, or chance agreement 1)."""
    if not counts:
        return None
    raters = sum(counts[0].values())
    if any(sum(c.values()) != raters for c in counts):
        raise ValueError("Fleiss' kappa needs the same number of ratings per item")
    if raters < 2:
        return None
    items = len(counts)
    observed = sum((sum(n * n for n in c.values()) - raters) / (raters * (raters - 1)) for c in counts) / items
    totals: Counter[int] = Counter()
    for c in counts:
        totals.update(c)
    chance = sum((total / (items * raters)) ** 2 for total in totals.values())
    return None if chance == 1 else (observed - chance) / (1 - chance)


def agreement(ratings: Mapping[str, Mapping[str, Mapping[str, int]]], texts: Mapping[str, str],
              raters: Sequence[str] | None = None, shown: int = MOST_DISAGREED) -> Agreement:
    """The agreement of ``raters`` (default: every rater of ``ratings``, question -> id -> rater -> grade);
    ``texts`` gives a question's text by id. An unknown name in ``raters`` is a ``RanklensError``."""
    everyone = sorted({rater for ids in ratings.values() for by in ids.values() for rater in by})
    if raters is None:
        chosen = everyone
    else:
        unknown = [r for r in raters if r not in everyone]
        if unknown:
            listed = ", ".join(map(shown_rater, everyone)) or "none"
            raise RanklensError(f"no rater {unknown[0]!r} among the workspace's judgments (raters: {listed})")
        if len(set(raters)) < 2:
            raise RanklensError("agreement is between two raters or more: name at least two")
        chosen = sorted(set(raters))
    items = [(question, ident, {r: by[r] for r in chosen if r in by})
             for question, ids in ratings.items() for ident, by in ids.items()]
    by_all = [grades for _, _, grades in items if len(grades) == len(chosen)]
    pairs = []
    for first, second in combinations(chosen, 2):
        both = [(g[first], g[second]) for _, _, g in items if first in g and second in g]
        a, b = [x for x, _ in both], [y for _, y in both]
        pairs.append(RaterPair((first, second), len(both), cohen_kappa(a, b), cohen_kappa(a, b, linear=True),
                               sum(x == y for x, y in both) / len(both) if both else None))
    two = pairs[0] if len(pairs) == 1 else None
    fleiss = fleiss_kappa([Counter(g.values()) for g in by_all]) if len(chosen) >= 2 else None
    alike = sum(len(set(g.values())) == 1 for g in by_all) / len(by_all) if by_all and len(chosen) >= 2 else None
    return Agreement(tuple(chosen), len(by_all), two.kappa if two else None, two.kappa_linear if two else None,
                     fleiss, alike, tuple(pairs), _most_disagreed(items, texts, shown))


def _most_disagreed(items: Sequence[tuple[str, str, dict[str, int]]], texts: Mapping[str, str],
                    shown: int) -> tuple[Disagreement, ...]:
    per_question: dict[str, list[tuple[str, dict[str, int], float]]] = {}
    for question, ident, grades in items:
        if len(grades) < 2:
            continue
        differences = [abs(x - y) for x, y in combinations(grades.values(), 2)]
        per_question.setdefault(question, []).append((ident, grades, sum(differences) / len(differences)))
    found = []
    for question, judged in per_question.items():
        differing = [(ident, grades) for ident, grades, difference in judged if difference > 0]
        if differing:
            mean = sum(difference for _, _, difference in judged) / len(judged)
            found.append(Disagreement(question, texts.get(question, ""), len(judged), len(differing), mean,
                                      tuple(differing)))
    found.sort(key=lambda d: (-d.mean_difference, -d.differing, d.question))
    return tuple(found[:shown])
