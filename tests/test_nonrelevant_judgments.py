"""Judgments of non-relevance are kept from the file to the measures: a chunk judged 0 is judged.

Coverage measures (judged@k, bpref) and the judging pool must tell a chunk judged not relevant
from one never judged; before, a score of 0 in qrels and a grade 0 in the workspace were dropped
on reading. Checked here against the files written in the test: the BEIR qrels' 0 rows, a
workspace grade 0, the resolved judgments of a run, the qrels export and the corpus cache.
"""
from __future__ import annotations

from pathlib import Path

from ranklens.engine.corpus import Chunk, Question
from ranklens.engine.judging.positions import ChunkJudge
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.measuring.runs import resolved_qrels
from ranklens.engine.measuring.trec import read_qrels
from ranklens.engine.workspace.store import Workspace
from ranklens.engine.workspace.transfer import export_qrels
from tests.support.files import beir_folder

RECORDS = [{"_id": "a", "text": "cats purr on the mat"}, {"_id": "b", "text": "dogs bark at cats"},
           {"_id": "c", "text": "birds sing at dawn"}]
QUERIES = [{"_id": "q1", "text": "cats", "tags": ["animals", "short"], "metadata": {"source": "test"}}]


def folder(tmp_path: Path) -> Path:
    # "b" judged 0 and, on a repeated row, 2: a relevant row wins whatever the order
    return beir_folder(tmp_path / "c", RECORDS, QUERIES, "q1\ta\t1\nq1\tc\t0\nq1\tb\t0\nq1\tb\t2\nq9\tc\t0\n")


def test_a_zero_row_of_the_qrels_is_a_judgment_of_non_relevance(tmp_path: Path) -> None:
    corpus = load_corpus(str(folder(tmp_path)))
    question = corpus.questions[0]
    assert dict(question.relevant) == {"a": 1, "b": 2}
    assert question.nonrelevant == {"c"}
    # a 0 row naming an unknown question is no loss: not counted among the skipped rows
    assert not any("skipped" in warning for warning in corpus.warnings)


def test_the_other_fields_of_a_query_are_kept(tmp_path: Path) -> None:
    question = load_corpus(str(folder(tmp_path))).questions[0]
    assert dict(question.fields) == {"tags": ["animals", "short"], "metadata": {"source": "test"}}


def test_resolved_judgments_hold_grade_zero_for_chunks_judged_not_relevant(tmp_path: Path) -> None:
    corpus = load_corpus(str(folder(tmp_path)))
    workbench = Workbench(corpus)
    qrels = resolved_qrels(workbench.retriever(setup_for(corpus)), corpus.questions)
    assert qrels == {"q1": {"a": 1, "b": 2, "c": 0}}


def test_a_document_judged_not_relevant_judges_its_chunks_unless_one_is_relevant() -> None:
    chunks = [Chunk("d#0", "d", 0, 0, 5, "one"), Chunk("d#1", "d", 1, 5, 9, "two"), Chunk("e#0", "e", 0, 0, 3, "x")]
    found = ChunkJudge(chunks).judged(Question("q", "t", {"d#1": 3}, nonrelevant=frozenset({"d", "e#0"})))
    assert found == {1: 3, 0: 0, 2: 0}


def test_a_workspace_grade_zero_moves_an_id_to_the_non_relevant_and_back(tmp_path: Path) -> None:
    corpus = load_corpus(str(folder(tmp_path)))
    workspace = Workspace(tmp_path / "ws")
    workspace.judge("q1", "a", 0)
    applied, _ = workspace.apply(corpus)
    assert dict(applied.questions[0].relevant) == {"b": 2}
    assert applied.questions[0].nonrelevant == {"a", "c"}
    workspace.judge("q1", "c", 3)
    applied, _ = workspace.apply(corpus)
    assert dict(applied.questions[0].relevant) == {"b": 2, "c": 3}
    assert applied.questions[0].nonrelevant == {"a"}


def test_the_qrels_export_writes_judgments_of_non_relevance_with_grade_zero(tmp_path: Path) -> None:
    corpus = load_corpus(str(folder(tmp_path)))
    workspace = Workspace(tmp_path / "ws")
    workspace.judge("q1", "a", 0)
    assert export_qrels(workspace.apply(corpus)[0], tmp_path / "out.qrels") == 3
    assert read_qrels(tmp_path / "out.qrels").judgments == {"q1": {"b": 2, "a": 0, "c": 0}}


def test_a_chunk_judged_not_relevant_is_not_made_relevant_again_by_the_answer_span() -> None:
    chunks = [Chunk("d#0", "d", 0, 0, 20, "the warranty is two years"), Chunk("d#1", "d", 1, 20, 40, "two years"),
              Chunk("e#0", "e", 0, 0, 9, "two years")]
    judge = ChunkJudge(chunks)
    spanned = Question("q", "how long", {}, answer="two years")
    assert judge.relevant(spanned) == {0: 1, 1: 1, 2: 1}
    # the user judged d#0 not relevant (its only relevant id gone): the span must not bring it back
    assert judge.relevant(Question("q", "how long", {}, "two years", frozenset({"d#0"}))) == {1: 1, 2: 1}
    # a document judged not relevant keeps the span from its chunks
    assert judge.relevant(Question("q", "how long", {}, "two years", frozenset({"d"}))) == {2: 1}
    # a chunk judged not relevant by its id stays out even when its document is judged relevant
    assert judge.relevant(Question("q", "t", {"d": 2}, None, frozenset({"d#1"}))) == {0: 2}
