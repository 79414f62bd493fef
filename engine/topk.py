"""Top-k selection with argpartition, ordered like a stable descending sort.

Ties are broken by the lower chunk index, exactly as
``np.argsort(-scores, kind="stable")[:k]`` would, without sorting all N.

``QueryScores`` is a score vector over all chunks kept as what a query's
postings touched plus one score shared by every other chunk; ``top_k`` and
``gold_rank`` work on it in time proportional to the touched chunks, with the
same ids and tie order as on the dense vector it stands for.

The one ranking rule: a chunk that matches nothing is not retrieved. Each scorer
says, per query, its floor (``floor_of``): the score of a chunk the query does not
match; a chunk is retrieved when it scores above it. Search, runs, eval, the
threshold, the sweeps, why and every backend rank through ``retrieved_top`` and
``retrieved_rank`` below, nowhere else. What the floor is per scorer:

- TF-IDF, BM25: the score of a chunk with none of the query's terms (0; bm25l and
  bm25+ give it a constant). A term that weighs nothing (robertson's idf for a term
  in half the chunks or more, atire's for one in every chunk) matches nothing either.
- LSA, dense: -inf, since a cosine ranks every chunk; what an approximate index leaves
  out scores -inf and is not retrieved. An LSA query with no term of the corpus has
  no direction and scores every chunk 0: its floor is 0, it retrieves nothing.
- fusion: retrieved by at least one part it weighs. RRF's floor is 0 (a part adds
  its top 1000 retrieved chunks); a weighted sum's is the fused score of a chunk no
  weighted part retrieves, -inf when a part ranks every chunk.
- a backend: its local twin's; a chunk the engine does not return scores the floor.

A chunk at or below the floor ranks below every retrieved one, so leaving it out
changes no retrieved chunk's rank: eval's ranks are the run file's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ranklens.engine.scoring.base import DeepScoringCostly, Floored, PrunedTopK, TouchedScores, capable

_SAMPLE_STEP = 64  # large inputs: a strided sample bounds the k-th score from below
_SAMPLED_ABOVE = 1 << 12  # 10k scores: 0.05 ms sampled, 0.12 ms partitioned whole
_SORTED_BELOW = 256  # below this, one stable sort costs less than partitioning in several calls (measured)
_TIES_SORTED = 1024  # scores at or above the k-th sorted as they are; more (ties): the tied ones cut to k first


def top_k(scores: np.ndarray | QueryScores | PendingScores, k: int) -> np.ndarray:
    if isinstance(scores, (QueryScores, PendingScores)):
        return scores.top_k(k)
    n = scores.size
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if n >= _SAMPLED_ABOVE and k * _SAMPLE_STEP < n:
        return _top_k_sampled(scores, k)
    return _top_k_exact(scores, k)


def _top_k_exact(scores: np.ndarray, k: int) -> np.ndarray:
    # methods rather than numpy's functions, and no flatnonzero: a rare-term search is a few dozen
    # microseconds of numpy calls, each function adding its own Python layer
    n = scores.size
    if k >= n or n < _SORTED_BELOW:
        return (-scores).argsort(kind="stable")[:k]
    # every score at least the k-th best, in index order: a stable sort of those keeps ties to the lower index
    # partitioned from the top: np.partition at n - k takes 100 ms on a million scores of one value, this 8
    cutoff = -np.partition(-scores, k - 1)[k - 1]
    chosen = (scores >= cutoff).nonzero()[0]
    if chosen.size < k:  # fewer than k scores that are not NaN: the k-th is NaN, no score compares with it
        return (-scores).argsort(kind="stable")[:k]
    if chosen.size > _TIES_SORTED:
        # many tie at the k-th score (a vector of few values): only the lowest indices among them can be chosen
        above = (scores > cutoff).nonzero()[0]
        chosen = np.concatenate((above, (scores == cutoff).nonzero()[0][:k - above.size]))
    return chosen[(-scores[chosen]).argsort(kind="stable")[:k]]


def _top_k_sampled(scores: np.ndarray, k: int) -> np.ndarray:
    """The k-th best of every 64th score is at most the true k-th best, so every chunk
    of the top k scores at least that much: partition only those (ids stay ascending,
    which keeps the tie order)."""
    sample = scores[::_SAMPLE_STEP]
    lower = np.partition(sample, sample.size - k)[sample.size - k]
    candidates = np.flatnonzero(scores >= lower)
    return candidates[_top_k_exact(scores[candidates], k)]


@dataclass(frozen=True, slots=True, weakref_slot=True, repr=False)
class QueryScores:
    """One query's score for each of ``n`` chunks, dense or as the chunks its postings touched.

    Touched form (``ids`` not None): chunk ``ids[j]`` scores ``values[j]``
    (``ids`` ascending, distinct) and every other chunk scores ``base`` (0 for
    TF-IDF and most BM25 variants; bm25l and bm25+ give a chunk lacking a query
    term a constant). Dense form (``ids`` None): ``values`` holds all n scores.
    Either way it reads like the dense vector: ``np.asarray``, indexing with
    chunk indices, ``max``, ``any``, ``top_k``, ``gold_rank``. ``floor``: a chunk
    scoring above it is retrieved (the rule in the module docstring; -inf: every chunk
    with a score is).
    """

    n: int
    values: np.ndarray
    ids: np.ndarray | None = None
    base: float = 0.0
    floor: float = -np.inf

    def __repr__(self) -> str:
        form = "dense" if self.ids is None else f"{self.ids.size} touched, base {self.base:g}"
        return f"QueryScores({self.n} chunks, {form})"

    @classmethod
    def of(cls, scores: np.ndarray | QueryScores, floor: float = -np.inf) -> QueryScores:
        if isinstance(scores, QueryScores):
            return scores if floor == scores.floor else replace(scores, floor=floor)
        return cls(np.asarray(scores).size, np.asarray(scores), floor=floor)

    @property
    def size(self) -> int:
        return self.n

    @property
    def touched(self) -> int:
        """Chunks whose score is stored one by one (n when dense)."""
        return self.n if self.ids is None else self.ids.size

    def dense(self) -> np.ndarray:
        """All n scores as a float array (a new array in the touched form)."""
        if self.ids is None:
            return self.values
        out = np.full(self.n, self.base)
        out[self.ids] = self.values
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.dense()
        return out if dtype is None else out.astype(dtype)

    def __getitem__(self, chunks):
        """Scores of the given chunk indices (an int or an int array), as the dense vector's."""
        if self.ids is None:
            return self.values[chunks]
        where = np.asarray(chunks, dtype=np.intp)
        pos = np.searchsorted(self.ids, where)
        inside = np.minimum(pos, max(self.ids.size - 1, 0))
        found = (pos < self.ids.size) & (self.ids[inside] == where) if self.ids.size else np.zeros(where.shape, bool)
        out = np.where(found, self.values[inside] if self.ids.size else self.base, self.base)
        return float(out) if out.ndim == 0 else out

    def max(self, initial: float | None = None) -> float:
        best = self.values.max(initial=-np.inf)
        if self.touched < self.n:
            best = max(best, self.base)
        if initial is not None:
            best = max(best, initial)
        return float(best)

    def any(self) -> bool:
        return bool(self.values.any()) or (self.touched < self.n and self.base != 0)

    def top_k(self, k: int) -> np.ndarray:
        """The k best chunk indices, best first, ties to the lower index (as ``top_k`` on the dense vector)."""
        return self.top(k)[0]

    def top(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(``top_k(k)``, their float64 scores)."""
        if self.ids is None:
            best = top_k(self.values, k)
            return best, np.asarray(self.values[best], dtype=np.float64)
        k = min(k, self.n)
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        m = self.ids.size
        if m >= k:
            best = top_k(self.values, k)  # positions; ids ascend, so position order is index order
            scores = np.asarray(self.values[best], dtype=np.float64)
            if m == self.n or scores[-1] > self.base:
                # every untouched chunk scores base, below the k-th
                return self.ids[best], scores
        best = self._top_with_untouched(k)
        return best, np.asarray(self[best], dtype=np.float64)

    def _top_with_untouched(self, k: int) -> np.ndarray:
        assert self.ids is not None
        m = self.ids.size
        # Untouched chunks tie at base; among them only the k lowest indices can be chosen.
        limit = min(self.n, m + k)
        free = np.ones(limit, dtype=bool)
        free[self.ids[:np.searchsorted(self.ids, limit)]] = False
        extra = np.flatnonzero(free)[:k]
        if m < k and (m == 0 or self.values.min() > self.base):
            # few touched chunks, all above the rest (the usual rare-term query): no merge needed
            return np.concatenate((self.ids[np.argsort(-self.values, kind="stable")], extra[:k - m]))
        chunks = np.concatenate((self.ids, extra))
        scores = np.concatenate((self.values, np.full(extra.size, self.base)))
        order = np.argsort(chunks, kind="stable")
        chunks, scores = chunks[order], scores[order]
        return chunks[_top_k_exact(scores, k)]

    def gold_rank(self, relevant: np.ndarray) -> int | None:
        """1-based rank of the best-ranked relevant chunk under the stable descending order.

        Chunk g sits at ``count(s > s[g]) + count(s[:g] == s[g]) + 1``, counted
        over the touched chunks and, all at once, over the untouched ones.
        """
        rel = np.asarray(relevant, dtype=np.intp)
        if rel.size == 0:
            return None
        vals = np.atleast_1d(self[rel])
        best = vals.max()
        g = int(rel[vals == best].min())
        if self.ids is None:
            s = self.values
            return int(np.count_nonzero(s > best) + np.count_nonzero(s[:g] == best) + 1)
        below = int(np.searchsorted(self.ids, g))  # touched chunks with a lower index than g
        above = np.count_nonzero(self.values > best) + (self.n - self.ids.size if self.base > best else 0)
        before = np.count_nonzero(self.values[:below] == best) + (g - below if self.base == best else 0)
        return int(above + before + 1)

    def retrieved_top(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``top(k)`` without the chunks the query does not retrieve (at or below ``floor``)."""
        return _above_floor(*self.top(k), self.floor)

    def retrieved_rank(self, relevant: np.ndarray) -> int | None:
        """``gold_rank`` when the best-ranked relevant chunk is retrieved, else None."""
        return _retrieved_rank(self, relevant, self.floor)


def floor_of(scorer, query) -> float:
    """The score of a chunk ``query`` does not match under ``scorer`` (the rule in the module docstring): the
    scorer's own ``floor``, else 0 (a term scorer's chunk with none of the query's terms)."""
    return float(scorer.floor(query)) if capable(scorer, Floored) else 0.0


def _above_floor(ids: np.ndarray, values: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """A top list (best first) cut where it reaches the floor: what follows is not retrieved."""
    if not values.size or values[-1] > floor:  # the usual case, one comparison (NaN sorts last)
        return ids, values
    keep = values > floor
    return ids[keep], values[keep]


def _retrieved_rank(scores: QueryScores, relevant: np.ndarray, floor: float) -> int | None:
    rank = scores.gold_rank(relevant)
    if rank is None:
        return None
    best = np.max(np.atleast_1d(scores[np.asarray(relevant, dtype=np.intp)]))
    return rank if best > floor else None


def query_scores_of(scorer, query) -> QueryScores:
    """``scorer.query_scores(query)`` when the scorer keeps touched chunks apart, else its dense scores."""
    return scorer.query_scores(query) if capable(scorer, TouchedScores) else QueryScores.of(scorer.scores(query))


class PendingScores:
    """One query's scores over all chunks, computed only as far as they are asked for.

    ``top_k`` goes through the scorer's own ``top_k(query, k)`` (MaxScore
    pruning: the chunks that only long, low-weight posting lists touch are
    never scored); anything else (``gold_rank``, ``dense``, indexing outside
    the top) scores the query in full once, as ``query_scores_of`` does.
    Reads like ``QueryScores``, which reads like the dense vector.
    """

    __slots__ = ("scorer", "query", "n", "floor", "_full", "_top", "_asked", "__weakref__")

    def __init__(self, scorer, query, n: int, top: tuple[np.ndarray, np.ndarray] | None = None,
                 asked: int = 0) -> None:
        """``top``: the scorer's ``top_k(query, asked)``, when found ahead (a batch of an engine's queries)."""
        self.scorer, self.query, self.n = scorer, query, n
        self.floor = floor_of(scorer, query)  # a chunk scoring above it is retrieved
        self._full: QueryScores | None = None
        self._top: tuple[np.ndarray, np.ndarray] | None = top  # (chunk indices best first, their scores)
        self._asked = asked if top is not None else 0  # the k of that top: it holds fewer when the scorer has

    def __repr__(self) -> str:
        return f"PendingScores({self.n} chunks, {'scored' if self._full is not None else 'pending'})"

    @property
    def size(self) -> int:
        return self.n

    def full(self) -> QueryScores:
        if self._full is None:
            self._full = query_scores_of(self.scorer, self.query)
        return self._full

    def top_k(self, k: int) -> np.ndarray:
        return self.top(k)[0]

    def top(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(the k best chunk indices, best first, ties to the lower index; their float64 scores)."""
        if self._full is not None or not capable(self.scorer, PrunedTopK):
            return self.full().top(k)
        if self._top is None or self._asked < min(k, self.n):
            found, values = self.scorer.top_k(self.query, k)
            self._top, self._asked = (found, np.asarray(values, dtype=np.float64)), k
            return self._top
        return self._top[0][:k], self._top[1][:k]

    def retrieved_top(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``top(k)`` without the chunks the query does not retrieve (at or below ``floor``)."""
        return _above_floor(*self.top(k), self.floor)

    def retrieved_rank(self, relevant: np.ndarray) -> int | None:
        """``gold_rank`` when the best-ranked relevant chunk is retrieved, else None; read off the top found
        already, or asked of an engine, as ``gold_rank`` is."""
        relevant = np.asarray(relevant, dtype=np.int64)
        if self._full is None and self._top is not None:
            known, values = self._top
            rank = _rank_in_top(known, values, relevant)
            if rank is not None:
                return rank if values[rank - 1] > self.floor else None
        if self._full is None and self.top_first:
            rank = self.scorer.gold_rank(self.query, relevant)
            if rank is not None:
                return rank  # an engine tells the rank of a chunk it returns: one it retrieves
        return _retrieved_rank(self.full(), relevant, self.floor)

    def __getitem__(self, chunks):
        if self._full is None and self._top is not None:
            # the scores of top-k chunks are known already: a search reads only those
            known, values = self._top
            where = np.asarray(chunks, dtype=np.int64)
            if known.size:
                order = np.argsort(known)
                pos = order[np.minimum(np.searchsorted(known, where, sorter=order), known.size - 1)]
                if np.array_equal(known[pos], where):
                    out = values[pos]
                    return float(out) if out.ndim == 0 else out
        return self.full()[chunks]

    def any(self) -> bool:
        if self._full is None and self._top is not None and self._top[1].size and self._top[1][0] != 0:
            return True
        return self.full().any()

    def max(self, initial: float | None = None) -> float:
        if self._full is not None or not capable(self.scorer, PrunedTopK):
            return self.full().max(initial)
        best = float(self[self.top_k(1)][0])  # the best score is the top-1's: pruned like any top-k
        return best if initial is None else max(best, initial)

    def dense(self) -> np.ndarray:
        return self.full().dense()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.full().__array__(dtype)

    @property
    def touched(self) -> int:
        return self.full().touched

    @property
    def top_first(self) -> bool:
        """Whether to find the top k before the rank: scoring in full costs many top k's (an engine's deep query)."""
        return capable(self.scorer, DeepScoringCostly)

    def gold_rank(self, relevant: np.ndarray) -> int | None:
        """As ``QueryScores.gold_rank``; read off the top k found already when a relevant chunk is in it above
        the k-th score (so the question is not scored in full: an evaluation's usual case), else asked of an
        engine's scorer that can tell it more cheaply than its deep query."""
        if self._full is None and self._top is not None:
            rank = _rank_in_top(*self._top, np.asarray(relevant, dtype=np.int64))
            if rank is not None:
                return rank
        if self._full is None and self.top_first:
            rank = self.scorer.gold_rank(self.query, np.asarray(relevant, dtype=np.int64))
            if rank is not None:
                return rank
        return self.full().gold_rank(relevant)


def _rank_in_top(known: np.ndarray, values: np.ndarray, relevant: np.ndarray) -> int | None:
    """The 1-based rank of the best-ranked relevant chunk when the top list (chunk indices best first, ties to
    the lower index, and their scores) decides it, else None.

    Every chunk scoring above the list's last score is in the list, in the stable descending order: a relevant
    chunk in it above that score is the best-ranked relevant chunk, at its position. One tied with the last score
    is not decided (a chunk of the same score with a lower index may lie beyond the list).
    """
    if not known.size:
        return None
    hits = np.flatnonzero(np.isin(known, relevant) & (values > values[-1]))
    return int(hits[0]) + 1 if hits.size else None


# Ranks held by no chunk: a user's own retriever may rank a hit the corpus cannot place
# (engine/backends/placing.py). It keeps its rank as a result nothing judges relevant, so the chunks
# below it do not move up: the ranks of a question's chunks skip the ranks ``taken`` (1-based, ascending).
NO_CHUNK = -1  # the position a rank held by no chunk has in a top list laid out by ``around_taken``


def rank_around(rank: int, taken: np.ndarray) -> int:
    """The rank among all results of the chunk ranked ``rank`` among the chunks: the ``rank``-th rank not taken."""
    if not taken.size:
        return rank
    return rank + int(np.searchsorted(taken - np.arange(taken.size), rank, side="right"))


def around_taken(top: np.ndarray, taken: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` ranks of ``top`` (chunk positions, best first) laid around the ``taken`` ranks, which hold
    ``NO_CHUNK``: what a measure reads rank by rank."""
    if not taken.size:
        return top[:k]
    taken = taken[taken <= k]
    free = np.setdiff1d(np.arange(1, k + 1), taken)[:top.size]
    laid = np.full(max(int(free[-1]) if free.size else 0, int(taken[-1]) if taken.size else 0), NO_CHUNK,
                   dtype=np.int64)
    laid[free - 1] = top[:free.size]
    return laid
