"""BEIR records read into documents and chunks: the common record (string _id, title and text, no "doc")
is read without checking field by field; every corpus equals the one made directly from its lines, and a
bad record after thousands of common ones is named by its line as any other is."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from ranklens.engine.corpus import Chunk, Document
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.text.termindex import TermIndex
from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.setup import Setup
from tests.support.files import write_jsonl

ALPHABET = "abcdeèéßπж東京🚀 \u0301\t—"


def _text(rng: random.Random) -> str:
    size = rng.choice([0, 0, 1, 5, 40, 3000])  # empty, short and long texts
    return "".join(rng.choices(ALPHABET, k=size))


def records(seed: int, n: int = 600, grouped: bool = False) -> list[dict]:
    rng = random.Random(seed)
    out: list[dict] = []
    for i in range(n):
        record: dict = {"_id": f"r{i}-{rng.choice(ALPHABET)}", "text": _text(rng)}
        if rng.random() < 0.7:
            record["title"] = _text(rng)[:20]
        if grouped and rng.random() < 0.4:
            record["doc"] = f"doc{rng.randrange(20)}"
        if rng.random() < 0.05:
            record["_id"] = 10_000 + i  # a numbered id
        if rng.random() < 0.05:
            record["extra"] = [1, 2]  # a key of its own
        out.append(record)
    return out


def expected(lines: list[dict]) -> tuple[list[Document], list[Chunk]]:
    """The oracle: documents and chunks made directly from the records, as the corpus format describes them."""
    groups: dict[str, list[dict]] = {}
    for record in lines:
        ident = str(record["_id"])
        groups.setdefault(record.get("doc") or ident, []).append({**record, "_id": ident})
    documents, chunks = [], []
    for group, members in groups.items():
        start = word = 0
        for index, record in enumerate(members):
            text = record["text"]
            chunks.append(Chunk(record["_id"], group, index, start, start + len(text), text,
                                word if len(members) > 1 else 0))
            start += len(text) + 1
            word += len(text.split())
        title = members[0].get("title") or (group if len(members) > 1 else "")
        documents.append(Document(group, title, " ".join(r["text"] for r in members)))
    return documents, chunks


def corpus_file(tmp_path: Path, lines: list[dict], name: str = "corpus.jsonl") -> Path:
    path = tmp_path / name
    write_jsonl(path, lines)
    return path


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("grouped", [False, True])
def test_records_make_the_documents_and_chunks_their_lines_describe(tmp_path: Path, seed: int,
                                                                    grouped: bool) -> None:
    lines = records(seed, grouped=grouped)
    corpus = load_corpus(corpus_file(tmp_path, lines), use_cache=False)
    documents, chunks = expected(lines)
    assert list(corpus.documents) == documents
    assert list(corpus.chunks) == chunks


def test_common_records_read_as_records_checked_field_by_field(tmp_path: Path) -> None:
    # "doc": null reads as no "doc", but sends every record through the field-by-field checks
    lines = records(3)
    common = load_corpus(corpus_file(tmp_path, lines, "common.jsonl"), use_cache=False)
    checked = load_corpus(corpus_file(tmp_path, [{**r, "doc": None} for r in lines], "checked.jsonl"),
                          use_cache=False)
    assert (list(common.documents), list(common.chunks), common.settings) == \
        (list(checked.documents), list(checked.chunks), checked.settings)
    analyzer = Analyzer.from_setup(Setup())
    one, other = (TermIndex.build([c.text for c in corpus.chunks], analyzer) for corpus in (common, checked))
    assert (one.counts != other.counts).nnz == 0 and list(one.vocabulary) == list(other.vocabulary)


@pytest.mark.parametrize(("bad", "message"), [
    ({"_id": "r5", "title": "", "text": "again"}, "duplicate _id 'r5'"),
    ({"_id": "x", "title": ""}, "record has no text"),
    ({"_id": "x", "title": "", "text": None}, "'text' must be a string, not null"),
    ({"_id": "x", "title": 3, "text": "t"}, "'title' must be a string, not a number"),
    ({"_id": "x", "text": ["t"]}, "'text' must be a string, not an array"),
    ({"_id": 1.5, "text": "t"}, "'_id' must be a string or a whole number, not a number"),
    ({"title": "", "text": "t"}, "record has no _id"),
    ({"_id": "x", "doc": 4, "text": "t"}, "'doc' must be a string, not a number"),
])
def test_a_bad_record_after_common_ones_is_named_by_its_line(tmp_path: Path, bad: dict, message: str) -> None:
    lines = [{"_id": f"r{i}", "title": "", "text": f"text {i}"} for i in range(3000)]
    path = corpus_file(tmp_path, [*lines, bad])
    with pytest.raises(RanklensError) as error:
        load_corpus(path, use_cache=False)
    assert str(error.value) == f"{path}:3001: {message}"
