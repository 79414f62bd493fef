"""BM25 through a Qdrant collection (qdrant-client's local mode, for real) against ranklens' own BM25 lucene.

The oracle is the local scorer (itself held to bm25s by test_parity.py): the
collection's sparse vectors carry BM25's chunk side and Qdrant's IDF modifier
adds lucene's idf, so top-10s and scores must agree up to float32.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")

from ranklens.engine.backends.qdrant import QdrantBackend, push  # noqa: E402
from ranklens.engine.corpus import Chunk, Corpus, Document, Question  # noqa: E402
from ranklens.engine.errors import Cancelled, RanklensError  # noqa: E402
from ranklens.engine.loaders import load_corpus  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from tests.test_parity import REPEATING, zipf_corpus, zipf_queries  # noqa: E402


def zipf() -> Corpus:
    """test_parity's Zipf texts as one-chunk documents; question i judges chunk 7i mod N relevant."""
    texts = zipf_corpus()
    docs = [Document(f"d{i}", "", t) for i, t in enumerate(texts)]
    chunks = [Chunk(f"d{i}", f"d{i}", 0, 0, len(t), t) for i, t in enumerate(texts)]
    questions = [Question(f"q{i}", q, {f"d{7 * i % len(texts)}": 1}) for i, q in enumerate(zipf_queries())]
    return Corpus("zipf", docs, chunks, questions)


def queries(corpus: Corpus) -> list[str]:
    return [q.text for q in corpus.questions] + (REPEATING if corpus.name == "studio-alfa" else [])


BM25 = {"scorer": "bm25"}  # studio-alfa's ranklens.toml says tfidf
CORPORA = {"studio-alfa": lambda: load_corpus("studio-alfa"), "zipf": zipf}


@pytest.fixture(params=CORPORA)
def pushed(request: pytest.FixtureRequest, tmp_path):
    """(local retriever, the same setup ranking through a freshly pushed local collection)."""
    corpus = CORPORA[request.param]()
    setup = setup_for(corpus, BM25)
    local = Workbench(corpus).retriever(setup)
    push(local, f"qdrant:{tmp_path}", "c")
    backend = QdrantBackend.open(f"qdrant:{tmp_path}", "c")
    try:
        yield local, Workbench(corpus, backend=backend).retriever(setup)
    finally:
        backend.close()


def assert_same_ranking(local_ids, local_scores, ids, scores) -> None:
    """Scores within 1e-5 relative; ids equal wherever the local score is not tied (up to float32) with a neighbour."""
    np.testing.assert_allclose(scores, local_scores, rtol=1e-5)
    gaps = np.abs(np.diff(local_scores)) > 1e-5 * np.abs(local_scores[1:])
    distinct = np.r_[True, gaps] & np.r_[gaps, True]
    assert list(ids[distinct]) == list(local_ids[distinct])


def test_bm25_top10_through_qdrant_equals_local(pushed) -> None:
    local, remote = pushed
    compared = 0
    for text in queries(local.corpus):
        query = local.query(text)
        if not query.ids.size:
            continue
        local_ids, local_scores = local.scorer.top_k(query, 10)
        keep = local_scores > 0
        ids, scores = remote.scorer.top_k(query, 10)
        assert ids.size == np.count_nonzero(keep)
        assert_same_ranking(local_ids[keep], local_scores[keep], ids, scores)
        compared += 1
    assert compared == len(queries(local.corpus))


@pytest.fixture
def alfa(tmp_path):
    """studio-alfa under BM25: (local retriever, the same setup through a freshly pushed collection 'alfa')."""
    corpus = load_corpus("studio-alfa")
    setup = setup_for(corpus, BM25)
    local = Workbench(corpus).retriever(setup)
    push(local, f"qdrant:{tmp_path}", "alfa")
    with QdrantBackend.open(f"qdrant:{tmp_path}", "alfa") as backend:
        yield local, Workbench(corpus, backend=backend).retriever(setup)


def test_studio_alfa_first_question_scores_pinned(alfa, tmp_path) -> None:
    local, remote = alfa
    text = local.corpus.questions[0].text
    hits, mine = remote.search(text, 3).hits, local.search(text, 3).hits
    assert remote.search(text).scorer.endswith(f"through qdrant:{tmp_path} collection alfa")
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in mine]
    assert [round(h.score, 4) for h in hits] == [round(h.score, 4) for h in mine]


def test_eval_metrics_through_qdrant_equal_local(pushed) -> None:
    local, remote = pushed
    mine, theirs = local.evaluate(latency_sample=5), remote.evaluate(latency_sample=5)
    assert theirs.metrics == pytest.approx(mine.metrics, abs=1e-12)
    assert [r.rank for r in theirs.evaluation.per_question] == [r.rank for r in mine.evaluation.per_question]
    assert mine.metrics["mrr"] > 0


def test_threshold_and_prompt_through_qdrant_equal_local(alfa) -> None:
    local, remote = alfa
    report, mine = remote.threshold(), local.threshold()
    assert report.best_accuracy == mine.best_accuracy
    assert report.best_threshold == pytest.approx(mine.best_threshold, rel=1e-5)
    assert [q.top_score for q in report.unanswerable] == pytest.approx(
        [q.top_score for q in mine.unanswerable], rel=1e-5)
    text = local.corpus.questions[1].text
    assert remote.prompt(text) == local.prompt(text)


