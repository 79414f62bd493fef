"""Runs of a retriever over questions, and the judgments they are measured against.

A run ranks every question's chunks as ``search`` does (``Retriever.search`` at depth
``k``: chunks scoring nothing are left out), so a saved run holds what a user saw. Its
judgments are the questions' relevance resolved under the run's chunking
(``Retriever.relevant``: qrels naming chunks or documents, or answer spans), as chunk ids.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ranklens.engine.progress import Progress, no_progress
from ranklens.engine.trec import Run

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus, Question
    from ranklens.engine.retriever import Retriever

DEFAULT_DEPTH = 100  # chunks per question in a run unless -k says otherwise (TREC runs often hold 1000)


def make_run(retriever: Retriever, questions: Sequence[Question], depth: int = DEFAULT_DEPTH,
             tag: str = "ranklens", progress: Progress = no_progress) -> Run:
    """The top ``depth`` chunks of every question, best first, as ``search`` ranks them."""
    rankings: dict[str, list[tuple[str, float]]] = {}
    for i, question in enumerate(questions):
        result = retriever.search(question.text, depth)
        rankings[question.id] = [(hit.chunk.id, hit.score) for hit in result.hits]
        if (i + 1) % 16 == 0 or i + 1 == len(questions):
            progress(i + 1, len(questions), "ranking questions")
    return Run(rankings, tag)


def resolved_qrels(retriever: Retriever, questions: Sequence[Question]) -> dict[str, dict[str, int]]:
    """Question id -> {chunk id: grade} under the retriever's chunking, for questions with a judgment:
    grade >= 1 relevant, 0 judged not relevant (``ChunkJudge.judged``; measures count grades >= 1)."""
    qrels: dict[str, dict[str, int]] = {}
    for question in questions:
        if not question.answerable and not question.nonrelevant:
            continue
        grades = retriever.judged(question)
        qrels[question.id] = {retriever.chunks[i].id: grade for i, grade in sorted(grades.items())}
    return qrels


def corpus_identity(corpus: Corpus) -> dict[str, object]:
    """What tells one corpus from another in a run's sidecar: its name, source and a fingerprint.

    The fingerprint hashes the documents' ids and text lengths (cheap, and changed by an
    added, removed or edited document); runs of corpora with different fingerprints are not
    compared.
    """
    digest = hashlib.sha256()
    for document in corpus.documents:
        digest.update(f"{document.id}\t{len(document.text)}\n".encode("utf-8", "surrogatepass"))
    return {"name": corpus.name, "documents": len(corpus.documents), "fingerprint": digest.hexdigest()[:16]}
