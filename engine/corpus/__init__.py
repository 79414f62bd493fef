"""The corpus model: documents, the chunks retrieval works on, and test questions.

Beside it: ``loaders`` (a corpus from a bundled name, a BEIR folder, a folder of documents or a .jsonl file),
``source`` (where a chunk came from), ``cache``, ``sources``, ``tables`` and ``stored_chunk`` (a large
corpus kept in the cache as memory-mapped columns, checked against its source files).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from collections.abc import Mapping, Sequence
from typing import Any


Heading = tuple[int, int, str]  # a heading of a document: offset in its text, level 1-6, title


@dataclass(frozen=True, slots=True)
class Document:
    """A document's extracted text and, when its reader knows them, where its parts are in that text."""

    id: str
    title: str
    text: str
    headings: tuple[Heading, ...] = ()  # in the order of the text
    pages: tuple[int, ...] = ()  # start offset in ``text`` of each page or slide: page n is pages[n - 1]
    file: str = ""  # the file it was read from, relative to the corpus folder ("" when not known)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A unit of retrieval: a span ``[start, end)`` of its document's text."""

    id: str
    doc_id: str
    index: int  # position of the chunk within its document
    start: int  # character offsets into the document's text
    end: int
    text: str
    start_word: int = 0

    @property
    def text_span(self) -> TextSpan:
        """The text the chunk covers in its document, as a judgment of it records it."""
        return TextSpan(self.doc_id, self.start, self.end)


@dataclass(frozen=True, slots=True)
class TextSpan:
    """Characters ``[start, end)`` of document ``doc``'s text: what a judged chunk covered."""

    doc: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Question:
    """A test question.

    ``relevant`` maps chunk ids (or document ids, for collections judged per
    document) to a graded relevance > 0. ``answer`` is a span of text that a
    chunk must contain, whitespace-normalised, to count as relevant: it is what
    lets re-chunked documents be evaluated. A question with neither is
    unanswerable. ``nonrelevant`` holds the ids (chunks or documents) judged not
    relevant (grade 0 or below): judged, so measures of coverage (judged@k, bpref)
    tell them from ids never judged. ``spans`` gives, for ids of either judged as a chunk, the text that
    chunk covered: under another chunking the judgment is carried by that text (engine/judging/positions.py),
    not by the id. ``fields`` keeps the question's other fields
    as queries.jsonl gives them (``tags``, ``metadata``…), for results by a field.
    ``unjudged``: a question the user saved (the workspace's) and has not judged yet:
    neither answerable nor unanswerable, until a judgment says which.
    """

    id: str
    text: str
    relevant: Mapping[str, int] = field(default_factory=dict)
    answer: str | None = None
    nonrelevant: frozenset[str] = frozenset()
    fields: Mapping[str, Any] = field(default_factory=dict)
    unjudged: bool = False
    spans: Mapping[str, TextSpan] = field(default_factory=dict)

    @property
    def answerable(self) -> bool:
        return bool(self.relevant) or bool(self.answer)


@dataclass(frozen=True, repr=False)
class Corpus:
    """Documents, their default chunks, questions and the corpus' own settings.

    ``settings`` holds the corpus' ``ranklens.toml`` (language, analyzer,
    scorer and chunking defaults), already validated by the loader.
    """

    name: str
    documents: Sequence[Document]
    chunks: Sequence[Chunk]
    questions: Sequence[Question] = ()
    settings: Mapping[str, object] = field(default_factory=dict)
    source: str = ""
    warnings: Sequence[str] = ()
    # settings["language"] was guessed from the text (engine/text/language.py), not read from ranklens.toml
    language_detected: bool = False
    # a digest of the files the corpus was read from ("" when unknown): keys its term indexes on disk
    fingerprint: str = ""

    def __repr__(self) -> str:
        # cheap on purpose: worker and log descriptions repr their arguments, and a
        # million-chunk corpus must not be formatted on the UI thread
        return f"Corpus({self.name!r}, {len(self.documents)} documents, {len(self.chunks)} chunks)"

    @property
    def answerable(self) -> list[Question]:
        return [q for q in self.questions if q.answerable]

    @property
    def unanswerable(self) -> list[Question]:
        """The questions the corpus (or a judgment) says it does not answer; unjudged ones are not among them."""
        return [q for q in self.questions if not q.answerable and not q.unjudged]

    def document(self, doc_id: str) -> Document:
        return self.documents_by_id[doc_id]

    @cached_property
    def documents_by_id(self) -> Mapping[str, Document]:
        mapping = getattr(self.documents, "mapping", None)  # a table on disk looks ids up without a dict
        return mapping() if mapping is not None else {d.id: d for d in self.documents}


_SPACE = re.compile(r"\s+")


def normalise_space(text: str) -> str:
    """Collapse runs of white space to one space, as answer matching requires."""
    return _SPACE.sub(" ", text).strip()
