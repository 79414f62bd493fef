"""Judged ids found in the cached corpus' columns without making every chunk: against dictionaries of the
same rows, and the judgments of a cached corpus against those of its parse."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ranklens.engine.corpus import Question
from ranklens.engine.judging.positions import ChunkJudge
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.corpus.tables import ChunkTable, TextColumn
from tests.test_corpus_cache import cached, generated

from tests.support.examples import examples


def column(values: list[str]) -> TextColumn:
    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return TextColumn(b"".join(encoded), offsets)


HOSTILE = ["", "a", "a\x00", "\x00a", "ab", "b\x00\x00", "東京", "e\u0301", "[/]", "d1", "d10", "d1 ", "\x1b[31m"]


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(st.sampled_from(HOSTILE) | st.text(max_size=6), max_size=40),
       asked=st.lists(st.sampled_from(HOSTILE) | st.text(max_size=6), max_size=10))
def test_rows_of_finds_each_strings_first_row(values: list[str], asked: list[str]) -> None:
    first: dict[str, int] = {}
    for row, value in enumerate(values):
        first.setdefault(value, row)
    assert column(values).rows_of(asked) == {a: first[a] for a in asked if a in first}


@settings(max_examples=examples(300), deadline=None)
@given(values=st.lists(st.sampled_from(HOSTILE) | st.text(max_size=6), max_size=30),
       start=st.integers(-35, 35), stop=st.integers(-35, 35) | st.none(), step=st.sampled_from([1, 1, 2, -1, -3]))
@example(values=["ab", "cd", "e", "東京", "f"], start=1, stop=3, step=1)  # an ASCII run after the first string
@example(values=["ab", "東京", "f"], start=1, stop=None, step=1)  # a run with a non-ASCII string
def test_a_slice_of_a_column_is_the_lists(values: list[str], start: int, stop: int | None, step: int) -> None:
    # a run of ASCII strings is decoded at once and cut by offsets, any other one string at a time
    assert column(values)[start:stop:step] == values[start:stop:step]


def test_rows_of_scans_a_long_column_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    import ranklens.engine.corpus.tables as tables

    monkeypatch.setattr(tables, "_SCAN_BYTES", 16)  # several parts of each length
    values = [f"d{i}" for i in range(5000)]
    asked = ["d0", "d4999", "d777", "d5000", "x"]
    assert column(values).rows_of(asked) == {"d0": 0, "d4999": 4999, "d777": 777}


@pytest.mark.parametrize("name", ["studio-alfa", "generated"])
def test_a_cached_corpus_is_judged_as_its_parse(name: str, tmp_path: Path) -> None:
    source = generated(tmp_path / "generated") if name == "generated" else Path(load_corpus(name).source)
    parsed, stored = load_corpus(source, use_cache=False), cached(source, tmp_path / "cache")
    ids = [c.id for c in parsed.chunks] + [d.id for d in parsed.documents] + ["missing"]
    questions = [*parsed.questions,
                 *(Question(f"x{i}", "t", {ident: 1 + i % 3}, nonrelevant=frozenset(ids[i + 1:i + 2]))
                   for i, ident in enumerate(ids))]
    assert isinstance(stored.chunks, ChunkTable)  # the columns' path, not dictionaries of every chunk
    eager = ChunkJudge(list(parsed.chunks))
    for judge in (ChunkJudge(stored.chunks, stored.questions), ChunkJudge(stored.chunks)):
        for question in questions:
            assert judge.judged(question) == eager.judged(question), question
            assert judge.relevant(question) == eager.relevant(question), question


def test_a_pushs_payloads_from_the_columns_are_the_chunks_fields(tmp_path: Path) -> None:
    from ranklens.engine.backends.qdrant.vectors import payloads

    source = generated(tmp_path / "generated")
    stored, parsed = cached(source, tmp_path / "cache"), load_corpus(source, use_cache=False)
    assert isinstance(stored.chunks, ChunkTable)
    n = len(stored.chunks)
    for start, stop in ((0, n), (1, 3), (n - 1, n), (2, 2)):
        expected = [{"chunk_id": c.id, "doc_id": c.doc_id, "text": c.text} for c in parsed.chunks[start:stop]]
        assert payloads(stored.chunks, start, stop) == payloads(list(parsed.chunks), start, stop) == expected
