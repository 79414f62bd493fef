"""The persisted term index: same results as a fresh build, corrupt entries rebuilt, nothing half-written."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.storage.cache import IndexCache
from ranklens.engine.corpus import Chunk, Corpus, Document
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import run_cli


def corpus_of(texts: list[str]) -> Corpus:
    docs = [Document(f"d{i}", "", t) for i, t in enumerate(texts)]
    return Corpus("mem", docs, [Chunk(d.id, d.id, 0, 0, len(d.text), d.text) for d in docs])


TEXTS = [f"alpha beta {'gamma ' * (i % 4)} delta{i % 7} città" for i in range(60)]


def cached_workbench(root: Path, texts: list[str] = TEXTS) -> tuple[Workbench, IndexCache]:
    cache = IndexCache(root)
    return Workbench(corpus_of(texts), cache, cache_min_chunks=0), cache


def build(root: Path, texts: list[str] = TEXTS, **setup):
    workbench, cache = cached_workbench(root, texts)
    return workbench.retriever(setup_for(workbench.corpus, setup)), cache


def test_reloaded_index_equals_a_fresh_build(tmp_path) -> None:
    first, _ = build(tmp_path)
    second, cache = build(tmp_path)
    assert len(list(tmp_path.iterdir())) == 1
    assert (first.index.counts != second.index.counts).nnz == 0
    assert list(first.index.vocabulary) == list(second.index.vocabulary)
    assert np.array_equal(first.index.doc_len, second.index.doc_len)
    for query in ("gamma città", "delta3 beta"):
        assert np.allclose(first.scores(first.query(query)), second.scores(second.query(query)))
    assert cache.problems == []


def index_of(retriever) -> tuple[list[str], np.ndarray]:
    """What a term index holds, comparable across builds: its terms and chunk x term counts."""
    return list(retriever.index.vocabulary), retriever.index.counts.toarray()


# Each a change of what is indexed: the first text, the last, their order, a split moved between two
# texts, an empty text added, the analysis. Every one must miss the others' entries.
VARIANTS = {
    "as is": (TEXTS, {}),
    "first text": (["something else", *TEXTS[1:]], {}),
    "last text": ([*TEXTS[:-1], "something else"], {}),
    "order": ([TEXTS[1], TEXTS[0], *TEXTS[2:]], {}),
    "split moved": ([TEXTS[0] + TEXTS[1][:5], TEXTS[1][5:], *TEXTS[2:]], {}),
    "empty text added": ([*TEXTS, ""], {}),
    "stop words": (TEXTS, {"stopwords": "it"}),
}


def test_changed_text_or_analysis_misses_the_cache(tmp_path) -> None:
    for texts, setup in VARIANTS.values():
        build(tmp_path, texts, **setup)
    assert len(list(tmp_path.iterdir())) == len(VARIANTS)
    for name, (texts, setup) in VARIANTS.items():  # each read back from the cache is its own fresh build
        cached, cache = build(tmp_path, texts, **setup)
        fresh = Workbench(corpus_of(texts)).retriever(setup_for(corpus_of(texts), setup))
        terms, counts = index_of(cached)
        assert terms == index_of(fresh)[0] and np.array_equal(counts, index_of(fresh)[1]), name
        assert cache.problems == []
    assert len(list(tmp_path.iterdir())) == len(VARIANTS)  # all read back, none written again


def test_lists_of_texts_that_join_alike_have_different_keys() -> None:
    from ranklens.engine.text.analysis import Analyzer
    from ranklens.engine.storage.cache import index_key, texts_key

    alike = [["ab", "c"], ["a", "bc"], ["abc"], ["abc", ""], ["", "abc"], ["a", "", "bc"]]
    assert len({texts_key(["head"], texts) for texts in alike}) == len(alike)
    analyzer = Analyzer.from_setup(setup_for(corpus_of(["x"])))
    assert len({index_key(texts, analyzer) for texts in alike}) == len(alike)


def test_corpora_whose_texts_join_alike_do_not_share_a_cache_entry(tmp_path) -> None:
    # "alpha bet" + "a gamma" and "alpha beta" + " gamma" join to the same text
    first, _ = build(tmp_path, ["alpha bet", "a gamma"])
    second, _ = build(tmp_path, ["alpha beta", " gamma"])
    assert [h.chunk.id for h in first.search("beta").hits] == []
    assert [h.chunk.id for h in second.search("beta").hits] == ["d0"]
    assert len(list(tmp_path.iterdir())) == 2


@pytest.mark.parametrize("damage", ["truncate", "manifest", "missing"])
def test_corrupt_entry_is_reported_and_rebuilt(tmp_path, damage: str) -> None:
    fresh, _ = build(tmp_path)
    (entry,) = tmp_path.iterdir()
    if damage == "truncate":
        path = entry / "indices.npy"
        path.write_bytes(path.read_bytes()[:-8])
    elif damage == "manifest":
        (entry / "manifest.json").write_text("{not json", encoding="utf-8")
    else:
        (entry / "vocab_blob.npy").unlink()
    again, cache = build(tmp_path)
    assert len(cache.problems) == 1 and "rebuilt" in cache.problems[0]
    assert (fresh.index.counts != again.index.counts).nnz == 0
    assert len(list(tmp_path.iterdir())) == 1  # the rebuilt entry replaced the bad one


def test_small_corpora_are_not_cached_by_default(tmp_path) -> None:
    workbench = Workbench(corpus_of(TEXTS), IndexCache(tmp_path))
    workbench.retriever(setup_for(workbench.corpus))
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


def test_index_command_writes_to_the_cache_not_the_corpus(capsys, tmp_path, monkeypatch) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("one two three four five six", encoding="utf-8")
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(cache_dir))
    run = run_cli(capsys, "index", str(folder))
    assert run.status == 0 and "1 chunks" in run.out
    assert [p.name for p in folder.iterdir()] == ["a.txt"]
    assert len(list(cache_dir.iterdir())) == 1


def test_the_workbench_keeps_a_bounded_number_of_chunkings_and_rebuilds_evicted_ones() -> None:
    from ranklens.engine.retriever import MAX_CHUNKINGS

    workbench = Workbench(corpus_of([" ".join(f"w{i + j}" for j in range(40)) for i in range(30)]))
    setups = [setup_for(workbench.corpus, {"size": size, "overlap": 0}) for size in (5, 10, 15, 20, 25)]
    first = workbench.retriever(setups[0])
    for setup in setups[1:]:
        workbench.retriever(setup)
    assert len(workbench._chunkings) == MAX_CHUNKINGS
    assert all(key[0] in workbench._chunkings for key in workbench._term_indexes)
    assert all(key[0] in workbench._term_indexes for key in workbench._scorers)
    again = workbench.retriever(setups[0])  # evicted, so rebuilt: same results, new objects
    assert again.chunks is not first.chunks
    assert [h.chunk.id for h in again.search("w7 w12").hits] == [h.chunk.id for h in first.search("w7 w12").hits]


def test_a_workbench_equals_only_itself_whatever_its_caches_hold() -> None:
    """A cache, not a value: two workbenches on one corpus differ, a copy sharing the caches differs too."""
    corpus = corpus_of(TEXTS)
    workbench, twin = Workbench(corpus), Workbench(corpus)
    assert workbench == workbench and workbench != twin and workbench.with_questions(corpus) != workbench
    assert len({workbench, twin, workbench}) == 2
