"""The recursive chunker against its oracle, langchain-text-splitters' RecursiveCharacterTextSplitter.

The same chunk texts in the same order, each the span [start, end) of the document, on the seeds,
Cranfield abstracts, Markdown, and Hypothesis texts built from the separators, long words and white
space, at many sizes and overlaps (overlap larger than a piece, a word longer than the size, text of
separators only, empty text).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.chunking.cutting import character_windows, chunk_documents
from ranklens.engine.corpus import Document
from tests.support.examples import examples

splitters = pytest.importorskip("langchain_text_splitters")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
WINDOWS = [(1, 0), (2, 1), (5, 0), (5, 4), (17, 3), (40, 39), (100, 0), (100, 20), (250, 60), (1000, 200),
           (4000, 200)]


def langchain(text: str, size: int, overlap: int) -> list[str]:
    return splitters.RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap).split_text(text)


def ours(text: str, size: int, overlap: int) -> list[str]:
    return [text[s.start_char:s.end_char] for s in character_windows(text, size, overlap)]


def real_texts() -> list[tuple[str, str]]:
    texts = [(path.name, path.read_text(encoding="utf-8")) for path in sorted((SHARED / "seeds").glob("*.txt"))]
    cranfield = SHARED / "data" / "cranfield" / "corpus.jsonl"
    if cranfield.exists():
        with cranfield.open(encoding="utf-8") as lines:
            for _, line in zip(range(40), lines):
                record = json.loads(line)
                texts.append((f"cranfield {record['_id']}", record["text"]))
    texts.append(("markdown", MARKDOWN))
    return texts


MARKDOWN = """# Employee handbook

Welcome to the company. This handbook describes **how we work**.

## Leave

Every employee receives 25 days of paid annual leave per year.
Unused days carry over to the next year, up to five days.

### Requests

Ask your manager at least two weeks ahead.\tUse the HR portal.

```
# not a heading
leave --request 5d
```

## Expenses
- travel: economy class
- meals: up to 40 EUR a day
"""


@pytest.mark.parametrize(("name", "text"), real_texts(), ids=lambda v: v if len(v) < 40 else "")
def test_real_documents_are_cut_as_langchain_cuts_them(name: str, text: str) -> None:
    for size, overlap in WINDOWS:
        assert ours(text, size, overlap) == langchain(text, size, overlap), (name, size, overlap)


PIECES = st.sampled_from(["\n\n", "\n", " ", "  ", "\t", "a", "bb", "word", "ünïcødé", "x" * 30, ".", "\u3000",
                          "\r\n", "\n\n\n"])


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(1, 60))
    return size, draw(st.integers(0, size - 1))


@settings(max_examples=examples(400), deadline=None)
@given(pieces=st.lists(PIECES, max_size=40), window=windows())
def test_any_text_of_separators_and_words_is_cut_as_langchain_cuts_it(pieces: list[str],
                                                                      window: tuple[int, int]) -> None:
    text = "".join(pieces)
    assert ours(text, *window) == langchain(text, *window)


@settings(max_examples=examples(200), deadline=None)
@given(text=st.text(max_size=120), window=windows())
def test_any_unicode_is_cut_as_langchain_cuts_it(text: str, window: tuple[int, int]) -> None:
    assert ours(text, *window) == langchain(text, *window)


@pytest.mark.parametrize("text", ["", " ", "\n\n\n", " \n \n\n  "])
def test_empty_text_and_separators_only_make_no_chunk(text: str) -> None:
    assert langchain(text, 10, 2) == ours(text, 10, 2) == []


def test_a_word_longer_than_the_size_is_cut_into_characters_and_an_overlap_larger_than_a_piece() -> None:
    text = "short " + "y" * 23 + " tail words here"
    assert ours(text, 10, 7) == langchain(text, 10, 7)
    assert "yyyyyyyyyy" in ours(text, 10, 7)


def test_chunks_of_documents_carry_their_offsets() -> None:
    doc = Document("d", "", MARKDOWN)
    chunks = chunk_documents([doc], 120, 30, "recursive")
    assert [c.text for c in chunks] == langchain(MARKDOWN, 120, 30)
    assert all(MARKDOWN[c.start:c.end] == c.text for c in chunks)
    assert [c.id for c in chunks[:2]] == ["d#0", "d#1"]
    # the word a chunk starts at, as the chunk command shows it: the words before it
    assert all(c.start_word == len(MARKDOWN[:c.start].split()) for c in chunks)
