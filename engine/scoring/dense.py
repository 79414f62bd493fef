"""Dense vectors: an encoder turns texts into vectors compared by cosine.

LSA is the encoder learned from the corpus itself. The IVF sweep takes any
``Encoder`` with its chunk vectors (``engine.ann.vectors.encoder_set``), so a
neural encoder plugs in there by implementing this protocol: the dense scorer
below does, with a bi-encoder loaded by ``engine.models`` (the neural extra).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from collections.abc import Sequence

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.scoring.explain import Explanation

if TYPE_CHECKING:
    from ranklens.engine.neural.models import TextEncoder
    from ranklens.engine.work.progress import Progress
    from ranklens.engine.scoring.registry import ScorerInputs
    from ranklens.engine.text.termindex import QueryTerms


@runtime_checkable
class Encoder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def vectors(self) -> np.ndarray:
        """The corpus' chunks, encoded: unit rows."""
        ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text."""
        ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to norm 1 (plus 1e-12, as the lesson's cosine), so a dot product is a cosine."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / (norms + 1e-12)


# --- the dense scorer: a neural bi-encoder's cosine (the model is loaded lazily, by name) --------

@dataclass
class DenseScorer:
    """Cosine of a neural bi-encoder's query vector with each chunk's vector.

    The query's raw text is encoded (with the model's query prefix), not its analysed
    terms: stop words, stemming and the term index play no part. Chunk vectors come
    from the embeddings cache when a cache folder is given.
    """

    model: TextEncoder
    vectors: np.ndarray  # chunks x dims, float32 unit rows (memory-mapped when cached)
    notes: list[str] = field(default_factory=list)

    name = "dense"

    @property
    def label(self) -> str:
        return self.model.title

    def effective_settings(self) -> dict[str, Any]:
        return {}

    @classmethod
    def fit(cls, model: TextEncoder, texts: Sequence[str], cache_dir: Any = None,
            progress: Progress | None = None) -> DenseScorer:
        from ranklens.engine.storage.embeddings import EmbeddingCache, embeddings_key
        from ranklens.engine.work.progress import no_progress

        notes = list(model.notes)
        cache = EmbeddingCache(cache_dir) if cache_dir is not None else None
        key = embeddings_key(model.identity, model.passage_prefix, texts) if cache else ""
        vectors = cache.load(key, len(texts)) if cache else None
        if vectors is None:
            vectors = model.encode_passages(texts, progress or no_progress)
            if cache:
                cache.save(key, vectors, model.name)
        if cache:
            notes.extend(cache.problems)
        return cls(model, vectors, notes)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit query vectors: this makes the dense scorer an ``Encoder`` (the index sweep takes it)."""
        return self.model.encode_queries(texts)

    def scores(self, query: QueryTerms) -> np.ndarray:
        return (self.vectors @ self.model.encode_queries([query.text])[0]).astype(np.float64)

    def floor(self, query: QueryTerms) -> float:
        """-inf: a cosine ranks every chunk (``engine/topk.py``'s ranking rule)."""
        return -np.inf

    def scores_batch(self, queries: Sequence[QueryTerms]) -> np.ndarray:
        if not queries:
            return np.zeros((0, len(self.vectors)))
        return (self.model.encode_queries([q.text for q in queries]) @ self.vectors.T).astype(np.float64)

    def explain(self, query: QueryTerms, doc: int) -> Explanation:
        q = self.model.encode_queries([query.text])[0]
        d = np.asarray(self.vectors[doc])
        prefixes = (f"; prefixes {self.model.query_prefix!r} / {self.model.passage_prefix!r}"
                    if self.model.query_prefix or self.model.passage_prefix else "")
        return Explanation(
            scorer=f"dense {self.model.title}",
            score=float(d @ q),
            formula=f"cosine of the query's and the chunk's {self.model.dims}-dimensional vectors "
                    f"({self.model.kind} model{prefixes}); no per-term breakdown",
            terms=[], notes=list(self.notes))


def build(inputs: ScorerInputs) -> DenseScorer:
    from ranklens.engine.neural.model_names import bundled_label
    from ranklens.engine.chunking.model_window import window_check
    from ranklens.engine.neural.models import load_encoder

    model_name = inputs.setup.model
    if not model_name:
        raise RanklensError("the dense scorer needs a model: a local folder, a cached model name or wordllama")
    # loading takes seconds (wordllama: 2 s) and reports nothing itself: say what the wait is for
    inputs.progress(0, 1, f"loading model {bundled_label(model_name) or model_name}")
    model = load_encoder(model_name)
    scorer = DenseScorer.fit(model, inputs.texts(), inputs.cache_dir, inputs.progress)
    check = window_check(model_name, inputs.texts())
    if check is not None and check.over:  # the vectors measured are not those a truncating pipeline makes
        scorer.notes.append(check.note())
    return scorer
