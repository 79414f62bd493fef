"""Search hits from a cached corpus: chunks that read their fields from the columns when asked.

The oracle is the loader's parse of the same files (``use_cache=False``): a ``StoredChunk`` must
be that eager ``Chunk`` to every caller, field by field, with Unicode, empty texts and passages
grouped by document.
"""
from __future__ import annotations

import copy
import dataclasses
import operator
import pickle
from pathlib import Path

import pytest

from ranklens.engine.storage.cache import IndexCache
from ranklens.engine.corpus import Chunk
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.corpus.stored_chunk import StoredChunk
from ranklens.engine.corpus.tables import ChunkTable, take
from tests.test_corpus_cache import cached, generated

FIELDS = [f.name for f in dataclasses.fields(Chunk)]


def test_a_stored_chunk_is_the_eager_chunk_field_by_field(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    parsed, corpus = load_corpus(folder, use_cache=False), cached(folder, tmp_path / "cache")
    table = corpus.chunks
    assert isinstance(table, ChunkTable)
    rows = [*range(len(table) - 1, -1, -1), 0]  # every row, backwards, and one twice
    stored = table.take(rows)
    for row, chunk in zip(rows, stored):
        eager = parsed.chunks[row]
        assert isinstance(chunk, StoredChunk) and isinstance(chunk, Chunk)
        assert [getattr(chunk, name) for name in FIELDS] == [getattr(eager, name) for name in FIELDS]
        assert chunk == eager and eager == chunk and operator.ne(chunk, eager) is False and chunk == table[row]
        assert hash(chunk) == hash(eager) and len({chunk, eager}) == 1
        assert repr(chunk) == repr(eager) and dataclasses.astuple(chunk) == dataclasses.astuple(eager)
        for made in (pickle.loads(pickle.dumps(chunk)), copy.copy(chunk), copy.deepcopy(chunk)):
            assert type(made) is Chunk and made == eager
        changed = dataclasses.replace(chunk, text="changed")
        assert type(changed) is Chunk and changed == dataclasses.replace(eager, text="changed")
        with pytest.raises(AttributeError):
            chunk.id = "other"  # type: ignore[misc]
    assert stored[0] != stored[1] and stored[0] != parsed.chunks[0] and stored[-1] == stored[len(table) - 1]
    texts = [chunk.text for chunk in stored]
    assert "" in texts and any("東京" in text for text in texts) and any(c.index == 2 for c in stored)
    assert table.take([-1]) == [parsed.chunks[-1]] and take(parsed.chunks, [2, 0]) == [parsed.chunks[2],
                                                                                          parsed.chunks[0]]
    with pytest.raises(IndexError):
        table.take([len(table)])


def test_hits_from_the_cache_are_the_parses_hits(tmp_path: Path) -> None:
    folder = generated(tmp_path / "g")
    parsed, corpus = load_corpus(folder, use_cache=False), cached(folder, tmp_path / "cache")
    plain = Workbench(parsed, None).retriever(setup_for(parsed, {}))
    kept = Workbench(corpus, IndexCache(tmp_path / "cache"), cache_min_chunks=0).retriever(setup_for(corpus, {}))
    for text in ("東京 città", "passage manual", "über café", "record"):
        got, want = kept.search(text).hits, plain.search(text).hits
        assert got and all(isinstance(hit.chunk, StoredChunk) for hit in got)
        assert got == want and [hit.chunk.text for hit in got] == [hit.chunk.text for hit in want]
