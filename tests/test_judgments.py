"""A question's judgments as chunks (engine/judging/positions.py ChunkJudge), on chunks written out here.

Judgments name chunks or whole documents; a chunk named both ways, or twice, keeps its highest
grade whatever the order (docs/corpus-format.md). A document judgment with an answer span keeps the
chunks holding the span; judged ids that name nothing of this chunking leave the span to decide.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ranklens.engine.corpus import Chunk, Question
from ranklens.engine.judging.positions import ChunkJudge
from tests.support.examples import examples

# Two documents, d1 cut in three chunks, d2 in one.
CHUNKS = [
    Chunk("d1#0", "d1", 0, 0, 24, "the backup runs nightly"),
    Chunk("d1#1", "d1", 1, 24, 52, "restore a file from the\nbackup"),
    Chunk("d1#2", "d1", 2, 52, 70, "holidays are in august"),
    Chunk("d2#0", "d2", 0, 0, 30, "restore a file from the backup folder"),
]


def judged(relevant: dict[str, int], answer: str | None = None) -> dict[str, int]:
    """Chunk id -> grade."""
    found = ChunkJudge(CHUNKS).relevant(Question("q", "text", relevant, answer))
    return {CHUNKS[i].id: grade for i, grade in found.items()}


@pytest.mark.parametrize("relevant", [{"d1#1": 1, "d1": 3}, {"d1": 3, "d1#1": 1}])
def test_a_chunk_judged_lower_by_its_id_keeps_its_documents_higher_grade(relevant: dict[str, int]) -> None:
    assert judged(relevant) == {"d1#0": 3, "d1#1": 3, "d1#2": 3}


@pytest.mark.parametrize("relevant", [{"d1#1": 3, "d1": 1}, {"d1": 1, "d1#1": 3}])
def test_a_chunk_judged_higher_by_its_id_keeps_its_own_grade(relevant: dict[str, int]) -> None:
    assert judged(relevant) == {"d1#0": 1, "d1#1": 3, "d1#2": 1}


def test_chunks_of_two_judged_documents_keep_each_documents_grade() -> None:
    assert judged({"d2": 2, "d1#2": 1}) == {"d1#2": 1, "d2#0": 2}


def test_a_document_judgment_with_an_answer_keeps_the_chunks_holding_it() -> None:
    # the span is found across the line break of d1#1 (white space normalised)
    assert judged({"d1": 2}, answer="from the backup") == {"d1#1": 2}
    assert judged({"d1": 2, "d1#2": 1}, answer="from the backup") == {"d1#1": 2, "d1#2": 1}  # an id is an id


def test_ids_of_another_chunking_leave_the_answer_to_decide() -> None:
    assert judged({"old-chunk-7": 3}, answer="restore a file") == {"d1#1": 1, "d2#0": 1}
    assert judged({"old-chunk-7": 3}) == {}
    assert judged({}, answer="not in any chunk") == {}


def test_an_answer_split_between_two_chunks_judges_neither() -> None:
    chunks = [Chunk("c0", "d", 0, 0, 14, "restore a file"), Chunk("c1", "d", 1, 15, 30, "from the backup"),
              Chunk("c2", "e", 0, 0, 24, "a file from the backup")]
    assert ChunkJudge(chunks).relevant(Question("q", "text", {}, "file from")) == {2: 1}
    assert ChunkJudge(chunks).relevant(Question("q", "text", {}, "file\nfrom  the")) == {2: 1}


_WORDS = st.sampled_from(["backup", "file", "restore", "a", "the", "ß", "日本", ""])
_SPACES = st.sampled_from([" ", "  ", "\n", "\t", "\u00a0", "\u2028", "\r\n", ""])


@settings(max_examples=examples(200), deadline=None)
@given(texts=st.lists(st.lists(st.tuples(_WORDS, _SPACES), max_size=8), min_size=1, max_size=8),
       answer=st.lists(st.tuples(_WORDS, _SPACES), max_size=4))
def test_an_answer_only_question_judges_the_chunks_each_chunk_check_finds(texts, answer) -> None:
    """The span is looked for in every chunk at once (the chunks' collapsed texts joined by newlines): the
    chunks found are those ``contains_answer`` finds one by one, with white space of every kind, empty
    texts and spans that would run from one chunk into the next."""
    from ranklens.engine.chunking.cutting import contains_answer

    chunks = [Chunk(f"c{i}", f"d{i}", 0, 0, 1, "".join(w + s for w, s in words)) for i, words in enumerate(texts)]
    span = "".join(w + s for w, s in answer)
    found = ChunkJudge(chunks).relevant(Question("q", "text", {}, span))
    assert found == {i: 1 for i, c in enumerate(chunks) if contains_answer(c.text, span)}
