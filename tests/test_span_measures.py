"""span_recall@k, span_precision@k, span_iou@k (engine/measuring/measures/span_*.py) equal Chroma's chunking-evaluation
scores, transcribed in tests/support/chroma_evaluation.py, on hand-worked and random cases, and eval reports
them over the relevant text of judged spans and answer spans."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.corpus import Question
from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.measures.covered_text import covered_text
from ranklens.engine.measuring.measures.span_iou import span_iou
from ranklens.engine.measuring.measures.span_precision import span_precision
from ranklens.engine.measuring.measures.span_recall import span_recall
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.topk import top_k
from ranklens.engine.workspace.store import Workspace
from tests.support.chroma_evaluation import question_scores, union_ranges
from tests.support.examples import examples
from tests.support.files import text_folder

DOCUMENT_GAP = 10_000  # documents laid end to end, this far apart, for Chroma's one corpus per question


def ours(relevant: list[tuple[str, int, int]], retrieved: list[tuple[str, int, int]]) -> tuple[float, float, float]:
    text = covered_text(relevant, retrieved)
    return span_iou(text), span_recall(text), span_precision(text)


def chroma(relevant: list[tuple[str, int, int]], retrieved: list[tuple[str, int, int]]) -> tuple[float, float, float]:
    """Chroma's scores with every document on one line (document i at i x DOCUMENT_GAP), its references merged
    (Chroma sums the references' lengths: a text judged twice counts once in R)."""
    docs = sorted({doc for doc, _, _ in relevant + retrieved})

    def line(doc: str, start: int, end: int) -> tuple[int, int]:
        offset = docs.index(doc) * DOCUMENT_GAP
        return offset + start, offset + end

    references = [{"start_index": s, "end_index": e} for s, e in union_ranges([line(*r) for r in relevant])]
    metadatas = [dict(zip(("start_index", "end_index"), line(*c)), corpus_id="corpus") for c in retrieved]
    return question_scores(references, "corpus", metadatas)


def test_a_hand_worked_question() -> None:
    relevant = [("a", 10, 30)]
    retrieved = [("a", 0, 20), ("a", 25, 50), ("a", 100, 120), ("b", 0, 10)]
    # covered [10, 20) and [25, 30): 15 of R's 20; the chunks' lengths sum to 75; R misses 5
    assert ours(relevant, retrieved) == pytest.approx((15 / 80, 15 / 20, 15 / 75))
    assert ours(relevant, retrieved) == pytest.approx(chroma(relevant, retrieved))


def test_overlapping_chunks_count_their_shared_text_once_covered_and_twice_retrieved() -> None:
    relevant, retrieved = [("a", 0, 10)], [("a", 0, 8), ("a", 4, 12)]
    assert ours(relevant, retrieved) == pytest.approx((10 / 16, 1.0, 10 / 16))
    assert ours(relevant, retrieved) == pytest.approx(chroma(relevant, retrieved))


def test_chroma_s_corpus_filter_is_our_documents() -> None:
    references = [{"start_index": 5, "end_index": 25}]
    metadatas = [{"start_index": 0, "end_index": 10, "corpus_id": "a"},
                 {"start_index": 0, "end_index": 30, "corpus_id": "b"}]  # another document: no text of R
    assert ours([("a", 5, 25)], [("a", 0, 10), ("b", 0, 30)]) == pytest.approx(
        question_scores(references, "a", metadatas))


spans = st.tuples(st.sampled_from("abc"), st.integers(0, 300), st.integers(1, 120)).map(
    lambda t: (t[0], t[1], t[1] + t[2]))


@settings(max_examples=examples(300), deadline=None)
@given(relevant=st.lists(spans, min_size=1, max_size=6), retrieved=st.lists(spans, min_size=1, max_size=10))
def test_random_questions_score_as_chroma_scores_them(relevant, retrieved) -> None:  # noqa: ANN001
    assert ours(relevant, retrieved) == pytest.approx(chroma(relevant, retrieved), abs=1e-12)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Three documents of 30 numbered words; chunks of 10 words without overlap."""
    files = {f"d{d}.txt": " ".join(f"w{d}{i:02d}" for i in range(30)) for d in range(3)}
    files["ranklens.toml"] = "size = 10\noverlap = 0\n"
    return text_folder(tmp_path / "docs", files)


def _eval(folder: Path, ws: Path, **setting: int) -> tuple[dict[str, float], list[tuple[str, int, int]]]:
    """The span measures of eval on the folder, and the chunks its one question retrieves in its top 10, as spans:
    by the ranking rule a chunk that matches nothing is not retrieved, here (every word of the folder is its
    own) a chunk holding none of the question's words."""
    judged = judged_corpus(load_corpus(str(folder)), Workspace(ws))
    retriever = Workbench(judged.corpus).retriever(setup_for(judged.corpus, {"k": 10, **setting}))
    question = judged.corpus.answerable[0]
    words = set(question.text.split())
    top = [i for i in top_k(retriever.scores(retriever.query(question.text)), 10).tolist()
           if words & set(retriever.chunks[i].text.split())]
    metrics = retriever.evaluate().metrics
    found = (metrics["span_iou@10"], metrics["span_recall@10"], metrics["span_precision@10"])
    return found, [(retriever.chunks[i].doc_id, retriever.chunks[i].start, retriever.chunks[i].end) for i in top]


def test_eval_measures_an_answer_span_cut_by_the_chunking(folder: Path, tmp_path: Path) -> None:
    text = (folder / "d1.txt").read_text()
    answer = "w108 w109 w110 w111"  # across the first two chunks of d1 (words 0-9, 10-19)
    Workspace(tmp_path / "ws").add_questions([Question("q", "w109 w110", answer=answer)])
    start = text.index(answer)
    measured, top = _eval(folder, tmp_path / "ws")
    assert measured == pytest.approx(chroma([("d1.txt", start, start + len(answer))], top))
    # both halves in the top 10; the space between the chunks in neither; the two chunks retrieved (w100-w109 and
    # w110-w119, 49 characters each) the only ones: the other chunks hold neither word
    assert measured == pytest.approx((18 / (98 + 1), 18 / 19, 18 / 98))


def test_eval_measures_the_text_of_a_span_judgment_under_another_chunking(folder: Path, tmp_path: Path) -> None:
    corpus = load_corpus(str(folder))
    chunk = next(c for c in Workbench(corpus).chunks(setup_for(corpus)) if c.id == "d2.txt#1")
    ws = Workspace(tmp_path / "ws")
    ws.add_questions([Question("q", "w215 w200")])
    ws.judge("q", chunk.id, 2, span=chunk.text_span)
    measured, top = _eval(folder, tmp_path / "ws", size=4, overlap=1)
    assert measured == pytest.approx(chroma([("d2.txt", chunk.start, chunk.end)], top))
    assert 0 < measured[2] < 1 and 0 < measured[1] <= 1


def test_eval_s_span_measures_on_studio_alfa_are_chroma_s_over_the_chunks_each_question_retrieves() -> None:
    """The oracle of eval's table (tests/test_metric_table.py): scikit-learn's TF-IDF ranks the chunks, a chunk
    scoring 0 (none of the question's words) is not retrieved, Chroma scores the retrieved ones in the top 10."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus))
    chunks = retriever.chunks
    vectorizer = TfidfVectorizer().fit([c.text for c in chunks])
    vectors = vectorizer.transform([c.text for c in chunks])
    scores, retrieved = [], []
    for question in corpus.answerable:
        score = (vectors @ vectorizer.transform([question.text]).T).toarray().ravel()
        top = [i for i in sorted(range(len(chunks)), key=lambda i: -score[i])[:10] if score[i] > 0]
        retrieved.append(len(top))
        relevant = [(c.doc_id, c.start, c.end) for c in chunks if c.id in question.relevant]  # each holds the answer
        scores.append(chroma(relevant, [(chunks[i].doc_id, chunks[i].start, chunks[i].end) for i in top]))
    assert sorted(retrieved)[:5] == [7, 8, 8, 9, 9]  # the rule leaves chunks out of 5 questions' top 10
    metrics = retriever.evaluate().metrics
    assert (metrics["span_iou@10"], metrics["span_recall@10"], metrics["span_precision@10"]) == pytest.approx(
        tuple(sum(column) / len(scores) for column in zip(*scores)))
    assert f"{metrics['span_precision@10']:.3f}" == "0.106"
