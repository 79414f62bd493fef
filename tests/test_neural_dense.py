"""The dense scorer on tiny models made here, loaded through the loaders users hit.

The oracle is each library's own ``encode()``: ranklens' scores must equal the
cosine, computed here with numpy, of the vectors the model itself returns for
the query and the chunks (with the model's prefixes), within 1e-6.
Needs the neural extra; without it these tests are skipped, saying so.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("model2vec", reason="the neural extra is not installed: pip install 'ranklens[neural]'")
pytest.importorskip("sentence_transformers", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.engine.storage.embeddings import EmbeddingCache, embeddings_key  # noqa: E402
from ranklens.engine.errors import Cancelled, RanklensError  # noqa: E402
from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.neural.models import FIRST_BATCH, forget_loaded, load_encoder  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from ranklens.engine.scoring.dense import DenseScorer  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.support.cli import run_cli  # noqa: E402
from tests.support.trec_oracle import assert_eval_is_trec_evals, corpus_qrels  # noqa: E402

QUERIES = ["ho cancellato un file per sbaglio", "come richiedo un permesso per il dentista", "wifi?", ""]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {
        "static": tiny_models.static_model(root / "static"),
        "prompted": tiny_models.bi_encoder(root / "prompted", {"query": "query: ", "document": "passage: "}),
        "e5": tiny_models.bi_encoder(root / "tiny-e5-small", seed=3),  # declares no prompts
        "plain": tiny_models.bi_encoder(root / "plain", seed=4),
    }


@pytest.fixture(scope="module")
def studio_alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


def cosines(query: np.ndarray, chunks: np.ndarray) -> np.ndarray:
    q = query / np.linalg.norm(query)
    c = chunks / np.linalg.norm(chunks, axis=1, keepdims=True)
    return c @ q


def dense(workbench: Workbench, model: Path | str, **extra):  # noqa: ANN201
    return workbench.retriever(setup_for(workbench.corpus, {"scorer": "dense", "model": str(model), **extra}))


def test_static_model_scores_equal_numpy_cosine_over_model2vecs_own_encode(models, studio_alfa) -> None:
    from model2vec import StaticModel

    oracle = StaticModel.from_pretrained(str(models["static"]), force_download=False)
    retriever = dense(studio_alfa, models["static"])
    chunks = oracle.encode([c.text for c in retriever.chunks])
    for text in QUERIES[:2]:
        expected = cosines(oracle.encode([text])[0], chunks)
        assert np.allclose(retriever.scores(retriever.query(text)), expected, atol=1e-6)
    assert retriever.setup.describe().startswith("dense static")
    assert isinstance(retriever.scorer, DenseScorer) and retriever.scorer.model.kind == "static"


@pytest.mark.parametrize("name, query_prefix, passage_prefix", [
    ("prompted", "query: ", "passage: "),  # the model's own declared prompts
    ("e5", "query: ", "passage: "),  # an e5 model that declares none gets e5's
    ("plain", "", ""),
])
def test_sentence_transformer_scores_equal_numpy_cosine_with_its_prefixes(
        models, studio_alfa, name: str, query_prefix: str, passage_prefix: str) -> None:
    from sentence_transformers import SentenceTransformer

    oracle = SentenceTransformer(str(models[name]), device="cpu")
    retriever = dense(studio_alfa, models[name])
    model = retriever.scorer.model
    assert (model.query_prefix, model.passage_prefix) == (query_prefix, passage_prefix)
    chunks = oracle.encode([passage_prefix + c.text for c in retriever.chunks], convert_to_numpy=True)
    for text in QUERIES[:2]:
        expected = cosines(oracle.encode([query_prefix + text], convert_to_numpy=True)[0], chunks)
        assert np.allclose(retriever.scores(retriever.query(text)), expected, atol=1e-6)
    batch = retriever.scorer.scores_batch([retriever.query(t) for t in QUERIES[:2]])
    assert np.allclose(batch[1], retriever.scores(retriever.query(QUERIES[1])), atol=1e-6)
    if name == "e5":
        assert any("e5 prefixes" in note for note in retriever.notes)


def test_dense_search_ranks_by_the_cosine_and_reads_the_raw_text(models, studio_alfa) -> None:
    retriever = dense(studio_alfa, models["prompted"])
    query = QUERIES[0]
    scores = retriever.scores(retriever.query(query))
    result = retriever.search(query, k=5)
    assert [h.index for h in result.hits] == np.argsort(-scores, kind="stable")[:5].tolist()
    assert [h.score for h in result.hits] == pytest.approx(np.sort(scores)[::-1][:5].tolist())
    explanation = retriever.explain(query, result.hits[0].index)
    assert explanation.score == pytest.approx(result.hits[0].score, abs=1e-6) and "cosine" in explanation.formula


def test_wordllama_ships_with_the_extra_and_scores_like_its_own_embed(studio_alfa) -> None:
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("wordllama") is None:
        pytest.skip("wordllama (part of the neural extra) is not installed")
    # importing wordllama calls logging.basicConfig (every library's INFO lines on stderr): the loader
    # puts the root logger back. In a fresh process, since pytest's own handlers make basicConfig a no-op here.
    code = ("import logging\nfrom ranklens.engine.neural.models import load_encoder\nload_encoder('wordllama')\n"
            "root = logging.getLogger()\nassert not root.handlers and root.level == logging.WARNING, root.handlers\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    retriever = dense(studio_alfa, "wordllama")

    from wordllama import WordLlama

    package = Path(importlib.import_module("wordllama").__path__[0])
    oracle = WordLlama.load(cache_dir=package, disable_download=True)
    chunks = oracle.embed([c.text for c in retriever.chunks], norm=True)
    expected = cosines(oracle.embed([QUERIES[1]], norm=True)[0], chunks)
    assert np.allclose(retriever.scores(retriever.query(QUERIES[1])), expected, atol=1e-6)
    assert retriever.scorer.model.dims == 256


def test_encoding_reports_chunks_per_second_and_can_be_cancelled(models) -> None:
    model = load_encoder(str(models["plain"]))
    texts = [f"il file {i} della fattura" for i in range(100)]
    seen = []
    vectors = model.encode_passages(texts, lambda done, total, label: seen.append((done, total, label)))
    assert vectors.shape == (100, model.dims) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert seen[0][:2] == (0, 100) and seen[-1][:2] == (100, 100)
    # the first batch is small, so the first chunks/s shows at once; each after it at most doubles
    done = [d for d, _, _ in seen]
    assert done[1] == FIRST_BATCH and all("chunks/s" in label for _, _, label in seen[1:])
    batches = np.diff(done[1:], prepend=0)
    assert all(0 < b <= min(model.batch_size, 2 * a) for a, b in zip(batches, batches[1:]))
    # batches of any size give the vectors of one batch
    assert np.allclose(vectors, model._encode(texts), atol=1e-6)

    def cancel(done: int, total: int, label: str) -> None:
        if done >= FIRST_BATCH:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        model.encode_passages(texts, cancel)


def test_building_the_dense_scorer_says_it_loads_the_model_first(models) -> None:
    forget_loaded()
    corpus = load_corpus("studio-alfa")
    seen: list[str] = []
    Workbench(corpus).retriever(setup_for(corpus, {"scorer": "dense", "model": str(models["static"])}),
                                lambda done, total, label: seen.append(label))
    loading = seen.index(f"loading model {models['static']}")
    assert any(label.startswith("encoding chunks (") for label in seen[loading:])


# -- the embeddings cache --------------------------------------------------------------------------


def test_a_cache_hit_returns_identical_memory_mapped_vectors(models, studio_alfa, tmp_path: Path) -> None:
    model = load_encoder(str(models["prompted"]))
    texts = [c.text for c in studio_alfa.corpus.chunks]
    first = DenseScorer.fit(model, texts, tmp_path)
    entries = list((tmp_path / "embeddings").iterdir())
    assert len(entries) == 1 and not isinstance(first.vectors, np.memmap)
    manifest = json.loads((entries[0] / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["shape"] == [len(texts), model.dims] and manifest["model"] == str(models["prompted"])

    def never(done: int, total: int, label: str) -> None:
        raise AssertionError("a cache hit encoded chunks")

    second = DenseScorer.fit(model, texts, tmp_path, never)
    assert isinstance(second.vectors, np.memmap) and np.array_equal(second.vectors, first.vectors)
    assert second.vectors.dtype == np.float32 and not second.notes


def test_the_key_follows_the_model_the_prefix_and_the_texts(models) -> None:
    a, b = load_encoder(str(models["prompted"])), load_encoder(str(models["plain"]))
    texts = ["uno", "due"]
    keys = {embeddings_key(a.identity, "passage: ", texts), embeddings_key(b.identity, "passage: ", texts),
            embeddings_key(a.identity, "", texts), embeddings_key(a.identity, "passage: ", ["uno", "due."]),
            embeddings_key(a.identity, "passage: ", ["unodue", ""])}
    assert len(keys) == 5


@pytest.mark.parametrize("damage", ["garbage vectors", "wrong rows", "nan", "bad manifest", "other key"])
def test_a_corrupt_entry_is_reported_and_rebuilt(models, studio_alfa, tmp_path: Path, damage: str) -> None:
    model = load_encoder(str(models["static"]))
    texts = [c.text for c in studio_alfa.corpus.chunks]
    good = DenseScorer.fit(model, texts, tmp_path).vectors.copy()
    entry = next((tmp_path / "embeddings").iterdir())
    if damage == "garbage vectors":
        (entry / "vectors.npy").write_bytes(b"not an array")
    elif damage == "wrong rows":
        np.save(entry / "vectors.npy", good[:3], allow_pickle=False)
    elif damage == "nan":
        broken = good.copy()
        broken[2, 1] = np.nan
        np.save(entry / "vectors.npy", broken, allow_pickle=False)
    elif damage == "bad manifest":
        (entry / "manifest.json").write_text("{", encoding="utf-8")
    else:
        manifest = json.loads((entry / "manifest.json").read_text(encoding="utf-8"))
        (entry / "manifest.json").write_text(json.dumps({**manifest, "key": "0" * 40}), encoding="utf-8")
    rebuilt = DenseScorer.fit(model, texts, tmp_path)
    assert np.array_equal(rebuilt.vectors, good)
    assert any("embeddings cache" in note and "rebuilt" in note for note in rebuilt.notes)
    again = DenseScorer.fit(model, texts, tmp_path)  # the rebuilt entry is whole again
    assert isinstance(again.vectors, np.memmap) and not again.notes


def test_an_unwritable_cache_is_a_note_not_a_failure(models, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    model = load_encoder(str(models["static"]))
    scorer = DenseScorer.fit(model, ["uno", "due"], blocker)  # embeddings/ cannot be made under a file
    assert scorer.vectors.shape == (2, model.dims)
    assert any("could not save the embeddings cache" in note for note in scorer.notes)
    assert EmbeddingCache(blocker).load("0" * 40, 2) is None


def test_a_folder_that_is_no_model_is_one_line(tmp_path: Path) -> None:
    forget_loaded()
    (tmp_path / "empty").mkdir()
    with pytest.raises(RanklensError, match="cannot load model") as error:
        load_encoder(str(tmp_path / "empty"))
    assert "\n" not in str(error.value)


def test_an_uncached_hub_name_offline_says_how_to_download_it() -> None:
    with pytest.raises(RanklensError) as error:
        load_encoder("ranklens-tests/no-such-model")
    message = str(error.value)
    assert "not in the local model cache" in message and "hf download ranklens-tests/no-such-model" in message


def test_a_query_without_a_corpus_term_still_ranks_by_its_text(models, studio_alfa) -> None:
    query = "quokka zyzzyva"  # no term of the corpus: term scorers have nothing to go on
    corpus = studio_alfa.corpus
    bm25 = studio_alfa.retriever(setup_for(corpus, {"scorer": "bm25"})).search(query)
    assert not bm25.hits and bm25.note == "none of the query's terms occurs in the corpus"
    retriever = dense(studio_alfa, models["prompted"])
    result = retriever.search(query, k=3)
    scores = retriever.scores(retriever.query(query))
    assert [h.index for h in result.hits] == np.argsort(-scores, kind="stable")[:3].tolist()
    fused = studio_alfa.retriever(setup_for(corpus, {"scorer": "fusion", "fuse": "bm25,dense",
                                                     "model": str(models["prompted"])}))
    assert len(fused.search(query, k=3).hits) == 3  # dense's ranking alone, through RRF
    blank = retriever.search("   ")
    assert not blank.hits and blank.note == "no query terms after analysis"


@pytest.mark.parametrize("model", ["static", "prompted"])
def test_eval_equals_trec_eval_on_the_run_file_of_a_dense_setup(models, model: str, capsys, tmp_path: Path) -> None:
    """The one ranking rule for a scorer that gives every chunk a score: every chunk is retrieved, and eval's
    numbers equal trec_eval's on the run of the same setup (tests/test_ranking_rule.py holds the other scorers)."""
    options = ["--scorer", "dense", "--model", str(models[model]), "-k", "1000", "--no-workspace"]
    run_file = tmp_path / "run.txt"
    assert run_cli(capsys, "run", "studio-alfa", *options, "--output", str(run_file)).status == 0
    assert {len(line.split()) for line in run_file.read_text(encoding="utf-8").splitlines()} == {6}
    assert len(run_file.read_text(encoding="utf-8").splitlines()) == 18 * 19  # every chunk of every question
    report = run_cli(capsys, "eval", "studio-alfa", *options, "--json").json
    assert_eval_is_trec_evals(report, run_file, corpus_qrels(load_corpus("studio-alfa").source))
