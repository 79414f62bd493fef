"""A question's judgments as chunk positions, under one chunking.

Judgments name chunks (passage ids) or whole documents; the retriever, the
benchmarks and anything else that scores a ranking read them through here, so
they agree on which chunks count.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from functools import cached_property
from itertools import accumulate

from ranklens.engine.chunking import contains_answer
from ranklens.engine.corpus import Chunk, Question, normalise_space
from ranklens.engine.tables import ChunkTable


def wholly_judged(question: Question) -> bool:
    """True when every chunk has a verdict, listed or not: the question has an answer span, and a chunk
    without the span does not hold the answer (``judged`` lists no grade 0 for those: a corpus' worth of
    zeros per question)."""
    return bool(question.answer)


class ChunkRows:
    """Chunk positions by chunk id and by document id. Over a list of chunks, dictionaries made at once;
    over the cached corpus' ``ChunkTable``, only the ids asked for, found in its id columns by a vectorised
    scan (``TextColumn.rows_of``): a million chunks are never made into objects to judge 300 questions."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self._table = chunks if isinstance(chunks, ChunkTable) else None
        self._by_id: dict[str, int] = {}
        self._by_doc: dict[str, Sequence[int]] = {}
        self._asked: set[str] = set()
        if self._table is None:
            self._by_id = {c.id: i for i, c in enumerate(chunks)}
            by_doc: dict[str, list[int]] = {}
            for i, c in enumerate(chunks):
                by_doc.setdefault(c.doc_id, []).append(i)
            self._by_doc = dict(by_doc)

    def resolve(self, idents: Iterable[str]) -> None:
        """Look the ids up now, all in one scan (later lookups of them are a dictionary's)."""
        table = self._table
        wanted = set(idents) - self._asked if table is not None else set()
        if not wanted or table is None:
            return
        self._asked |= wanted
        self._by_id.update(table.ids.rows_of(wanted))
        bounds = table.doc_first
        for doc, row in table.doc_ids.rows_of(wanted).items():
            first, last = bounds[row:row + 2].tolist()
            self._by_doc[doc] = range(first, last)

    def chunk(self, ident: str) -> int | None:
        """The position of the chunk of id ``ident``, None when no chunk has it."""
        self.resolve((ident,))
        return self._by_id.get(ident)

    def document(self, ident: str) -> Sequence[int]:
        """The positions of document ``ident``'s chunks (none when there is no such document)."""
        self.resolve((ident,))
        return self._by_doc.get(ident, ())


class ChunkJudge:
    """Which of ``chunks`` a question's judgments name, and with what grade. The ids ``questions`` name
    are looked up at once (``ChunkRows.resolve``); any other question's when it is judged."""

    def __init__(self, chunks: Sequence[Chunk], questions: Iterable[Question] = ()) -> None:
        self.chunks = chunks
        self._rows = ChunkRows(chunks)
        self._rows.resolve(ident for q in questions for ident in (*q.relevant, *q.nonrelevant))

    def relevant(self, question: Question) -> dict[int, int]:
        """Chunk position -> grade.

        A document judgment with an answer span keeps only the chunks that
        contain the span. When the judged ids are not chunks of this chunking
        (re-chunked documents), the answer span decides. A chunk judged not
        relevant by its own id (``question.nonrelevant``) is never relevant, and
        the answer span never makes a chunk of a document judged not relevant
        relevant: the judgment is the user's word against an inference.
        """
        rows = self._rows
        rows.resolve((*question.relevant, *question.nonrelevant))
        found: dict[int, int] = {}
        for ident, grade in question.relevant.items():
            at = rows.chunk(ident)
            if at is not None:
                found[at] = max(found.get(at, 0), grade)
                continue
            for i in rows.document(ident):
                if question.answer is None or contains_answer(self.chunks[i].text, question.answer):
                    found[i] = max(found.get(i, 0), grade)
        if not found and question.answer:
            judged_out = self._positions(question.nonrelevant)
            found = {i: 1 for i in self._holding(question.answer) if i not in judged_out}
        for ident in question.nonrelevant:
            at = rows.chunk(ident)
            if at is not None:
                found.pop(at, None)
        return found

    def judged(self, question: Question) -> dict[int, int]:
        """Chunk position -> grade for every chunk the question's judgments decide: the relevant ones
        (``relevant``) and, with grade 0, the chunks judged not relevant (named, or of a document
        judged not relevant) that no judgment calls relevant."""
        judged = self.relevant(question)
        for i in self._positions(question.nonrelevant):
            judged.setdefault(i, 0)
        return judged

    @cached_property
    def _spaced(self) -> tuple[str, list[int]]:
        """Every chunk's text with its white space collapsed, joined by newlines (which none holds now), and
        where each starts: an answer span is looked for in all of them at once, once per question, not with
        a regular expression per chunk and question (7,600 answer-only questions over 50 chunks took 11 s)."""
        texts = [normalise_space(c.text) for c in self.chunks]
        return "\n".join(texts), list(accumulate((len(t) + 1 for t in texts), initial=0))

    def _holding(self, answer: str) -> list[int]:
        """The chunks holding the whole answer span, ignoring differences in white space (``contains_answer``)."""
        wanted = normalise_space(answer)
        if not wanted:
            return []
        text, starts = self._spaced
        found = []
        at = text.find(wanted)  # collapsed, the span holds no newline: a match never runs into the next chunk
        while at >= 0:
            chunk = bisect_right(starts, at) - 1
            found.append(chunk)
            at = text.find(wanted, starts[chunk + 1])
        return found

    def _positions(self, ids: Iterable[str]) -> set[int]:
        """The chunks ``ids`` name: a chunk id its chunk, a document id all its chunks."""
        found: set[int] = set()
        for ident in ids:
            at = self._rows.chunk(ident)
            found.update([at] if at is not None else self._rows.document(ident))
        return found
