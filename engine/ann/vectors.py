"""Dense vector sets to put behind an index: a corpus' LSA vectors, any encoder's, or the lesson's synthetic set."""
from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.scoring.dense import Encoder
from ranklens.engine.scoring.registry import spec

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever

MAX_SAMPLED_QUERIES = 200


@dataclass(frozen=True)
class VectorSet:
    name: str
    vectors: np.ndarray  # unit rows
    queries: np.ndarray  # unit rows
    default_cells: int


def synthetic_set() -> VectorSet:
    from ranklens.engine.ann.synthetic import synthetic_vectors

    vectors, queries = synthetic_vectors()
    return VectorSet("synthetic (seed 004: 50 topics)", vectors, queries, default_cells=100)


def corpus_set(retriever: Retriever) -> VectorSet:
    """The chunk vectors of the retriever's scorer (LSA, dense: any ``Encoder``); queries are the
    corpus' questions, or sampled chunks if it has none."""
    scorer = retriever.scorer
    if not isinstance(scorer, Encoder):
        raise RanklensError(f"an index sweep over a corpus needs a scorer with vectors (LSA or dense), "
                            f"not {retriever.setup.scorer}")
    return encoder_set(scorer, [q.text for q in retriever.corpus.questions],
                       f"{retriever.corpus.name} {spec(retriever.setup.scorer).short(retriever.setup)}")


def encoder_set(encoder: Encoder, questions: Sequence[str], name: str) -> VectorSet:
    """Any encoder's chunk vectors, with the questions encoded as queries (or sampled chunks)."""
    vectors = encoder.vectors
    n = vectors.shape[0]
    if questions:
        queries = encoder.encode(questions)
    else:
        pick = np.random.default_rng(0).choice(n, size=min(n, MAX_SAMPLED_QUERIES), replace=False)
        queries = vectors[np.sort(pick)]
    cells = max(1, min(round(math.sqrt(n)), n))
    return VectorSet(name, vectors, queries, cells)
