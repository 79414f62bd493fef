"""What every scorer is: the contract the retriever, the experiments and the front ends rely on.

A scorer is fit on a term index (and, through the registry, on other scorers)
and turns an analysed query into one score per chunk. Scores are only
compared within one scorer and one query: BM25 is an unbounded sum, TF-IDF and
LSA are cosines.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from collections.abc import Sequence

if TYPE_CHECKING:
    import numpy as np

    from ranklens.engine.scoring.explain import Explanation
    from ranklens.engine.text.termindex import QueryTerms
    from ranklens.engine.topk import QueryScores


class Scorer(Protocol):
    @property
    def name(self) -> str:
        """The registry name ("bm25")."""
        ...

    @property
    def notes(self) -> Sequence[str]:
        """Adjustments the user should see ("LSA dims clamped from 100 to 18"); usually none."""
        ...

    def effective_settings(self) -> dict[str, Any]:
        """Setup fields whose value the scorer had to change (LSA's clamped dims), to describe what ran."""
        ...

    def scores(self, query: QueryTerms) -> np.ndarray:
        """One float64 score per chunk, in chunk order."""
        ...

    def scores_batch(self, queries: Sequence[QueryTerms]) -> np.ndarray:
        """A (queries x chunks) array: row i equals ``scores(queries[i])``."""
        ...

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        """How chunk ``doc``'s score is made: per-term rows that add up to it, or notes."""
        ...


# Optional capabilities, found with isinstance: a scorer that has them is asked through them, one that has
# not through ``scores``. Both are exact: they change what is computed, never the ranking.


@runtime_checkable
class TouchedScores(Protocol):
    """A scorer whose query touches few chunks (postings): its scores kept as the touched chunks."""

    def query_scores(self, query: QueryTerms) -> QueryScores:
        """Equal to ``scores(query)``, held as the touched chunks plus one score shared by every other."""
        ...


@runtime_checkable
class Floored(Protocol):
    """A scorer that says which chunks a query does not match (``engine/topk.py``'s ranking rule); one without
    it is a term scorer whose chunk with none of the query's terms scores 0."""

    def floor(self, query: QueryTerms) -> float:
        """The score of a chunk ``query`` does not match: a chunk is retrieved when it scores above it."""
        ...


@runtime_checkable
class PrunedTopK(Protocol):
    """A scorer that finds its top k without scoring every chunk (MaxScore pruning, an external engine)."""

    def top_k(self, query: QueryTerms, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(chunk indices, scores) of the k best chunks, best first, ties to the lower index: the order
        ``scores(query)`` ranks them in."""
        ...


@runtime_checkable
class DeepScoringCostly(Protocol):
    """A scorer whose scoring of a query in full is a deep query of an external engine (its top ``depth``),
    many times a top 10's cost: an evaluation asks it for the top 10 first and reads most questions' ranks off
    that (``engine/topk.py``). ranklens' own sparse scorers score a question in full about as fast as they prune
    on the collections measured (Cranfield, SQuAD-it: the rank first was 25 % faster), so they do not declare it."""

    depth: int  # chunks a scoring in full asks the engine for

    def gold_rank(self, query: QueryTerms, relevant: np.ndarray) -> int | None:
        """The rank ``query_scores(query).gold_rank(relevant)`` gives, asked of the engine more cheaply than
        its top ``depth``; None when it cannot tell (then the query is scored in full). A rank it tells is of
        a chunk the engine returns, which the query retrieves."""
        ...


@runtime_checkable
class BatchTopK(Protocol):
    """A scorer that answers many queries' top k in one call more cheaply than one at a time (an engine's
    batch of queries): a batch of questions gets its top k ahead (``Retriever.score_batches``)."""

    def top_k_batch(self, queries: Sequence[QueryTerms], k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """``top_k(query, k)`` of each query, in order."""
        ...


_CAPABLE: dict[tuple[type, type], bool] = {}


def capable(scorer: object, capability: type) -> bool:
    """``isinstance(scorer, capability)`` for the capabilities above, answered once per scorer class: a runtime
    Protocol's isinstance walks the protocol's members every time, microseconds a query on the search path.
    Capabilities are methods and class attributes, so the class decides."""
    key = (type(scorer), capability)
    known = _CAPABLE.get(key)
    if known is None:
        known = _CAPABLE[key] = isinstance(scorer, capability)
    return known


class NoAdjustments:
    """For scorers that run with the settings they are given."""

    notes: Sequence[str] = ()

    def effective_settings(self) -> dict[str, Any]:
        return {}
