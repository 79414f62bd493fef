"""Ranking through an approximate index: a dense or LSA scorer's chunk vectors behind HNSW or IVF.

With the setup's ``ann`` set (``--ann hnsw|ivf``), a scorer with vectors (LSA, dense)
ranks a query through an index built over its chunk vectors instead of comparing every
chunk: search, eval, run and compare then measure what the approximation costs in the
user's own metrics. The index is built once per vector set and build setting (M, or
cells) and kept by the ``Workbench``; the knob (ef_search, probes) is read per query.

What a query scores: the index's ``max(k, depth())`` best candidates (every metric of
the table looks no deeper), each rescored with the scorer's own vectors, so a candidate
scores exactly what exact search gives it; every other chunk scores -inf. Beyond its
candidates an approximate index gives no order: those chunks are not retrieved (the
ranking rule of ``engine/topk.py``), so a relevant chunk the index missed counts as not
found, in eval as in a run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Sequence

import numpy as np

from ranklens.engine.ann.base import IndexSettingError, VectorIndex
from ranklens.engine.ann.knobs import IndexKnob
from ranklens.engine.measuring.metric_table import depth
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.scoring.dense import Encoder
from ranklens.engine.scoring.registry import spec
from ranklens.engine.settings import SettingError
from ranklens.engine.topk import QueryScores, floor_of

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.scoring.explain import Explanation
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import QueryTerms

KEPT_K = 10  # eval's "share of exact's top 10 kept"


def check_approximate(setup: Setup, source: str | None = None) -> None:
    """An approximate index ranks vectors: a setup asking for one with a scorer that has none is refused
    where it is made (``setup_for``). Setups derived from it (an experiment's lexical scorer) rank exactly."""
    if setup.ann is not None and not spec(setup.scorer).vectors:
        with_vectors = ", ".join(name for name in _vector_scorers())
        raise SettingError("ann", f"ann {setup.ann!r} ranks a scorer's vectors ({with_vectors}); "
                                  f"{setup.scorer} has none", source)


def _vector_scorers() -> tuple[str, ...]:
    from ranklens.engine.scoring.registry import SCORERS

    return tuple(s.name for s in SCORERS.entries() if s.vectors)


def build_key(setup: Setup) -> tuple:
    """What identifies an index built over one vector set: its kind and build setting (M or cells)."""
    param = _setup_knob(setup, "param")
    return (setup.ann, None if param is None else getattr(setup, param.setup or ""))


def _setup_knob(setup: Setup, role: str) -> IndexKnob | None:
    """The ``setup.ann`` kind's setting playing ``role``, when the setup holds it."""
    from ranklens.engine.ann.registry import index_kind

    knob = index_kind(setup.ann or "").setting(role)
    return knob if knob is not None and knob.setup else None


def _setup_value(setup: Setup, role: str) -> int | None:
    knob = _setup_knob(setup, role)
    return None if knob is None else getattr(setup, knob.setup or "")


def build_index(scorer: Scorer, setup: Setup, progress: Progress = no_progress) -> VectorIndex:
    """The ``setup.ann`` index over ``scorer``'s chunk vectors (M or cells as the setup says)."""
    from ranklens.engine.ann.registry import index_kind

    assert isinstance(scorer, Encoder)
    kind = index_kind(setup.ann or "")
    vectors = np.asarray(scorer.vectors)
    try:
        return kind.build(vectors, _setup_value(setup, "param"), progress=progress)
    except IndexSettingError as error:  # said with the setup's names for the settings
        raise _said_as_setup(kind, error) from None


def knob_of(index: VectorIndex, setup: Setup) -> int | None:
    """The knob a query turns: the setup's (ef_search, probes), else the index's default (IVF: √cells)."""
    knob = _setup_value(setup, "knob")
    knob = index.default_knob() if knob is None else knob
    try:
        type(index).check_settings(index.param_value, None if knob is None else [knob])
    except IndexSettingError as error:
        raise _said_as_setup(type(index), error) from None
    return knob


def _said_as_setup(kind: type[VectorIndex], error: IndexSettingError) -> SettingError:
    """An index's complaint, naming the setup key the setting came from (``probes``, not ``n_probe``)."""
    name = next((knob.setup for knob in kind.settings if knob.name == error.setting and knob.setup), error.setting)
    return SettingError(name, error.naming(name))


@dataclass
class ApproximateScorer:
    """A scorer with vectors, answered by an approximate index (see the module docstring).

    Keeps the exact scorer's name, so whatever reads the registry (its label, that it
    ranks every chunk) reads it for this one too; ``exact`` is there for the comparison.
    """

    exact: Any  # the exact scorer: a Scorer that is an Encoder
    index: VectorIndex
    knob: int | None
    candidates: int  # chunks asked of the index per query

    @property
    def name(self) -> str:
        return self.exact.name

    @property
    def notes(self) -> Sequence[str]:
        return [*self.exact.notes, *self.index.warnings]

    @property
    def vectors(self) -> np.ndarray:
        return self.exact.vectors

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.exact.encode(texts)

    def effective_settings(self) -> dict[str, Any]:
        return self.exact.effective_settings()

    def query_scores(self, query: QueryTerms) -> QueryScores:
        """The candidates' exact cosines, every other chunk -inf: the touched form of ``scores``."""
        vectors = self.exact.vectors
        q = np.asarray(self.exact.encode([query.text]))[0]  # in the scorer's own dtype: its exact scores
        found = self.index.search(q[None, :], min(self.candidates, len(vectors)), self.knob)
        ids = np.sort(found.ids[0][found.ids[0] >= 0])
        values = (np.asarray(vectors[ids]) @ q).astype(np.float64)
        return QueryScores(len(vectors), values, ids, base=-np.inf)

    def scores(self, query: QueryTerms) -> np.ndarray:
        return self.query_scores(query).dense()

    def floor(self, query: QueryTerms) -> float:
        """The exact scorer's: the chunks the index leaves out score -inf, below it."""
        return floor_of(self.exact, query)

    def scores_batch(self, queries: Sequence[QueryTerms]) -> np.ndarray:
        if not queries:
            return np.zeros((0, len(self.exact.vectors)))
        return np.stack([self.scores(q) for q in queries])

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        from dataclasses import replace

        explanation = self.exact.explain(query, doc)
        found = self.query_scores(query)
        where = ("one of" if np.isfinite(found[doc]) else "not among")
        note = (f"ranked through the {self.index.kind} index ({self.index.knob} {self.knob}): this chunk is "
                f"{where} its {found.touched} candidates")
        return replace(explanation, notes=[*explanation.notes, note])


def approximate(scorer: Scorer, index: VectorIndex, setup: Setup) -> ApproximateScorer:
    """``scorer`` answered by ``index`` with the setup's knob."""
    return ApproximateScorer(scorer, index, knob_of(index, setup), max(setup.k, depth()))


@dataclass(frozen=True)
class AnnComparison:
    """Eval through an approximate index beside exact's: both metrics and how much of exact's top 10 it keeps."""

    kept: float  # mean share of exact's top 10 that the index's top 10 holds, over the questions
    questions: int

    def to_dict(self) -> dict[str, Any]:
        return {"kept_top10": self.kept, "questions": self.questions}


def exact_twin(retriever: Retriever) -> Retriever:
    """The same retriever ranking every chunk exactly (its setup without ``ann``)."""
    from dataclasses import replace

    scorer = retriever.scorer
    if not isinstance(scorer, ApproximateScorer):
        return retriever
    return replace(retriever, setup=retriever.setup.replace(ann=None), scorer=scorer.exact)


def kept_share(approximate: Retriever, exact: Retriever, progress: Progress = no_progress) -> AnnComparison:
    """The share of exact's top 10 the approximate retriever's top 10 keeps, averaged over the answerable
    questions (recall@10 against exact search, the ann sweep's measure, on the user's questions)."""
    texts = [q.text for q in approximate.corpus.answerable]
    k = min(KEPT_K, len(exact.chunks))
    shares = []
    pairs = zip(approximate.score_batches(texts, progress, "approximate top 10"),
                exact.score_batches(texts, no_progress, "exact top 10"))
    for (_, a), (_, e) in pairs:
        kept = np.intersect1d(a.retrieved_top(k)[0], e.retrieved_top(k)[0]).size
        shares.append(kept / k if k else 1.0)
    return AnnComparison(float(np.mean(shares)) if shares else 1.0, len(shares))
