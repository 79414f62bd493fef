"""Dense vectors in a Qdrant collection (local mode, exact search) against ranklens' dense scorer.

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
pytest.importorskip("model2vec", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.engine.backends.qdrant import QdrantBackend, push  # noqa: E402
from ranklens.engine.errors import RanklensError  # noqa: E402
from ranklens.engine.loaders import load_corpus  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from tests.support import tiny_models  # noqa: E402

QUERIES = ["ho cancellato un file per sbaglio", "come richiedo un permesso per il dentista", "wifi?",
           "rimborso auto"]


def test_dense_top10_through_qdrant_equals_local(tmp_path) -> None:
    model = str(tiny_models.static_model(tmp_path / "static"))
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    bm25 = workbench.retriever(setup_for(corpus, {"scorer": "bm25", "model": model}))
    dense = workbench.retriever(setup_for(corpus, {"scorer": "dense", "model": model}))
    push(bm25, f"qdrant:{tmp_path / 'q'}", dense=dense.scorer)
    with QdrantBackend.open(f"qdrant:{tmp_path / 'q'}") as backend:
        remote = Workbench(corpus, backend=backend)
        through = remote.retriever(setup_for(corpus, {"scorer": "dense", "model": model}))
        for text in QUERIES + [q.text for q in corpus.questions]:
            query = dense.query(text)
            local = dense.scorer.scores(query)
            order = np.argsort(-local, kind="stable")[:10]
            ids, scores = through.scorer.top_k(query, 10)
            np.testing.assert_allclose(scores, local[order], rtol=1e-5, atol=1e-6)
            assert list(ids) == list(order), text
        assert through.explain(QUERIES[0], 0).notes[-1].endswith("up to float32")
        # the same collection answers BM25 too, and a model other than the pushed one is refused
        assert remote.retriever(setup_for(corpus, {"scorer": "bm25", "model": model})).search("rimborso auto").hits
        with pytest.raises(RanklensError, match="model='.*static' there, 'wordllama' here"):
            remote.retriever(setup_for(corpus, {"scorer": "dense"}))


def test_dense_without_dense_vectors_is_refused(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), f"qdrant:{tmp_path}")
    with QdrantBackend.open(f"qdrant:{tmp_path}") as backend, pytest.raises(RanklensError, match="no dense vectors"):
        Workbench(corpus, backend=backend).retriever(setup_for(corpus, {"scorer": "dense"}))
