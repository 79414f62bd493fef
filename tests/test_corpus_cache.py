"""The corpus kept in the cache: the same corpus and the same numbers as parsing, and never a stale one.

The oracle is the loader's parse of the files (``use_cache=False``) and a workbench with no
cache on disk: a cached open must equal them row for row and score for score.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.storage.cache import IndexCache
from ranklens.engine.corpus import Corpus
from ranklens.engine.corpus.cache import CorpusCache
from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.corpus.tables import ChunkTable, DocumentTable
from tests.support.examples import examples
from tests.support.files import beir_folder

LONG = " ".join(f"parola{i % 997} città" for i in range(6_000))


def generated(folder: Path) -> Path:
    """Unicode in every field, empty texts, a long document, passages grouped by "doc", a judgment of
    non-relevance and a query with fields of its own."""
    records = [
        {"_id": "u1", "title": "Caffè ☕", "text": "naïve café — 東京 タワー 🚀 über Straße"},
        {"_id": "empty", "title": "", "text": ""},
        {"_id": 7, "title": "Numbered", "text": "a record whose id is a number"},
        {"_id": "long", "title": "Long", "text": LONG},
        {"_id": "p1", "doc": "manual", "text": "first passage of the manual, città"},
        {"_id": "p2", "doc": "manual", "text": ""},
        {"_id": "p3", "doc": "manual", "text": "third passage: combining e\u0301 and ß"},
        {"_id": "z", "title": "Zed", "text": "the last record 東京"},
    ]
    queries = [
        {"_id": "q1", "text": "東京 città"},
        {"_id": "q2", "text": "passage manual", "answer": "third passage"},
        {"_id": "q3", "text": "über café", "tags": ["short", "ünïcode"], "metadata": {"len": 2}},
        {"_id": "q4", "text": "nothing matches this"},
    ]
    qrels = "q1\tz\t2\nq1\tlong\t1\nq2\tmanual\t1\nq3\tu1\t3\nq3\tempty\t0\n"  # a 0: judged not relevant
    return beir_folder(folder, records, queries, qrels)


def ungrouped(folder: Path) -> Path:
    """Every record a document of its own (the records the cache is written from as they are read): Unicode,
    empty texts and titles, a long text, ids of every length and script (one holding a NUL, one longer than
    numpy's sort takes), a number for an id, an English text for the language guess."""
    records = [
        {"_id": "u1", "title": "Caffè ☕", "text": "naïve café — 東京 タワー 🚀 über Straße"},
        {"_id": "empty", "title": "", "text": ""},
        {"_id": 7, "title": "Numbered", "text": "a record whose id is a number"},
        {"_id": "long", "text": LONG},
        {"_id": "é", "title": None, "text": "the id sorts after every ASCII one, and the title is null"},
        {"_id": "a\u0000b", "text": "an id holding a NUL"},
        {"_id": "x" * 80, "text": "an id longer than the fixed-width sort takes"},
        {"_id": "[/] [bold]x", "title": "[TODO] a", "text": "markup \x1b[31m in every field of the house"},
        {"_id": "z", "title": "Zed", "text": "the last record 東京 and the end of it"},
    ]
    queries = [{"_id": "q1", "text": "東京 città"}, {"_id": "q2", "text": "house markup"}]
    return beir_folder(folder, records, queries, "q1\tz\t2\nq1\tlong\t1\nq2\t[/] [bold]x\t1\nq2\tempty\t0\n")


def cached(path: Path | str, root: Path) -> Corpus:
    return load_corpus(path, cache=CorpusCache(root, min_bytes=0))


@pytest.fixture(params=["studio-alfa", "battery", "bateria", "generated", "ungrouped", "a lone .jsonl"])
def source(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "generated":
        return generated(tmp_path / "generated")
    if request.param == "ungrouped":
        return ungrouped(tmp_path / "ungrouped")
    if request.param == "a lone .jsonl":
        return ungrouped(tmp_path / "ungrouped") / "corpus.jsonl"
    return Path(load_corpus(request.param, use_cache=False).source)


def test_a_cached_open_equals_the_parse(source: Path, tmp_path: Path) -> None:
    parsed = load_corpus(source, use_cache=False)
    first, second = cached(source, tmp_path / "cache"), cached(source, tmp_path / "cache")
    for corpus in (first, second):
        assert isinstance(corpus.chunks, ChunkTable) and isinstance(corpus.documents, DocumentTable)
        assert corpus.chunks == parsed.chunks and tuple(corpus.chunks) == tuple(parsed.chunks)
        assert corpus.documents == parsed.documents
        assert corpus.questions == parsed.questions
        assert (corpus.settings, corpus.warnings, corpus.language_detected, corpus.name) == \
            (parsed.settings, parsed.warnings, parsed.language_detected, parsed.name)
        for document in parsed.documents:
            assert corpus.document(document.id) == document
    assert second.fingerprint == first.fingerprint != ""


@pytest.mark.parametrize("overrides", [{"scorer": "bm25"}, {"scorer": "tfidf", "sublinear_tf": True},
                                       {"scorer": "bm25", "bm25_variant": "bm25l"}, {"scorer": "lsa", "dims": 2},
                                       {"scorer": "bm25", "size": 5, "overlap": 1}])
def test_cached_and_uncached_give_the_same_numbers(source: Path, tmp_path: Path, overrides: dict) -> None:
    parsed = load_corpus(source, use_cache=False)
    plain = Workbench(parsed, None).retriever(setup_for(parsed, overrides))
    for _ in range(2):  # built and kept, then read back with the weights kept beside the index
        corpus = cached(source, tmp_path / "cache")
        retriever = Workbench(corpus, IndexCache(tmp_path / "cache"), cache_min_chunks=0).retriever(
            setup_for(corpus, overrides))
        for question in parsed.questions:
            assert np.array_equal(retriever.scores(retriever.query(question.text)),
                                  plain.scores(plain.query(question.text)))
            assert retriever.search(question.text).to_dict(corpus) == plain.search(question.text).to_dict(parsed)
        if parsed.answerable:
            assert retriever.evaluate().metrics == plain.evaluate().metrics
    if overrides.get("scorer") in ("bm25", "tfidf") and "size" not in overrides:
        assert list((tmp_path / "cache").glob(f"*/{overrides['scorer']}-*/data.npy")), "weights were not kept"


def test_tables_behave_as_tuples(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    parsed, corpus = load_corpus(folder, use_cache=False), cached(folder, tmp_path / "cache")
    chunks, documents = tuple(parsed.chunks), tuple(parsed.documents)
    assert len(corpus.chunks) == len(chunks) and len(corpus.documents) == len(documents)
    assert corpus.chunks[-1] == chunks[-1] and corpus.chunks[2:5] == chunks[2:5]
    assert corpus.chunks[::-2] == chunks[::-2] and corpus.documents[1:3] == documents[1:3]
    with pytest.raises(IndexError):
        corpus.chunks[len(chunks)]
    assert "manual" in corpus.documents_by_id and "nope" not in corpus.documents_by_id
    assert corpus.documents_by_id["manual"].text == documents[4].text
    with pytest.raises(KeyError):
        corpus.document("nope")


def test_chunks_by_document_row_by_row_are_those_looked_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ranklens.engine.corpus.tables as tables

    monkeypatch.setattr(tables, "_ITER_RUN", 2)  # several runs of ids
    folder = generated(tmp_path / "g")
    parsed, corpus = load_corpus(folder, use_cache=False), cached(folder, tmp_path / "cache")
    expected: dict[str, list[int]] = {}
    for position, chunk in enumerate(parsed.chunks):
        expected.setdefault(chunk.doc_id, []).append(position)
    by_document = corpus.documents.chunks_by_document()
    items = list(by_document.items())
    assert [(d, list(p)) for d, p in items] == list(expected.items())  # in document order
    assert all(by_document[d] == p for d, p in items) and list(by_document) == list(expected)


def test_small_corpora_are_parsed_not_cached(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    corpus = load_corpus(folder, cache=CorpusCache(tmp_path / "cache"))  # the default threshold: 16 MB
    assert isinstance(corpus.chunks, tuple) and not (tmp_path / "cache").exists()


def _search_ids(corpus: Corpus, root: Path, text: str) -> list[str]:
    retriever = Workbench(corpus, IndexCache(root), cache_min_chunks=0).retriever(setup_for(corpus, {}))
    return [hit.chunk.id for hit in retriever.search(text).hits]


def _keep_time(path: Path, change) -> None:
    """Apply ``change`` to ``path`` and give it back its modification time: only its content tells."""
    stat = path.stat()
    change()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_changed_byte_is_read_again_and_reindexed(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    root = tmp_path / "cache"
    assert _search_ids(cached(folder, root), root, "tawer") == []
    records = folder / "corpus.jsonl"
    _keep_time(records, lambda: records.write_bytes(records.read_bytes().replace("タワー".encode(), b"tawer    ")))
    corpus = cached(folder, root)
    assert corpus.warnings == ("g: corpus.jsonl changed since it was cached; read again and re-indexed",)
    assert corpus.chunks == load_corpus(folder, use_cache=False).chunks
    assert _search_ids(corpus, root, "tawer") == ["u1"]  # the new text, indexed again: no stale index
    assert cached(folder, root).warnings == ()  # the note once; the new entry is then current


@pytest.mark.parametrize("change", ["queries", "qrels added", "toml added"])
def test_a_changed_question_file_is_read_again(tmp_path: Path, change: str) -> None:
    folder = generated(tmp_path / "g")
    root = tmp_path / "cache"
    cached(folder, root)
    if change == "queries":
        path = folder / "queries.jsonl"
        _keep_time(path, lambda: path.write_bytes(path.read_bytes().replace(b"nothing", b"Nothing")))
    elif change == "qrels added":
        (folder / "qrels" / "dev.tsv").write_text("q4\tz\t1\n", encoding="utf-8")
    else:
        (folder / "ranklens.toml").write_text("k = 3\n", encoding="utf-8")
    corpus = cached(folder, root)
    assert "read again" in corpus.warnings[-1]
    parsed = load_corpus(folder, use_cache=False)
    assert (corpus.questions, corpus.settings) == (parsed.questions, parsed.settings)


def test_two_swapped_files_of_equal_size_are_told_apart(tmp_path: Path) -> None:
    one = beir_folder(tmp_path / "one", [{"_id": "a", "text": "apple pie"}])
    two = beir_folder(tmp_path / "two", [{"_id": "a", "text": "pecan pie"}])
    root = tmp_path / "cache"
    assert _search_ids(cached(one, root), root, "apple") == ["a"]
    assert _search_ids(cached(two, root), root, "pecan") == ["a"]
    a, b = one / "corpus.jsonl", two / "corpus.jsonl"
    times = a.stat().st_mtime_ns
    os.utime(b, ns=(times, times))  # equal sizes, equal times: only the digest differs
    a.rename(tmp_path / "swap")
    b.rename(a)
    (tmp_path / "swap").rename(b)
    swapped = cached(one, root)
    assert "corpus.jsonl changed since it was cached" in swapped.warnings[-1]
    assert swapped.chunks[0].text == "pecan pie"
    assert _search_ids(swapped, root, "pecan") == ["a"] and _search_ids(swapped, root, "apple") == []


@pytest.mark.parametrize("damage", ["truncate texts", "truncate offsets", "manifest", "missing questions"])
def test_a_damaged_cache_is_read_again(tmp_path: Path, damage: str) -> None:
    folder = generated(tmp_path / "g")
    root = tmp_path / "cache"
    cached(folder, root)
    (entry,) = root.glob("corpus-*")
    if damage == "truncate texts":
        path = entry / "texts.bin"
        path.write_bytes(path.read_bytes()[:-3])
    elif damage == "truncate offsets":
        path = entry / "texts_offsets.npy"
        path.write_bytes(path.read_bytes()[:-8])
    elif damage == "manifest":
        (entry / "manifest.json").write_text("{not json", encoding="utf-8")
    else:
        (entry / "questions.json").unlink()
    corpus = cached(folder, root)
    assert len(corpus.warnings) == 1 and "corpus cache unreadable" in corpus.warnings[0]
    assert "\n" not in corpus.warnings[0]
    parsed = load_corpus(folder, use_cache=False)
    assert corpus.chunks == parsed.chunks and corpus.questions == parsed.questions
    assert cached(folder, root).warnings == ()


def test_an_unwritable_cache_still_opens_the_corpus(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    corpus = cached(folder, blocker)
    assert corpus.chunks == load_corpus(folder, use_cache=False).chunks
    assert corpus.warnings[-1].startswith("could not cache the corpus in")


@pytest.mark.parametrize("scorer", ["bm25", "tfidf"])
def test_damaged_kept_weights_are_made_again(tmp_path: Path, scorer: str) -> None:
    folder = generated(tmp_path / "g")
    root = tmp_path / "cache"
    parsed = load_corpus(folder, use_cache=False)
    plain = Workbench(parsed, None).retriever(setup_for(parsed, {"scorer": scorer}))

    def kept():
        corpus = cached(folder, root)
        return Workbench(corpus, IndexCache(root), cache_min_chunks=0).retriever(setup_for(corpus, {"scorer": scorer}))

    kept()
    (data,) = root.glob(f"*/{scorer}-*/data.npy")
    data.write_bytes(data.read_bytes()[:-16])
    again = kept()
    for question in parsed.questions:
        assert np.array_equal(again.scores(again.query(question.text)), plain.scores(plain.query(question.text)))
    assert data.stat().st_size > 0 and kept().search("città").hits == again.search("città").hits


def test_chunks_by_document_reads_the_columns(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    corpus = cached(folder, tmp_path / "cache")
    assert isinstance(corpus.documents, DocumentTable)
    grouped = corpus.documents.chunks_by_document()
    expected: dict[str, list[int]] = {}
    for position, chunk in enumerate(load_corpus(folder, use_cache=False).chunks):
        expected.setdefault(chunk.doc_id, []).append(position)
    assert list(grouped) == list(expected) and len(grouped) == len(expected)
    assert {k: list(v) for k, v in grouped.items()} == expected
    assert "manual" in grouped and "p2" not in grouped


@pytest.mark.parametrize("where", ["folder", "lone file"])
def test_ungrouped_records_stream_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    from ranklens.engine.corpus import loaders

    folder = ungrouped(tmp_path / "u")
    source = folder if where == "folder" else folder / "corpus.jsonl"
    parsed = load_corpus(source, use_cache=False)

    def refused(*args: object) -> None:
        raise AssertionError("read whole, with an object per record")

    monkeypatch.setattr(loaders, "_load", refused)
    corpus = cached(source, tmp_path / "cache")
    assert corpus.chunks == parsed.chunks and corpus.documents == parsed.documents
    assert corpus.questions == parsed.questions and len(corpus.questions) == (2 if where == "folder" else 0)
    assert [corpus.document(d.id) for d in parsed.documents] == list(parsed.documents)  # the id order's lookups


def test_a_cancel_while_streaming_leaves_no_entry(tmp_path: Path) -> None:
    def cancel_when_loading(done: int, total: int, label: str) -> None:
        if label == "loading":
            raise Cancelled

    folder = ungrouped(tmp_path / "u")
    with pytest.raises(Cancelled):
        load_corpus(folder, cancel_when_loading, cache=CorpusCache(tmp_path / "cache", min_bytes=0))
    assert not list((tmp_path / "cache").iterdir())
    assert isinstance(cached(folder, tmp_path / "cache").chunks, ChunkTable)


def test_a_bad_record_while_streaming_is_named_and_leaves_no_entry(tmp_path: Path) -> None:
    from ranklens.engine.errors import RanklensError

    folder = ungrouped(tmp_path / "u")
    with (folder / "corpus.jsonl").open("a", encoding="utf-8") as out:
        out.write('{"_id": "u1", "text": "a second u1"}\n')
    with pytest.raises(RanklensError, match=r"corpus.jsonl:10: duplicate _id 'u1'"):
        cached(folder, tmp_path / "cache")
    assert not list((tmp_path / "cache").iterdir())


def test_a_cancel_while_caching_leaves_no_entry(tmp_path: Path) -> None:
    def cancel_when_caching(done: int, total: int, label: str) -> None:
        if label == "caching the corpus":
            raise Cancelled

    with pytest.raises(Cancelled):
        load_corpus(generated(tmp_path / "g"), cancel_when_caching, cache=CorpusCache(tmp_path / "cache", min_bytes=0))
    assert not list((tmp_path / "cache").iterdir())
    assert isinstance(cached(tmp_path / "g", tmp_path / "cache").chunks, ChunkTable)  # the next open caches it


def test_digests_are_each_files_sha1_and_stop_when_abandoned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    import threading

    import ranklens.engine.corpus.sources as sources

    folder = generated(tmp_path / "g")
    stats = sources.stat_sources(folder)
    described = sources.with_digests(folder, stats)
    assert [{k: v for k, v in s.items() if k != "digest"} for s in described] == stats
    for entry in described:
        expected = hashlib.sha1((folder / entry["name"]).read_bytes()).hexdigest() if entry["size"] >= 0 else None
        assert entry.get("digest") == expected
    monkeypatch.setattr(sources, "_READ", 64)  # many reads per file: it stops at the next one
    abandoned = threading.Event()
    abandoned.set()
    with pytest.raises(sources.Abandoned):
        sources.with_digests(folder, stats, abandoned)


@pytest.mark.parametrize("size", [0, 1, 999, 1000, 1001, 4321])
def test_a_large_files_digest_is_the_sha1_of_its_parts_sha1s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            size: int) -> None:
    import hashlib

    import ranklens.engine.corpus.sources as sources

    monkeypatch.setattr(sources, "_PART", 1000)
    monkeypatch.setattr(sources, "_READ", 300)  # reads that cut the parts anywhere
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    (tmp_path / "f").write_bytes(data)
    parts = [data[i:i + 1000] for i in range(0, size, 1000)]
    whole = hashlib.sha1(data).hexdigest()
    expected = whole if len(parts) <= 1 else hashlib.sha1(b"".join(hashlib.sha1(p).digest() for p in parts)).hexdigest()
    assert sources.digest(tmp_path / "f") == expected
    changed = bytearray(data or b"x")
    changed[-1] ^= 1  # a byte of the last part
    (tmp_path / "f").write_bytes(bytes(changed))
    assert sources.digest(tmp_path / "f") != expected


def test_a_failed_cold_open_abandons_the_digests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ranklens.engine.corpus.sources as sources

    seen: list[bool] = []

    def digest(file: Path, abandoned) -> str:
        abandoned.wait(30)  # a big file still being read when the open fails
        seen.append(abandoned.is_set())
        raise sources.Abandoned

    monkeypatch.setattr(sources, "digest", digest)
    bad = generated(tmp_path / "g")
    with (bad / "corpus.jsonl").open("a", encoding="utf-8") as out:
        out.write("{not json}\n")
    with pytest.raises(RanklensError, match="corpus.jsonl:"):
        load_corpus(bad, cache=CorpusCache(tmp_path / "cache", min_bytes=0))
    assert seen == [True]


@settings(max_examples=examples(200), deadline=None)
@given(ids=st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=9)
                    | st.text(alphabet="ab\x00é東", max_size=4), unique=True, max_size=30),
       long=st.booleans())
def test_the_id_order_is_pythons(ids: list[str], long: bool) -> None:
    from ranklens.engine.corpus.cache import id_order
    from ranklens.engine.corpus.tables import TextColumn

    if long and ids:
        ids[0] = ids[0] * 20 + "x" * 70  # past the fixed-width sort
    encoded = [i.encode() for i in ids]
    column = TextColumn(b"".join(encoded), np.concatenate([[0], np.cumsum([len(e) for e in encoded])]).astype(np.int64))
    assert [ids[row] for row in id_order(column)] == sorted(ids)


@pytest.mark.parametrize("with_title", [True, False])
def test_the_indexed_texts_are_read_from_the_columns(source: Path, tmp_path: Path, with_title: bool) -> None:
    from ranklens.engine.corpus.tables import index_texts

    parsed = load_corpus(source, use_cache=False)
    expected = list(Workbench(parsed, None).index_texts(parsed.chunks, with_title))
    corpus = cached(source, tmp_path / "cache")
    texts = index_texts(corpus.documents, with_title)
    assert not isinstance(texts, list) and len(texts) == len(expected)
    assert list(texts) == expected and texts[1:4] == expected[1:4] and texts[::-3] == expected[::-3]
    assert texts[-1] == expected[-1] and texts[0] == expected[0]
