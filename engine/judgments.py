"""A question's judgments as chunk positions, under one chunking.

Judgments name chunks (passage ids) or whole documents; the retriever, the
benchmarks and anything else that scores a ranking read them through here, so
they agree on which chunks count.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ranklens.engine.chunking import contains_answer
from ranklens.engine.corpus import Chunk, Question


def wholly_judged(question: Question) -> bool:
    """True when every chunk has a verdict, listed or not: the question has an answer span, and a chunk
    without the span does not hold the answer (``judged`` lists no grade 0 for those: a corpus' worth of
    zeros per question)."""
    return bool(question.answer)


class ChunkJudge:
    """Which of ``chunks`` a question's judgments name, and with what grade."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = chunks
        self._by_id = {c.id: i for i, c in enumerate(chunks)}
        self._by_doc: dict[str, list[int]] = {}
        for i, c in enumerate(chunks):
            self._by_doc.setdefault(c.doc_id, []).append(i)

    def relevant(self, question: Question) -> dict[int, int]:
        """Chunk position -> grade.

        A document judgment with an answer span keeps only the chunks that
        contain the span. When the judged ids are not chunks of this chunking
        (re-chunked documents), the answer span decides. A chunk judged not
        relevant by its own id (``question.nonrelevant``) is never relevant, and
        the answer span never makes a chunk of a document judged not relevant
        relevant: the judgment is the user's word against an inference.
        """
        found: dict[int, int] = {}
        for ident, grade in question.relevant.items():
            if ident in self._by_id:
                at = self._by_id[ident]
                found[at] = max(found.get(at, 0), grade)
            elif ident in self._by_doc:
                for i in self._by_doc[ident]:
                    if question.answer is None or contains_answer(self.chunks[i].text, question.answer):
                        found[i] = max(found.get(i, 0), grade)
        judged_out = self._positions(question.nonrelevant)
        if not found and question.answer:
            found = {i: 1 for i, c in enumerate(self.chunks)
                     if i not in judged_out and contains_answer(c.text, question.answer)}
        for ident in question.nonrelevant:
            found.pop(self._by_id.get(ident, -1), None)
        return found

    def judged(self, question: Question) -> dict[int, int]:
        """Chunk position -> grade for every chunk the question's judgments decide: the relevant ones
        (``relevant``) and, with grade 0, the chunks judged not relevant (named, or of a document
        judged not relevant) that no judgment calls relevant."""
        judged = self.relevant(question)
        for i in self._positions(question.nonrelevant):
            judged.setdefault(i, 0)
        return judged

    def _positions(self, ids: Iterable[str]) -> set[int]:
        """The chunks ``ids`` name: a chunk id its chunk, a document id all its chunks."""
        found: set[int] = set()
        for ident in ids:
            found.update([self._by_id[ident]] if ident in self._by_id else self._by_doc.get(ident, ()))
        return found
