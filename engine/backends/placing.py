"""Where a hit of the user's own retriever lies among a retriever's chunks: by its id, or by its text.

A hit names a chunk id or a document id of the corpus; a hit naming neither
but carrying its text is placed by finding that text in a document (exact
match after white-space normalisation: runs of white space are one space,
ends trimmed), then taking the chunk of that document the found span overlaps
most (chunks are spans ``[start, end)`` of their document's text). A document
id stands for the document's chunk its text lies in when the hit has text,
else for its first chunk. The answer spans and span judgments of the corpus
then decide the chunk's relevance as they decide any other's.

The documents' normalised text is built only when a hit first needs it (one
string for the corpus, with the offsets that map it back), so a retriever
returning ids never pays for it.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ranklens.engine.corpus import Chunk, Corpus

_WORD = re.compile(r"\S+")


def normalise(text: str) -> str:
    """``text`` with every run of white space as one space, ends trimmed."""
    return " ".join(text.split())


@dataclass(frozen=True)
class _Normalised:
    """Every document's normalised text end to end (documents apart by a newline, which normalised text never
    holds), with what maps a position of it back to a document and an offset of that document's text."""

    text: str
    doc_starts: list[int]  # where each document begins in ``text``
    doc_ids: list[str]
    word_starts: list[list[int]]  # per document: each word's start in ``text``
    word_origins: list[list[int]]  # per document: each word's start in the document's own text

    def locate(self, position: int) -> tuple[str, int]:
        """(document id, offset in its text) of a position of ``text``."""
        doc = bisect_right(self.doc_starts, position) - 1
        starts = self.word_starts[doc]
        word = max(bisect_right(starts, position) - 1, 0)
        return self.doc_ids[doc], self.word_origins[doc][word] + position - starts[word]


class Placement:
    """A retriever's chunks looked up by the ids and texts a user's retriever returns."""

    def __init__(self, corpus: Corpus, chunks: Sequence[Chunk]) -> None:
        self.corpus = corpus
        self.by_id: dict[str, int] = {}
        self.by_doc: dict[str, list[int]] = {}
        self.spans: list[tuple[int, int]] = []
        for position, chunk in enumerate(chunks):
            self.by_id.setdefault(chunk.id, position)
            self.by_doc.setdefault(chunk.doc_id, []).append(position)
            self.spans.append((chunk.start, chunk.end))

    def place(self, ident: str | None, text: str | None) -> int | None:
        """The chunk position a hit stands for; None when the corpus cannot place it."""
        if ident is not None and ident in self.by_id:
            return self.by_id[ident]
        within = self.by_doc.get(ident) if ident is not None else None
        if text is not None and normalise(text):
            found = self._find(normalise(text), ident if within else None)
            if found is not None:
                return found
        return within[0] if within else None

    def _find(self, text: str, doc_id: str | None) -> int | None:
        """The chunk of the document (``doc_id``'s, or the first holding it) that the text overlaps most."""
        index = self._normalised
        if doc_id is None:
            at = index.text.find(text)
        else:
            doc = self._doc_numbers.get(doc_id)
            if doc is None:
                return None
            end = index.doc_starts[doc + 1] if doc + 1 < len(index.doc_starts) else len(index.text)
            at = index.text.find(text, index.doc_starts[doc], end)
        if at < 0:
            return None
        found_doc, start = index.locate(at)
        _, last = index.locate(at + len(text) - 1)
        return self._overlapping(found_doc, start, last + 1)

    def _overlapping(self, doc_id: str, start: int, end: int) -> int | None:
        best, overlap = None, 0
        for position in self.by_doc.get(doc_id, ()):
            chunk_start, chunk_end = self.spans[position]
            shared = min(end, chunk_end) - max(start, chunk_start)
            if shared > overlap:
                best, overlap = position, shared
        return best

    @cached_property
    def _doc_numbers(self) -> dict[str, int]:
        return {doc_id: number for number, doc_id in enumerate(self._normalised.doc_ids)}

    @cached_property
    def _normalised(self) -> _Normalised:
        parts: list[str] = []
        doc_starts, doc_ids, word_starts, word_origins = [], [], [], []
        length = 0
        for document in self.corpus.documents:
            words = list(_WORD.finditer(document.text))
            doc_starts.append(length)
            doc_ids.append(document.id)
            starts, origins, at = [], [], length
            for word in words:
                starts.append(at)
                origins.append(word.start())
                at += word.end() - word.start() + 1
            word_starts.append(starts or [length])
            word_origins.append(origins or [0])
            joined = " ".join(w.group() for w in words)
            parts.append(joined)
            length += len(joined) + 1
        return _Normalised("\n".join(parts), doc_starts, doc_ids, word_starts, word_origins)