def test_explain_puts_qdrant_score_beside_local_terms(alfa) -> None:
    local, remote = alfa
    text = local.corpus.questions[0].text
    top = remote.search(text, 1).hits[0]
    explanation = remote.explain(text, top.index)
    assert explanation.terms == local.explain(text, top.index).terms
    assert "equal to the local" in explanation.notes[-1]
    assert f"{top.score:.6g}" in explanation.notes[-1]


def test_failed_push_keeps_the_previous_collection(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    first = push(local, f"qdrant:{tmp_path}", "alfa")

    def cancel_after_first_batch(done: int, total: int, label: str) -> None:
        if done >= 4:
            raise Cancelled()

    with pytest.raises(Cancelled):
        push(local, f"qdrant:{tmp_path}", "alfa", replace=True, progress=cancel_after_first_batch, batch=4)
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(tmp_path))
    try:
        assert [c.name for c in client.get_collections().collections] == [first.physical]
        assert client.count("alfa").count == len(local.chunks)
    finally:
        client.close()


def test_replace_points_the_alias_at_the_new_collection(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    first = push(local, f"qdrant:{tmp_path}", "alfa")
    with pytest.raises(RanklensError, match="exists .--replace"):
        push(local, f"qdrant:{tmp_path}", "alfa")
    second = push(local, f"qdrant:{tmp_path}", "alfa", replace=True)
    assert second.replaced == first.physical and second.physical != first.physical
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(tmp_path))
    try:
        assert [c.name for c in client.get_collections().collections] == [second.physical]
    finally:
        client.close()


def test_other_analysis_settings_are_refused_by_name(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    push(Workbench(corpus).retriever(setup_for(corpus, BM25)), f"qdrant:{tmp_path}", "alfa")
    with QdrantBackend.open(f"qdrant:{tmp_path}", "alfa") as backend, \
            pytest.raises(RanklensError, match="stem='none' there, 'it' here"):
        Workbench(corpus, backend=backend).retriever(setup_for(corpus, {"stem": "it"}))


def test_other_corpus_is_refused(tmp_path) -> None:
    push(Workbench(zipf()).retriever(setup_for(zipf(), BM25)), f"qdrant:{tmp_path}", "c")
    corpus = load_corpus("studio-alfa")
    refusal = "holds 400 other chunks .of corpus 'zipf'., not the 18 of 'studio-alfa'"
    with QdrantBackend.open(f"qdrant:{tmp_path}", "c") as backend, pytest.raises(RanklensError, match=refusal):
        Workbench(corpus, backend=backend).retriever(setup_for(corpus, BM25))


def test_other_bm25_variant_cannot_be_pushed(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    with pytest.raises(RanklensError, match="lucene"):
        push(Workbench(corpus).retriever(setup_for(corpus, {**BM25, "bm25_variant": "robertson"})),
             f"qdrant:{tmp_path}", "alfa")


def test_judgments_the_collection_does_not_hold_are_counted(tmp_path) -> None:
    base = load_corpus("studio-alfa")
    questions = [Question("x1", "ferie", {"nope": 1, "gone": 2}), Question("x2", "password", {"nope": 1}),
                 *base.questions]
    corpus = Corpus(base.name, base.documents, base.chunks, questions, base.settings)
    push(Workbench(corpus).retriever(setup_for(corpus, BM25)), f"qdrant:{tmp_path}")
    with QdrantBackend.open(f"qdrant:{tmp_path}") as backend:
        remote = Workbench(corpus, backend=backend).retriever(setup_for(corpus, {}))
        assert remote.notes == [f"3 judged id(s) of 2 question(s) are neither chunks nor documents of "
                                f"qdrant:{tmp_path} collection studio-alfa: they count as not retrieved"]
        assert [r.rank for r in remote.evaluate(latency_sample=1).evaluation.per_question[:2]] == [None, None]


def test_explain_warns_when_the_collection_scores_otherwise(tmp_path) -> None:
    """A point rewritten behind ranklens' back (as another writer, or a sharded idf, would make it) scores
    otherwise there than here: the explanation says so, with both scores."""
    from qdrant_client import QdrantClient, models

    corpus = load_corpus("studio-alfa")
    setup = setup_for(corpus, BM25)
    local = Workbench(corpus).retriever(setup)
    push(local, f"qdrant:{tmp_path}", "alfa")
    text = corpus.questions[0].text
    top = local.search(text, 1).hits[0]
    row = local.index.counts[top.index]
    client = QdrantClient(path=str(tmp_path))
    try:
        doubled = models.SparseVector(indices=row.indices.tolist(), values=[2.0] * row.indices.size)
        client.update_vectors("alfa", points=[models.PointVectors(id=top.index, vector={"bm25": doubled})])
    finally:
        client.close()
    with QdrantBackend.open(f"qdrant:{tmp_path}", "alfa") as backend:
        note = Workbench(corpus, backend=backend).retriever(setup).explain(text, top.index).notes[-1]
    assert note.startswith(f"warning: qdrant:{tmp_path} collection alfa scores it ")
    assert f"the local computation {top.score:.6g}" in note and note.endswith("beyond float32)")
