"""Questions whose answer text no document holds: said at load, so that a missed answer is not taken for a
chunk that cut it (a typo in the answer, markup between its words, an answer from another corpus)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ranklens.engine.corpus import Document, Question, normalise_space

_NAMED = 5  # questions named in the line, the others counted


def answers_found_nowhere(documents: Iterable[Document], questions: Sequence[Question]) -> list[str]:
    """The ids of the questions with an answer span that no document's text holds, white space aside (as
    ``chunking.contains_answer`` matches a chunk)."""
    spans = [(q.id, normalise_space(q.answer)) for q in questions if q.answer and normalise_space(q.answer)]
    if not spans:
        return []
    # collapsed, no text holds a newline: one search per answer over every document at once
    every = "\n".join(normalise_space(d.text) for d in documents)
    return [question for question, answer in spans if answer not in every]


def nowhere_line(ids: Sequence[str]) -> str:
    """The warning naming them: ``answer text found in no document: question q3, q7``."""
    named = ", ".join(ids[:_NAMED]) + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")
    return f"answer text found in no document (not a chunk that cut it): question{'s' * (len(ids) > 1)} {named}"
