"""A scorer written the way a plug-in author would: one module with ``build``, registered by one line.

Coordination level: a chunk scores the number of distinct query terms it contains, times ``boost``,
a setting the scorer declares on its spec (its flag, ranklens.toml key and palette entry derived).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranklens.engine.scoring.base import NoAdjustments
from ranklens.engine.scoring.explain import Explanation
from ranklens.engine.scoring.registry import ScorerInputs, ScorerSpec
from ranklens.engine.settings import Step, setting
from ranklens.engine.text.termindex import QueryTerms, TermIndex


@dataclass(frozen=True)
class CoordSettings:
    boost: float = setting(1.0, "coordination level: every score multiplied by it", minimum=0, step=Step(by=0.5))


SPEC = ScorerSpec("coord", "Coord", "tests.support.toy_scorer:build", summary=lambda setup: "coordination level",
                  own_settings=CoordSettings)


class CoordinationScorer(NoAdjustments):
    name = "coord"

    def __init__(self, index: TermIndex, boost: float) -> None:
        self.present = ((index.counts > 0) * boost).astype(np.float64).tocsc()

    def scores(self, query: QueryTerms) -> np.ndarray:
        return np.asarray(self.present[:, query.ids].sum(axis=1)).ravel()

    def scores_batch(self, queries: list[QueryTerms]) -> np.ndarray:
        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        score = float(self.scores(query)[doc])
        return Explanation("coordination level", score, "distinct query terms in the chunk, times boost")


def build(inputs: ScorerInputs) -> CoordinationScorer:
    return CoordinationScorer(inputs.index, inputs.setup.read(CoordSettings).boost)
