"""The neural half on the command line: dense eval, fusion of BM25 and dense, search JSON, the cache.

Models are tiny ones made here (tests/support/tiny_models.py), given by folder.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("sentence_transformers", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.support.cli import assert_error, run_cli  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.bi_encoder(tmp_path_factory.mktemp("models") / "tiny-e5",
                                  {"query": "query: ", "document": "passage: "})


def test_dense_eval_on_the_command_line_matches_the_engine(capsys, model: Path) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", str(model), "--json")
    assert run.status == 0, run.err
    corpus = load_corpus("studio-alfa")
    report = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "dense", "model": str(model)})).evaluate()
    assert run.json["metrics"] == pytest.approx(report.metrics)
    assert run.json["scorer"].startswith("dense tiny-e5") and run.json["questions"] == 15
    human = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", str(model))
    assert human.status == 0 and "hit@1" in human.out and "dense tiny-e5" in human.out


def test_a_second_run_reads_the_embeddings_cache(capsys, model: Path) -> None:
    cache = Path(os.environ["RANKLENS_CACHE_DIR"]) / "embeddings"
    first = run_cli(capsys, "search", "studio-alfa", "rimborso automobile", "--scorer", "dense", "--model", str(model),
                    "--json")
    entries = sorted(cache.iterdir())
    second = run_cli(capsys, "search", "studio-alfa", "rimborso automobile", "--scorer", "dense", "--model",
                     str(model), "--json")
    assert first.status == second.status == 0 and entries and sorted(cache.iterdir()) == entries
    assert first.json["results"] == second.json["results"]


@pytest.mark.parametrize("method", ["rrf", "minmax", "zscore"])
def test_fusion_of_bm25_and_dense(capsys, model: Path, method: str) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,dense", "--model", str(model),
                  "--fusion-method", method, "--json")
    assert run.status == 0, run.err
    assert run.json["scorer"].startswith(f"fusion bm25+dense {method}")
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    parts = [workbench.retriever(setup_for(corpus, {"scorer": name, "model": str(model)}))
             for name in ("bm25", "dense")]
    fused = workbench.retriever(setup_for(corpus, {"scorer": "fusion", "fuse": "bm25,dense", "model": str(model),
                                                   "fusion_method": method}))
    query = "rimborso con l'automobile"
    lists = [np.asarray(p.scores(p.query(query)), dtype=float) for p in parts]
    from ranklens.engine.scoring.fusion import fuse_lists

    assert np.asarray(fused.scores(fused.query(query))) == pytest.approx(fuse_lists(lists, method))
    sweep = run_cli(capsys, "eval", "studio-alfa", "--scorer", "fusion", "--fuse", "bm25,dense", "--model",
                    str(model), "--fusion-method", method, "--weight-sweep", "--json")
    assert sweep.status == 0 and sweep.json["weight_sweep"]["parts"] == ["bm25", "dense"]


def test_compare_scorers_measures_dense_only_when_it_is_the_setups(capsys, model: Path) -> None:
    plain = run_cli(capsys, "compare-scorers", "studio-alfa", "--json").json
    assert [s["scorer"] for s in plain["scorers"]] == ["tfidf", "bm25", "lsa", "fusion"]
    chosen = run_cli(capsys, "compare-scorers", "studio-alfa", "--scorer", "dense", "--model", str(model), "--json")
    assert [s["scorer"] for s in chosen.json["scorers"]] == ["tfidf", "bm25", "lsa", "fusion", "dense"]


def test_a_broken_model_folder_is_one_line(capsys, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "modules.json").write_text("[{", encoding="utf-8")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", str(broken)),
                 "cannot load model")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", "ranklens-tests/uncached"),
                 "not in the local model cache", "hf download ranklens-tests/uncached")


def test_ann_over_the_dense_vectors(capsys, model: Path) -> None:
    from ranklens.engine.ann.exact import exact_topk

    run = run_cli(capsys, "ann", "studio-alfa", "--scorer", "dense", "--model", str(model), "--index", "exact,ivf",
                  "--json")
    assert run.status == 0, run.err
    assert run.json["source"].startswith("studio-alfa dense tiny-e5") and run.json["vectors"] == 18
    corpus = load_corpus("studio-alfa")
    scorer = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "dense", "model": str(model)})).scorer
    queries = scorer.encode([q.text for q in corpus.questions])
    assert run.json["queries"] == len(queries) and exact_topk(scorer.vectors, queries, 10).shape == (len(queries), 10)
    assert [sweep["rows"][-1]["recall@10"] for sweep in run.json["indexes"]] == [1.0, 1.0]
