"""A question's judgments as chunk positions, under one chunking.

Judgments name chunks (passage ids) or whole documents; the retriever, the
benchmarks and anything else that scores a ranking read them through here, so
they agree on which chunks count.

A chunk judged with its text (``Question.spans``: document d, characters ``[s, e)``) counts by its id
when this chunking has that chunk, covering that text: the same chunking gives the same numbers.
Under another chunking it is carried by its text, one rule: a chunk C of d takes the grade g of a
judged span S when ``overlap(C, S) >= 0.5 * min(len(C), len(S))``, the highest grade when several
spans reach it; a span judged 0 makes C judged not relevant when it covers at least half of C and
nothing makes C relevant. Each span is compared with its document's chunks at once (numpy).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate

import numpy as np

from ranklens.engine.chunking.cutting import contains_answer
from ranklens.engine.corpus import Chunk, Document, Question, TextSpan, normalise_space
from ranklens.engine.judging.counted import Carried
from ranklens.engine.measuring.measures.covered_text import RelevantText, Span, union
from ranklens.engine.corpus.tables import ChunkTable

CARRY_SHARE = 0.5  # the share of the shorter of a chunk and a judged span their overlap must reach


@dataclass
class _ByText:
    """What a question's judgments of chunks of another chunking decide here."""

    relevant: dict[int, int] = field(default_factory=dict)  # chunk position -> the highest grade carried
    nonrelevant: set[int] = field(default_factory=set)  # positions a span judged 0 covers half of
    moved: set[str] = field(default_factory=set)  # the ids judged with a text this chunking does not cut so
    carried: int = 0  # of ``moved``, those reaching a chunk


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


def span_of(chunks: Sequence[Chunk], ident: str) -> TextSpan | None:
    """The text chunk ``ident`` of ``chunks`` covers in its document; None when no chunk has the id (a document's)."""
    at = ChunkRows(chunks).chunk(ident)
    return None if at is None else chunks[at].text_span


