"""How much of what the compared runs rank has been judged: a difference resting on unjudged chunks is a guess.

A chunk nobody judged counts as not relevant in nDCG, P, MAP…: a run that brings up new
chunks loses to one that ranks the judged ones, whatever the new chunks are worth. Before a
difference is believed, each side's **coverage** is checked: the share of its top 10 that has
a judgment, relevant or not (``engine/measuring/measures/judged_share.py``), averaged over the compared
questions. Below ``THRESHOLD`` on either side the comparison warns that a difference may come
from unjudged chunks (judge the pool, or read bpref and the prime measures, which pass
unjudged chunks over).

A question with an answer span (``engine/judging/positions.py``'s ``wholly_judged``: the bundled lesson
corpora's) is wholly judged: the span says of every chunk whether it holds the answer.

The share is of what the run ranks in its top 10: judged@10 divides by 10 always, so a
fully judged question that only 4 chunks match would read 40 % and warn for nothing. A
question the run ranks nothing for has nothing unjudged and is left out of the mean. With
10 chunks or more ranked for every question, the coverage equals judged@10.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ranklens.engine.judging.positions import wholly_judged
from ranklens.engine.measuring.measures.judged_share import judged_share

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Question

DEPTH = 10  # the top k whose coverage is checked
THRESHOLD = 0.8  # a side's coverage below this: warn


@dataclass(frozen=True)
class Coverage:
    """Each side's judged share of its top ``depth`` (a fraction in [0, 1], the mean over the compared
    questions), by side name."""

    shares: Mapping[str, float]  # "A" -> 0.63
    depth: int = DEPTH
    threshold: float = THRESHOLD

    @property
    def low(self) -> list[str]:
        """The sides whose coverage is below the threshold, in order."""
        return [name for name, share in self.shares.items() if share < self.threshold]

    @property
    def warning(self) -> str | None:
        """``A's top 10 is 63 % judged: a difference may come from unjudged chunks``; None when all are covered."""
        low = self.low
        if not low:
            return None
        first, *others = low
        said = [f"{first}'s top {self.depth} is {_percent(self.shares[first])} judged",
                *(f"{name}'s {_percent(self.shares[name])}" for name in others)]
        return ", ".join(said) + ": a difference may come from unjudged chunks"

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, **{name.lower(): share for name, share in self.shares.items()},
                "threshold": self.threshold, "warning": self.warning}


def _percent(share: float) -> str:
    # rounded down (79.6 % is below the threshold and must not read "80 %"); 1e-9: 0.29 * 100 is 28.999…
    return f"{int(share * 100 + 1e-9)} %"


def judged_coverage(sides: Mapping[str, RunSide], questions: Sequence[Question], depth: int = DEPTH,
                    threshold: float = THRESHOLD) -> Coverage:
    """Each side's judged share of its top ``depth`` over ``questions``, by its own judgments (grade 0
    included; every chunk of a question with an answer span); 1.0 for a side that ranks nothing
    for any of them."""
    return Coverage({name: _mean_share(side, questions, depth) for name, side in sides.items()}, depth, threshold)


def _mean_share(side: RunSide, questions: Sequence[Question], depth: int) -> float:
    shares = []
    for question in questions:
        top = [doc for doc, _ in side.run.rankings.get(question.id, ())][:depth]
        if top:
            shares.append(1.0 if wholly_judged(question) else judged_share(top, side.qrels.get(question.id, {})))
    return sum(shares) / len(shares) if shares else 1.0
