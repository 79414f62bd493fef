"""Cutting documents into chunks: windows of words, or of whole sentences.

``word_windows`` is seed 004's ``chunk`` function, extended with character
offsets so that a chunk can point back into its document (and be highlighted
there) instead of being a re-joined copy of its words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain
from typing import Callable, Iterable

import numpy as np

from engine.corpus import Chunk, Document, normalise_space
from engine.errors import RanklensError
from engine.progress import Progress, no_progress
from engine.setup import CHUNKERS

_WORD = re.compile(r"\S+")  # the same words as str.split(): both use Unicode white space
# A sentence ends with . ! ? or … optionally followed by closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.!?…][\"'»”’)\]]*$")
# Words whose final period rarely ends a sentence; single letters (initials) count too.
_ABBREVIATIONS = frozenset(
    {"mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "vs.", "e.g.", "i.e.", "sig.", "dott.", "sr.", "sra.", "ing."}
)
_PROGRESS_EVERY = 1000


@dataclass(frozen=True, slots=True)
class Span:
    """Words ``[start_word, end_word)`` of a text, at characters ``[start_char, end_char)``."""

    start_word: int
    end_word: int
    start_char: int
    end_char: int


def check_window(size: int, overlap: int) -> None:
    """Reject window options that would produce no chunks or never advance."""
    if size < 1:
        raise RanklensError(f"--size ({size}) must be at least 1")
    if overlap < 0:
        raise RanklensError(f"--overlap ({overlap}) must be at least 0")
    if overlap >= size:
        raise RanklensError(f"--overlap ({overlap}) must be smaller than --size ({size})")


def word_windows(text: str, size: int, overlap: int) -> list[Span]:
    """Windows of ``size`` words, each restarting ``overlap`` words before the previous one ends.

    Exactly seed 004's rule: starts at ``range(0, max(n - overlap, 1), size - overlap)``,
    so the last window may be shorter and no window lies wholly inside the previous one.
    """
    check_window(size, overlap)
    words = _Words(text)
    if not words.count:
        return []
    starts = range(0, max(words.count - overlap, 1), size - overlap)
    return [words.span(i, min(i + size, words.count)) for i in starts]


def sentence_windows(text: str, size: int, overlap: int) -> list[Span]:
    """Whole sentences packed greedily up to ``size`` words; ``overlap`` counts sentences.

    A sentence longer than ``size`` becomes a chunk of its own. Each window
    repeats up to ``overlap`` sentences of the previous one, fewer when they
    and the next new sentence would not fit, so every window adds a sentence.
    """
    check_window(size, overlap)
    words = _Words(text)
    sentences = _sentences(text, words)
    spans: list[Span] = []
    first = 0  # first sentence of the current window
    end = 0  # one past the last sentence already placed in a window
    while end < len(sentences):
        first = _overlap_start(sentences, first, end, overlap, size)
        end = _pack(sentences, first, end, size)
        spans.append(words.span(sentences[first][0], sentences[end - 1][1]))
    return spans


def chunk_document(doc: Document, size: int, overlap: int, method: str = "words") -> list[Chunk]:
    """The chunks of one document, with ids ``"<doc id>#<index>"``."""
    return _chunks(doc, _windows(method)(doc.text, size, overlap))


def chunk_documents(
    docs: Iterable[Document],
    size: int,
    overlap: int,
    method: str = "words",
    progress: Progress = no_progress,
) -> list[Chunk]:
    """Chunk every document; ``progress`` may raise ``Cancelled`` to stop."""
    docs = list(docs)
    windows = _windows(method)
    check_window(size, overlap)  # fail before the first document, even with no documents
    chunks: list[Chunk] = []
    for done, doc in enumerate(docs):
        if done % _PROGRESS_EVERY == 0:
            progress(done, len(docs), "chunking")
        chunks.extend(_chunks(doc, windows(doc.text, size, overlap)))
    progress(len(docs), len(docs), "chunking")
    return chunks


def contains_answer(text: str, answer: str) -> bool:
    """Whether ``text`` holds the whole answer span, ignoring differences in white space."""
    wanted = normalise_space(answer)
    return bool(wanted) and wanted in normalise_space(text)


def _chunks(doc: Document, spans: list[Span]) -> list[Chunk]:
    return [
        Chunk(
            id=f"{doc.id}#{i}",
            doc_id=doc.id,
            index=i,
            start=s.start_char,
            end=s.end_char,
            text=doc.text[s.start_char:s.end_char],
            start_word=s.start_word,
        )
        for i, s in enumerate(spans)
    ]


def _windows(method: str) -> Callable[[str, int, int], list[Span]]:
    if method == "words":
        return word_windows
    if method == "sentences":
        return sentence_windows
    raise RanklensError(f"unknown chunker {method!r} (choose from {', '.join(CHUNKERS)})")


class _Words:
    """Character bounds of every word, 16 bytes a word (a 200 MB text has ~30M words)."""

    def __init__(self, text: str) -> None:
        bounds = np.fromiter(chain.from_iterable(m.span() for m in _WORD.finditer(text)), dtype=np.int64)
        self.starts, self.ends = bounds[0::2], bounds[1::2]
        self.count = self.starts.size

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, int(self.starts[start]), int(self.ends[end - 1]))


def _sentences(text: str, words: _Words) -> list[tuple[int, int]]:
    """Sentences as word ranges ``(start, end)``; the last word always closes one."""
    sentences = []
    start = 0
    for i, (a, b) in enumerate(zip(words.starts.tolist(), words.ends.tolist())):
        if i == words.count - 1 or _ends_sentence(text[a:b]):
            sentences.append((start, i + 1))
            start = i + 1
    return sentences


def _ends_sentence(word: str) -> bool:
    if not _SENTENCE_END.search(word):
        return False
    bare = word.rstrip("\"'»”’)]")
    is_initial = len(bare) == 2 and bare[0].isupper() and bare[1] == "."
    return not is_initial and bare.lower() not in _ABBREVIATIONS


def _length(sentences: list[tuple[int, int]], first: int, end: int) -> int:
    return sentences[end - 1][1] - sentences[first][0]


def _overlap_start(sentences: list[tuple[int, int]], first: int, end: int, overlap: int, size: int) -> int:
    """Where the next window starts: ``overlap`` sentences back, as many as still fit with a new one."""
    if end == 0:
        return 0
    start = max(end - overlap, first + 1)
    while start < end and _length(sentences, start, end + 1) > size:
        start += 1
    return start


def _pack(sentences: list[tuple[int, int]], first: int, end: int, size: int) -> int:
    """One past the last sentence of a window that starts at ``first`` and must include ``end``."""
    end += 1
    while end < len(sentences) and _length(sentences, first, end + 1) <= size:
        end += 1
    return end
