"""What a collection's fingerprint says about the chunks it holds: their texts too, digested alike from the
corpus cache's columns and from chunks in memory, and kept once computed for a cached corpus.

Oracles: SHA-1 of the strings' bytes and offsets, joined here by hand; the same corpus read two ways
(parsed, and opened from the corpus cache's columns).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.backends import fingerprint as fingerprints
from ranklens.engine.backends.fingerprint import differences, fingerprint, strings_digest
from ranklens.engine.corpus.cache import CorpusCache
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.corpus.tables import ChunkTable, TextColumn


def write_corpus(folder: Path, records: list[tuple[str, str, str]]) -> Path:
    """A BEIR folder of (id, title, text) records, one question judging the first."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": i, "title": title, "text": text}) + "\n" for i, title, text in records), encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "red apples"}) + "\n", encoding="utf-8")
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / "test.tsv").write_text(f"q1\t{records[0][0]}\t1\n", encoding="utf-8")
    return folder


RECORDS = [("d0", "orchard", "red apples grow"), ("d1", "città", "green pears fall"), ("d2", "", "blue sky rain")]


def test_a_digest_is_sha1_of_the_strings_bytes_then_where_each_ends() -> None:
    strings = ["rimborso", "", "città", "x"]
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.cumsum([0, *map(len, encoded)]).astype("<i8")
    expected = hashlib.sha1(b"".join(encoded) + offsets.tobytes()).hexdigest()
    assert strings_digest(strings) == expected
    assert strings_digest(TextColumn(b"".join(encoded), offsets.astype(np.int64))) == expected  # a cache column
    assert strings_digest(["rimbor", "so", "città", "x"]) != expected  # the same bytes cut elsewhere


@pytest.mark.parametrize("index_title", [False, True])
def test_a_corpus_parsed_and_the_same_from_the_corpus_cache_have_one_fingerprint(tmp_path, index_title) -> None:
    folder = write_corpus(tmp_path / "c", RECORDS)
    parsed = load_corpus(folder, use_cache=False)
    cached = load_corpus(folder, cache=CorpusCache(tmp_path / "cache", min_bytes=0))
    assert isinstance(cached.chunks, ChunkTable) and not isinstance(parsed.chunks, ChunkTable)
    setting = {"scorer": "bm25", "index_title": index_title}
    of_parsed, of_cached = (fingerprint(Workbench(c).retriever(setup_for(c, setting))) for c in (parsed, cached))
    assert of_cached == of_parsed
    assert ("titles" in of_parsed) is index_title


def test_a_cached_corpus_texts_are_digested_once(tmp_path, monkeypatch) -> None:
    folder = write_corpus(tmp_path / "c", RECORDS)
    cached = load_corpus(folder, cache=CorpusCache(tmp_path / "cache", min_bytes=0))
    retriever = Workbench(cached).retriever(setup_for(cached, {"scorer": "bm25", "index_title": True}))
    first = fingerprint(retriever)

    def again(strings: object) -> str:
        raise AssertionError("digested again")

    monkeypatch.setattr(fingerprints, "strings_digest", again)
    assert fingerprint(retriever) == first


@pytest.mark.parametrize("edit, said", [
    (lambda r: [(r[0][0], r[0][1], "red apples fall"), (r[1][0], r[1][1], "green pears grow"), r[2]],
     "the chunks' texts differ"),
    (lambda r: [(r[0][0], "città", r[0][2]), (r[1][0], "orchard", r[1][2]), r[2]], "the documents' titles differ"),
])
def test_texts_edited_under_the_same_ids_and_vocabulary_are_a_difference(tmp_path, edit, said) -> None:
    def of(records: list[tuple[str, str, str]]) -> dict:
        corpus = load_corpus(write_corpus(tmp_path / "c", records), use_cache=False)
        return fingerprint(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25", "index_title": True})))

    pushed, edited = of(RECORDS), of(edit(RECORDS))
    assert (edited["chunk_ids"], edited["vocabulary"]) == (pushed["chunk_ids"], pushed["vocabulary"])
    assert differences(pushed, edited) == [f"it was pushed from an older corpus ({said} from those of 'c' here: "
                                           "push it again with --replace)"]