class ChunkJudge:
    """Which of ``chunks`` a question's judgments name, and with what grade. The ids ``questions`` name
    are looked up at once (``ChunkRows.resolve``); any other question's when it is judged."""

    def __init__(self, chunks: Sequence[Chunk], questions: Iterable[Question] = (),
                 documents: Sequence[Document] = ()) -> None:
        self.chunks = chunks
        self.documents = documents  # where answer spans are found for the span measures (``relevant_text``)
        self._rows = ChunkRows(chunks)
        self._rows.resolve(ident for q in questions for ident in (*q.relevant, *q.nonrelevant))

    def relevant(self, question: Question) -> dict[int, int]:
        """Chunk position -> grade.

        A document judgment with an answer span keeps only the chunks that
        contain the span. A chunk judged with its text under another chunking
        counts by that text (the module docstring's rule). When the judged ids
        are not chunks of this chunking (re-chunked documents) and no text
        carries, the answer span decides. A chunk judged not relevant by its own
        id (``question.nonrelevant``) is never relevant, and the answer span
        never makes a chunk judged not relevant (by id, document or text)
        relevant: the judgment is the user's word against an inference.
        """
        rows = self._rows
        rows.resolve((*question.relevant, *question.nonrelevant, *(s.doc for s in question.spans.values())))
        by_text = self._by_text(question)
        found: dict[int, int] = {}
        for ident, grade in question.relevant.items():
            if ident in by_text.moved:
                continue
            at = rows.chunk(ident)
            if at is not None:
                found[at] = max(found.get(at, 0), grade)
                continue
            for i in rows.document(ident):
                if question.answer is None or contains_answer(self.chunks[i].text, question.answer):
                    found[i] = max(found.get(i, 0), grade)
        found |= {i: max(grade, found.get(i, 0)) for i, grade in by_text.relevant.items()}
        if not found and question.answer:
            judged_out = self._positions(question.nonrelevant, by_text.moved) | by_text.nonrelevant
            found = {i: 1 for i in self._holding(question.answer) if i not in judged_out}
        for ident in question.nonrelevant:
            at = rows.chunk(ident) if ident not in by_text.moved else None
            if at is not None:
                found.pop(at, None)
        return found

    def judged(self, question: Question) -> dict[int, int]:
        """Chunk position -> grade for every chunk the question's judgments decide: the relevant ones
        (``relevant``) and, with grade 0, the chunks judged not relevant (named, of a document judged not
        relevant, or covered by a text judged not relevant) that no judgment calls relevant."""
        judged = self.relevant(question)
        by_text = self._by_text(question)
        for i in (*self._positions(question.nonrelevant, by_text.moved), *by_text.nonrelevant):
            judged.setdefault(i, 0)
        return judged

    def carried(self, question: Question) -> Carried:
        """How many of the question's judgments of chunks count here by their text, and how many reach a chunk."""
        by_text = self._by_text(question)
        return Carried(len(by_text.moved), by_text.carried)

    def _by_text(self, question: Question) -> _ByText:
        """The rule of the module docstring over the question's judgments of chunks this chunking does not have."""
        found = _ByText()
        for ident, span in question.spans.items():
            grade = question.relevant.get(ident, 0 if ident in question.nonrelevant else None)
            if grade is None or self._cut_so(ident, span):
                continue
            found.moved.add(ident)
            rows = np.asarray(self._rows.document(span.doc), dtype=np.int64)
            starts, ends = self._bounds(rows)
            overlap = np.minimum(ends, span.end) - np.maximum(starts, span.start)
            lengths = ends - starts
            # a span judged 0 speaks for the chunks it covers half of; a grade, for those sharing half the shorter
            needed = lengths if grade <= 0 else np.minimum(lengths, span.end - span.start)
            reached = rows[(overlap > 0) & (overlap >= CARRY_SHARE * needed)].tolist()
            found.carried += bool(reached)
            if grade > 0:
                found.relevant |= {i: max(grade, found.relevant.get(i, 0)) for i in reached}
            else:
                found.nonrelevant.update(reached)
        found.nonrelevant -= found.relevant.keys()
        return found

    def relevant_text(self, question: Question) -> RelevantText:
        """The question's relevant text, what the span measures read (engine/measuring/measures/covered_text.py):
        the text of its chunks judged relevant (recorded with the judgment, else this chunking's chunk of the id), its
        answer span wherever a document holds it, and the text of a document judged relevant without one."""
        rows = self._rows
        rows.resolve(question.relevant)
        spans: list[Span] = []
        for ident, grade in question.relevant.items():
            if grade <= 0:
                continue
            span, at = question.spans.get(ident), rows.chunk(ident)
            if span is not None:
                spans.append((span.doc, span.start, span.end))
            elif at is not None:
                spans.append(self._span_at(at))
            elif question.answer is None and len(chunked := np.asarray(rows.document(ident), dtype=np.int64)):
                starts, ends = self._bounds(chunked)
                spans.append((ident, int(starts.min()), int(ends.max())))
        if question.answer:
            spans += self._answer_text(question.answer)
        return RelevantText(tuple(union(spans)), self._chunk_spans)

    def _chunk_spans(self, positions: Sequence[int]) -> list[Span]:
        return [self._span_at(i) for i in positions]

    def _span_at(self, at: int) -> Span:
        """Chunk ``at``'s document and bounds (over the cached corpus' columns, no chunk made)."""
        if not isinstance(self.chunks, ChunkTable):
            chunk = self.chunks[at]
            return chunk.doc_id, chunk.start, chunk.end
        start, end = self.chunks.spans[at, :2].tolist()
        return self.chunks.doc_ids[int(np.searchsorted(self.chunks.doc_first, at, side="right")) - 1], start, end

    @cached_property
    def _documents_spaced(self) -> tuple[str, list[int]]:
        """The documents' texts as ``_spaced`` holds the chunks': an answer is looked for in all at once."""
        return _spaced(d.text for d in self.documents)

    def _answer_text(self, answer: str) -> list[Span]:
        """Every place a document holds the whole answer span, white space aside, as characters of its text."""
        wanted = normalise_space(answer)
        if not wanted or not self.documents:
            return []
        text, starts = self._documents_spaced
        pattern = re.compile(r"\s+".join(map(re.escape, wanted.split(" "))))
        found: list[Span] = []
        at = text.find(wanted)
        while at >= 0:
            document = self.documents[bisect_right(starts, at) - 1]
            found += [(document.id, m.start(), m.end()) for m in pattern.finditer(document.text)]
            at = text.find(wanted, starts[bisect_right(starts, at)])
        return found

    def _cut_so(self, ident: str, span: TextSpan) -> bool:
        """Whether this chunking's chunk ``ident`` covers ``span``: the judgment then counts by its id."""
        at = self._rows.chunk(ident)
        return at is not None and self._span_at(at) == (span.doc, span.start, span.end)

    def _bounds(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The starts and ends of the chunks at ``rows`` (one document's) in their document's text."""
        if isinstance(self.chunks, ChunkTable):
            return self.chunks.spans[rows, 0].astype(np.int64), self.chunks.spans[rows, 1].astype(np.int64)
        bounds = np.array([(self.chunks[i].start, self.chunks[i].end) for i in rows.tolist()], dtype=np.int64)
        return bounds.reshape(-1, 2)[:, 0], bounds.reshape(-1, 2)[:, 1]

    @cached_property
    def _spaced(self) -> tuple[str, list[int]]:
        """Every chunk's text as ``_spaced`` joins texts: an answer span is looked for in all of them at once,
        once per question, not with a regular expression per chunk and question (7,600 answer-only questions
        over 50 chunks took 11 s)."""
        return _spaced(c.text for c in self.chunks)

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

    def _positions(self, ids: Iterable[str], moved: set[str]) -> set[int]:
        """The chunks ``ids`` name (but ``moved``, counted by their text): a chunk id its chunk, a document id
        all its chunks."""
        found: set[int] = set()
        for ident in ids:
            if ident in moved:
                continue
            at = self._rows.chunk(ident)
            found.update([at] if at is not None else self._rows.document(ident))
        return found


def _spaced(texts: Iterable[str]) -> tuple[str, list[int]]:
    """``texts`` with their white space collapsed, joined by newlines (which none holds now), and where each
    starts: a collapsed answer holds no newline, so a match never runs from one text into the next."""
    texts = [normalise_space(text) for text in texts]
    return "\n".join(texts), list(accumulate((len(t) + 1 for t in texts), initial=0))
