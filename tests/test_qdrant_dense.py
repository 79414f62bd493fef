"""Dense vectors in a Qdrant collection (exact search) against ranklens' dense scorer, on both paths: an Edge
shard (qdrant:PATH) and qdrant-client over its local mode, the client's stand-in for a server.

A tiny static model made here (tests/support/tiny_models.py, never a download):
the collection's cosine top-10 must be the local scorer's, scores within 1e-5.
Needs both the qdrant and the neural extras.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]')")
pytest.importorskip("qdrant_edge", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]')")
pytest.importorskip("model2vec", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.engine.backends.qdrant import QdrantBackend, client_push, open_collection, push  # noqa: E402
from ranklens.engine.errors import RanklensError  # noqa: E402
from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.test_qdrant_backend import assert_ranks_as_the_deep_query  # noqa: E402

PATHS = {"edge": (push, open_collection), "client-local-mode": (client_push.push, QdrantBackend.open)}
QUERIES = ["ho cancellato un file per sbaglio", "come richiedo un permesso per il dentista", "wifi?",
           "rimborso auto"]


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest):
    return PATHS[request.param]


def test_dense_top10_through_qdrant_equals_local(path, tmp_path) -> None:
    push, open_at = path
    model = str(tiny_models.static_model(tmp_path / "static"))
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    bm25 = workbench.retriever(setup_for(corpus, {"scorer": "bm25", "model": model}))
    dense = workbench.retriever(setup_for(corpus, {"scorer": "dense", "model": model}))
    push(bm25, f"qdrant:{tmp_path / 'q'}", dense=dense.scorer)
    with open_at(f"qdrant:{tmp_path / 'q'}") as backend:
        remote = Workbench(corpus, backend=backend)
        through = remote.retriever(setup_for(corpus, {"scorer": "dense", "model": model}))
        for text in QUERIES + [q.text for q in corpus.questions]:
            query = dense.query(text)
            local = dense.scorer.scores(query)
            order = np.argsort(-local, kind="stable")[:10]
            ids, scores = through.scorer.top_k(query, 10)
            np.testing.assert_allclose(scores, local[order], rtol=1e-5, atol=1e-6)
            assert list(ids) == list(order), text
        relevant = [np.array(sorted(dense.relevant(q))) for q in corpus.questions]
        assert assert_ranks_as_the_deep_query(through, [q.text for q in corpus.questions], relevant) > 0
        assert through.explain(QUERIES[0], 0).notes[-1].endswith("up to float32")
        # the same collection answers BM25 too, and a model other than the pushed one is refused
        assert remote.retriever(setup_for(corpus, {"scorer": "bm25", "model": model})).search("rimborso auto").hits
        # named: the default model depends on which extras are installed (e5-small with the neural extra)
        with pytest.raises(RanklensError, match="model='.*static' there, 'wordllama' here"):
            remote.retriever(setup_for(corpus, {"scorer": "dense", "model": "wordllama"}))


def test_dense_without_dense_vectors_is_refused(path, tmp_path) -> None:
    push, open_at = path
    corpus = load_corpus("studio-alfa")
    push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), f"qdrant:{tmp_path}")
    with open_at(f"qdrant:{tmp_path}") as backend, pytest.raises(RanklensError, match="no dense vectors"):
        Workbench(corpus, backend=backend).retriever(setup_for(corpus, {"scorer": "dense"}))


def rrf_bounds(parts: list[np.ndarray], rrf_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each chunk's lowest and highest RRF score over every order of the ties within each part.

    Engines break ties their own way (ranklens by the lower index, Qdrant by its own order), so a chunk tied
    in a part may take any of the tied ranks; untied chunks have one score, and the sum over chunks is fixed.
    """
    lo, hi = np.zeros(parts[0].size), np.zeros(parts[0].size)
    for s in parts:
        best = (s[None, :] > s[:, None]).sum(axis=1) + 1
        worst = (s[None, :] >= s[:, None]).sum(axis=1)
        hi += np.where(s != 0, 1 / (rrf_k + best), 0.0)
        lo += np.where(s != 0, 1 / (rrf_k + worst), 0.0)
    return lo, hi


def test_rrf_of_bm25_and_dense_through_qdrant_equals_local_fusion(path, tmp_path) -> None:
    push, open_at = path
    model = str(tiny_models.static_model(tmp_path / "static"))
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    fused = {"scorer": "fusion", "fuse": ("bm25", "dense"), "fusion_method": "rrf", "model": model}
    push(workbench.retriever(setup_for(corpus, {"scorer": "bm25", "model": model})), f"qdrant:{tmp_path / 'q'}",
         dense=workbench.retriever(setup_for(corpus, {"scorer": "dense", "model": model})).scorer)
    local = workbench.retriever(setup_for(corpus, fused))
    with open_at(f"qdrant:{tmp_path / 'q'}") as backend:
        remote = Workbench(corpus, backend=backend).retriever(setup_for(corpus, fused))
        for text in QUERIES + [q.text for q in corpus.questions]:
            query = local.query(text)
            scores = local.scorer.scores(query)
            ids, theirs = remote.scorer.top_k(query, len(local.chunks))
            assert sorted(ids) == list(np.flatnonzero(scores > 0))
            # Edge returns fused scores in float32 (local mode in float64): 1e-6 relative is its rounding, far
            # below the 1e-3 relative (and more) that one rank apart makes within the top 1000
            assert theirs.sum() == pytest.approx(scores.sum(), rel=1e-6)
            lo, hi = rrf_bounds(local.scorer.component_scores(query), local.setup.rrf_k)
            assert np.all((lo[ids] * (1 - 1e-6) <= theirs) & (theirs <= hi[ids] * (1 + 1e-6))), text
            untied = lo[ids] == hi[ids]
            np.testing.assert_allclose(theirs[untied], scores[ids][untied], rtol=1e-6)
        assert remote.explain(QUERIES[3], int(ids[0])).notes[-1].endswith("up to float32")
        with pytest.raises(RanklensError, match="fuses bm25 and dense by rrf only"):
            Workbench(corpus, backend=backend).retriever(setup_for(corpus, {**fused, "fusion_method": "zscore"}))
