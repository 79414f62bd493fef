"""Retrieval metrics as the tables show them: counts next to fractions, scorer names, one rule for "best".

The lesson reports hits as counts ("hit@1 = 10/15"), the engine as fractions;
the tables show both so either can be checked against the seed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine's metrics load numpy, which the first paint must not wait for
    from ranklens.engine.metrics import Evaluation
    from ranklens.engine.retriever import Retriever

# Hits are whole questions, so they read best as counts; the rest are averages.
COUNTED = frozenset({"hit@1", "hit@3"})


def metric_columns() -> tuple[tuple[str, str], ...]:
    """(header, key in ``Evaluation.metrics``) of each metric column, in table order.

    A function rather than a constant because the cut-offs live in
    engine.metrics (numpy); callers show an evaluation, so it is loaded by then.
    """
    from ranklens.engine.metrics import NDCG_K, RECALL_K

    return (("hit@1", "hit@1"), ("hit@3", "hit@3"), ("MRR", "mrr"),
            (f"nDCG@{NDCG_K}", f"ndcg@{NDCG_K}"), (f"recall@{RECALL_K}", f"recall@{RECALL_K}"))


def hits(evaluation: Evaluation, key: str) -> int:
    """How many questions a hit@k fraction stands for."""
    return round(evaluation.metrics[key] * len(evaluation.per_question))


def metric_text(evaluation: Evaluation, key: str) -> str:
    """``10/15 0.667`` for a hit rate, ``0.786`` for the others."""
    value = evaluation.metrics[key]
    if key in COUNTED:
        return f"{hits(evaluation, key)}/{len(evaluation.per_question)} {value:.3f}"
    return f"{value:.3f}"


def ranking(evaluation: Evaluation) -> tuple[float, ...]:
    """What "better" means when settings compete: MRR, then hit@1, then recall@10.

    ``max`` over this key keeps the first of equal settings, so callers list
    the cheaper settings first.
    """
    from ranklens.engine.metrics import RECALL_K  # loaded with the evaluation: see metric_columns

    m = evaluation.metrics
    return (round(m["mrr"], 9), round(m["hit@1"], 9), round(m[f"recall@{RECALL_K}"], 9))


def scorer_label(retriever: Retriever) -> str:
    """The scorer with the parameters that tell it apart, e.g. ``BM25 lucene`` or ``LSA 18 dims``."""
    setup = retriever.setup
    if setup.scorer == "tfidf":
        return "TF-IDF sublinear" if setup.sublinear_tf else "TF-IDF"
    if setup.scorer == "bm25":
        return f"BM25 {setup.bm25_variant}"
    if setup.scorer == "lsa":
        return f"LSA {retriever.scorer.dims} dims"  # the dims actually used, after clamping
    return f"fusion {'+'.join(setup.fuse)}"
