"""Chunking: seed 004's table and printed lines, then properties of the windows."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.chunking.cutting import (
    Span,
    chunk_documents,
    contains_answer,
    sentence_windows,
    word_windows,
)
from ranklens.engine.corpus import Document
from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from tests.support.examples import examples
from tests.support.seeds import seed_chunk

ANSWER = "entro cinque giorni dalla notifica di scarto"


@pytest.fixture(scope="module")
def testo() -> str:
    """Seed 004: the first two passages of the invoices document, joined with a space."""
    fatture = [c for c in load_corpus("studio-alfa").chunks if c.doc_id == "fatture"]
    return " ".join(c.text for c in fatture[:2])


def texts(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start_char:s.end_char] for s in spans]


def test_the_seed_text_has_51_words(testo: str) -> None:
    assert len(testo.split()) == 51


@pytest.mark.parametrize(
    ("size", "overlap", "count", "whole"),
    [(20, 0, 3, False), (20, 8, 4, True), (40, 0, 2, False), (40, 10, 2, True)],
)
def test_seed_table(testo: str, size: int, overlap: int, count: int, whole: bool) -> None:
    spans = word_windows(testo, size, overlap)
    pieces = texts(testo, spans)
    assert len(pieces) == count
    assert any(ANSWER in p for p in pieces) is whole
    assert any(contains_answer(p, ANSWER) for p in pieces) is whole
    # the windows themselves, not only how many: each starts size - overlap words after the last
    assert pieces == seed_chunk(testo, size, overlap)
    assert [s.start_word for s in spans] == list(range(0, count * (size - overlap), size - overlap))
    words = testo.split()
    assert [p.split()[0] for p in pieces] == [words[s.start_word] for s in spans]


def test_seed_printed_lines(testo: str) -> None:
    no_overlap = texts(testo, word_windows(testo, 20, 0))[1:]
    with_overlap = texts(testo, word_windows(testo, 20, 8))[1:3]
    printed = [f"no overlap > {p}" for p in no_overlap] + [f"with overlap 8 > {p}" for p in with_overlap]
    assert printed == [
        "no overlap > il codice destinatario prima dell'invio. Una fattura scartata dal sistema di "
        "interscambio va corretta e rinviata entro cinque giorni dalla",
        "no overlap > notifica di scarto, mantenendo lo stesso numero e la stessa data.",
        "with overlap 8 > dodici giorni dalla data dell'operazione. L'ufficio amministrativo controlla il "
        "codice destinatario prima dell'invio. Una fattura scartata dal sistema di interscambio",
        "with overlap 8 > dell'invio. Una fattura scartata dal sistema di interscambio va corretta e "
        "rinviata entro cinque giorni dalla notifica di scarto, mantenendo",
    ]


def test_chunk_document_ids_offsets_and_start_words(testo: str) -> None:
    doc = Document("fatture", "fatture", testo)
    chunks = chunk_documents([doc], 20, 8)
    assert [c.id for c in chunks] == ["fatture#0", "fatture#1", "fatture#2", "fatture#3"]
    assert [c.index for c in chunks] == [0, 1, 2, 3]
    assert [c.start_word for c in chunks] == [0, 12, 24, 36]
    assert all(c.doc_id == "fatture" and c.text == testo[c.start:c.end] for c in chunks)
    assert [c.text for c in chunks] == seed_chunk(testo, 20, 8)


def test_offsets_keep_the_text_as_it_stands() -> None:
    text = "  one\ttwo\n\nthree   four five "
    spans = word_windows(text, 3, 1)
    assert texts(text, spans) == ["one\ttwo\n\nthree", "three   four five"]
    assert [(s.start_word, s.end_word) for s in spans] == [(0, 3), (2, 5)]


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_blank_text_has_no_chunks(text: str) -> None:
    assert word_windows(text, 5, 0) == []
    assert sentence_windows(text, 5, 0) == []
    assert chunk_documents([Document("d", "", text)], 5, 0, "sentences") == []


@pytest.mark.parametrize(
    ("size", "overlap", "message"),
    [
        (20, 20, "overlap 20 must be smaller than size 20"),
        (5, 9, "overlap 9 must be smaller than size 5"),
        (0, 0, "size must be at least 1 (got 0)"),
        (5, -1, "overlap must be at least 0 (got -1)"),
    ],
)
def test_bad_options_raise(size: int, overlap: int, message: str) -> None:
    for windows in (word_windows, sentence_windows):
        with pytest.raises(RanklensError) as error:
            windows("some words here", size, overlap)
        assert str(error.value) == message
    with pytest.raises(RanklensError):
        chunk_documents([], size, overlap)


def test_unknown_method_raises() -> None:
    with pytest.raises(RanklensError, match="unknown chunker 'pages'"):
        chunk_documents([Document("d", "", "text")], 5, 0, method="pages")


def test_contains_answer_ignores_white_space() -> None:
    assert contains_answer("entro cinque\n giorni  dalla notifica", "cinque giorni dalla")
    assert contains_answer("a b", " a \t b ")
    assert not contains_answer("entro cinque giorni", "cinque giorni dalla")
    assert not contains_answer("anything", "  ")


def test_sentence_windows_pack_whole_sentences() -> None:
    text = "One two three. Four five six seven! Eight nine? Ten eleven twelve thirteen fourteen fifteen. End."
    assert texts(text, sentence_windows(text, 8, 0)) == [
        "One two three. Four five six seven!",
        "Eight nine? Ten eleven twelve thirteen fourteen fifteen.",
        "End.",
    ]
    assert texts(text, sentence_windows(text, 8, 1)) == [
        "One two three. Four five six seven!",
        "Four five six seven! Eight nine?",
        "Eight nine? Ten eleven twelve thirteen fourteen fifteen.",
        "Ten eleven twelve thirteen fourteen fifteen. End.",
    ]


def test_a_sentence_longer_than_size_is_its_own_chunk() -> None:
    text = "Short one. This sentence has many more words than the window. Tail."
    assert texts(text, sentence_windows(text, 3, 0)) == [
        "Short one.",
        "This sentence has many more words than the window.",
        "Tail.",
    ]


def test_abbreviations_and_initials_do_not_end_sentences() -> None:
    text = "Dr. Rossi met J. Smith, e.g. at noon. Then «basta.» Fine"
    assert texts(text, sentence_windows(text, 1, 0)) == [
        "Dr. Rossi met J. Smith, e.g. at noon.",
        "Then «basta.»",
        "Fine",
    ]


def test_chunk_documents_reports_progress_and_can_be_cancelled() -> None:
    docs = [Document(str(i), "", f"word {i} more words") for i in range(2500)]
    calls: list[tuple[int, int, str]] = []
    chunks = chunk_documents(docs, 3, 1, progress=lambda d, t, label: calls.append((d, t, label)))
    assert len(chunks) == 2500 * 2
    assert calls == [(0, 2500, "chunking"), (1000, 2500, "chunking"), (2000, 2500, "chunking"),
                     (2500, 2500, "chunking")]

    def cancel(done: int, total: int, label: str) -> None:
        if done >= 1000:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        chunk_documents(docs, 3, 1, progress=cancel)


# -- properties ------------------------------------------------------------------------------------

WORD = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).filter(
    lambda w: w.split() == [w]
)
SPACE = st.sampled_from([" ", "  ", "\n", "\t", " \n ", "\u00a0", "\u3000"])


@st.composite
def spaced_text(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORD, max_size=60))
    gaps = draw(st.lists(SPACE, min_size=len(words) + 1, max_size=len(words) + 1))
    return gaps[0] + "".join(w + g for w, g in zip(words, gaps[1:]))


@st.composite
def window_options(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(1, 25))
    return size, draw(st.integers(0, size - 1))


@settings(max_examples=examples(200), deadline=None)
@given(text=spaced_text(), options=window_options())
def test_word_windows_properties(text: str, options: tuple[int, int]) -> None:
    size, overlap = options
    words = text.split()
    spans = word_windows(text, size, overlap)
    if words:
        assert [" ".join(p.split()) for p in texts(text, spans)] == seed_chunk(text, size, overlap)
    else:
        assert spans == []
    covered = set()
    for span in spans:
        piece = text[span.start_char:span.end_char]
        assert piece.split() == words[span.start_word:span.end_word]  # offsets slice back to the words
        assert piece and piece == piece.strip()  # never empty, never padded with white space
        assert span.end_word - span.start_word <= size
        covered.update(range(span.start_word, span.end_word))
    assert covered == set(range(len(words)))
    for before, after in zip(spans, spans[1:]):
        assert before.end_word - before.start_word == size  # only the last window may be shorter
        assert before.end_word - after.start_word == overlap


# Letters that spell no abbreviation the sentence splitter knows ("dr.", "st.", ...).
PLAIN_WORD = st.text(alphabet="abceklnopuàèé", min_size=1, max_size=8)
SENTENCE = st.lists(PLAIN_WORD, min_size=1, max_size=12).map(lambda ws: " ".join(ws) + ".")


@settings(max_examples=examples(200), deadline=None)
@given(sentences=st.lists(SENTENCE, max_size=15), options=window_options())
def test_sentence_windows_properties(sentences: list[str], options: tuple[int, int]) -> None:
    size, overlap = options
    text = " ".join(sentences)
    spans = sentence_windows(text, size, overlap)
    pieces = texts(text, spans)
    assert all(p and p == p.strip() for p in pieces)
    start = 0
    for sentence in sentences:  # every sentence lies whole inside some chunk
        end = start + len(sentence.split())
        assert any(s.start_word <= start and end <= s.end_word for s in spans)
        start = end
    for span, piece in zip(spans, pieces):
        assert piece.split() == text.split()[span.start_word:span.end_word]
        assert piece.endswith(".")  # chunks end on a sentence boundary
    for before, after in zip(spans, spans[1:]):
        assert before.start_word < after.start_word and before.end_word < after.end_word  # always progress
