"""BM25 through Qdrant on both of its paths against ranklens' own BM25 lucene.

The two paths: an Edge shard (``qdrant:PATH`` as the command line reaches it: the
Qdrant engine in-process, qdrant-edge-py), and qdrant-client, which speaks to a
server; with no server here, the client runs over its local mode, the client's
own in-process stand-in for a server (``QdrantBackend.open`` / ``push.push`` on a
folder). The oracle is the local scorer (itself held to bm25s by
test_parity.py): the collection's sparse vectors carry BM25's chunk side and
Qdrant's IDF modifier adds lucene's idf, so scores must agree up to float32 and
the rankings be the same on every question, ties aside.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")
pytest.importorskip("qdrant_edge", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")

from ranklens.engine.backends.qdrant import QdrantBackend, open_collection, push  # noqa: E402
from ranklens.engine.backends.qdrant import client_push  # noqa: E402
from ranklens.engine.backends.base import DEPTH  # noqa: E402
from ranklens.engine.corpus import Chunk, Corpus, Document, Question  # noqa: E402
from ranklens.engine.errors import Cancelled, RanklensError  # noqa: E402
from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from tests.test_parity import REPEATING, zipf_corpus, zipf_queries  # noqa: E402

# (push, open) of each path; the client's is its local mode, standing in for a server
PATHS = {"edge": (push, open_collection), "client-local-mode": (client_push.push, QdrantBackend.open)}


def zipf() -> Corpus:
    """test_parity's Zipf texts as one-chunk documents; question i judges chunk 7i mod N relevant."""
    texts = zipf_corpus()
    docs = [Document(f"d{i}", "", t) for i, t in enumerate(texts)]
    chunks = [Chunk(f"d{i}", f"d{i}", 0, 0, len(t), t) for i, t in enumerate(texts)]
    questions = [Question(f"q{i}", q, {f"d{7 * i % len(texts)}": 1}) for i, q in enumerate(zipf_queries())]
    return Corpus("zipf", docs, chunks, questions)


def queries(corpus: Corpus) -> list[str]:
    return [q.text for q in corpus.questions] + (REPEATING if corpus.name == "studio-alfa" else [])


def with_empty_chunks() -> Corpus:
    """studio-alfa plus two chunks with no term at all: ranklens' N counts them, so Qdrant's must."""
    base = load_corpus("studio-alfa")
    extra = [Document("vuoto", "", "... !!!"), Document("segni", "", "?? --")]
    chunks = [*base.chunks, *(Chunk(f"{d.id}-0", d.id, 0, 0, len(d.text), d.text) for d in extra)]
    return Corpus("with-empty", [*base.documents, *extra], chunks, base.questions, base.settings)


BM25 = {"scorer": "bm25"}  # studio-alfa's ranklens.toml says tfidf
CORPORA = {"studio-alfa": lambda: load_corpus("studio-alfa"), "zipf": zipf, "with-empty": with_empty_chunks}
CRANFIELD = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest):
    return PATHS[request.param]


@pytest.fixture(params=CORPORA)
def pushed(request: pytest.FixtureRequest, path, tmp_path):
    """(local retriever, the same setup ranking through a freshly pushed collection), on each path."""
    push_to, open_at = path
    corpus = CORPORA[request.param]()
    setup = setup_for(corpus, BM25)
    local = Workbench(corpus).retriever(setup)
    push_to(local, f"qdrant:{tmp_path}", "c")
    backend = open_at(f"qdrant:{tmp_path}", "c")
    try:
        yield local, Workbench(corpus, backend=backend).retriever(setup)
    finally:
        backend.close()


def assert_same_ranking(local_ids, local_scores, ids, scores) -> None:
    """Scores within 1e-5 relative; ids equal wherever the local score is not tied (up to float32) with a neighbour.

    The local ranking may run one place further than the engine's: a tie across the engine's cut is a tie too."""
    np.testing.assert_allclose(scores, local_scores[:scores.size], rtol=1e-5)
    gaps = np.abs(np.diff(local_scores)) > 1e-5 * np.abs(local_scores[1:])
    distinct = (np.r_[True, gaps] & np.r_[gaps, True])[:ids.size]
    assert list(ids[distinct]) == list(local_ids[:ids.size][distinct])


def assert_same_top(local, remote, texts: list[str], k: int = 10) -> None:
    """The engine's top k is the local one (its k+1-th tells whether the k-th is tied across the cut)."""
    for text in texts:
        query = local.query(text)
        local_ids, local_scores = local.scorer.top_k(query, k + 1)
        keep = local_scores > 0
        ids, scores = remote.scorer.top_k(query, k)
        assert ids.size == min(k, np.count_nonzero(keep)), text
        assert_same_ranking(local_ids[keep], local_scores[keep], ids, scores)


def test_bm25_top10_through_qdrant_equals_local(pushed) -> None:
    local, remote = pushed
    assert all(local.query(text).ids.size for text in queries(local.corpus))
    assert_same_top(local, remote, queries(local.corpus))


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason=f"Cranfield collection not found: looked for {CRANFIELD}")
def test_cranfield_through_an_edge_shard_ranks_every_question_as_local(tmp_path) -> None:
    """A real collection (1,400 abstracts, 225 questions), Edge only (local mode would take minutes)."""
    corpus = load_corpus(CRANFIELD)
    setup = setup_for(corpus, BM25)
    local = Workbench(corpus).retriever(setup)
    push(local, f"qdrant:{tmp_path}", batch=500)
    with open_collection(f"qdrant:{tmp_path}") as backend:
        remote = Workbench(corpus, backend=backend).retriever(setup)
        assert_same_top(local, remote, [q.text for q in corpus.questions], k=100)
        mine, theirs = local.evaluate(latency_sample=1), remote.evaluate(latency_sample=1)
        relevant = [np.array(sorted(local.relevant(q))) for q in corpus.questions]
        assert assert_ranks_as_the_deep_query(remote, [q.text for q in corpus.questions], relevant) > 200
    # the top 100 are the same up to ties (above); below them a float32 tie may swap a judged chunk with its
    # neighbour, which moves MRR by a few 1e-7 and nothing else
    assert {k: v for k, v in theirs.metrics.items() if k != "mrr"} == pytest.approx(
        {k: v for k, v in mine.metrics.items() if k != "mrr"}, abs=1e-12)
    # a chunk below the engine's top DEPTH is not retrieved through it: the local uncut MRR's ranks beyond count 0
    cut = np.mean([0.0 if r.rank is None or r.rank > DEPTH else 1 / r.rank for r in mine.evaluation.per_question])
    assert theirs.metrics["mrr"] == pytest.approx(cut, abs=1e-6)
    moved = [(a.rank, b.rank) for a, b in zip(mine.evaluation.per_question, theirs.evaluation.per_question,
                                              strict=True) if a.rank != b.rank]
    assert all(min(a or DEPTH + 1, b or DEPTH + 1) > 100 for a, b in moved), moved
    assert mine.metrics["ndcg@10"] > 0.3


def assert_ranks_as_the_deep_query(remote, questions, relevant_sets) -> int:
    """The engine's two short queries give every question the rank its top 1000 gives; returns how many of
    them it answered (None means the deep query decides, which is never wrong)."""
    told = 0
    for text, relevant in zip(questions, relevant_sets, strict=True):
        query = remote.query(text)
        rank = remote.scorer.gold_rank(query, relevant)
        if rank is not None:
            told += 1
            assert rank == remote.scorer.query_scores(query).gold_rank(relevant), text
    return told


def test_an_engines_rank_without_its_deep_query_is_the_deep_querys(pushed) -> None:
    local, remote = pushed
    texts = [q.text for q in local.corpus.questions]
    judged = [np.array(sorted(local.relevant(q))) for q in local.corpus.questions]
    # relevant sets the questions' own judgments would rarely make: a tie-heavy neighbourhood, a far chunk
    n = len(local.chunks)
    wide = [np.array(sorted({(7 * i) % n, (7 * i + 1) % n, (7 * i + 3) % n})) for i in range(len(texts))]
    last = [np.array([n - 1])] * len(texts)
    told = sum(assert_ranks_as_the_deep_query(remote, texts, sets) for sets in (judged, wide, last))
    assert told >= len(texts)  # the short way answers most questions


def test_a_batch_of_questions_tops_is_one_round_trip_and_each_questions_own(pushed, monkeypatch) -> None:
    local, remote = pushed
    asked = [remote.query(text) for text in queries(local.corpus)]
    for query, (ids, scores) in zip(asked, remote.scorer.top_k_batch(asked, 10), strict=True):
        alone, alone_scores = remote.scorer.top_k(query, 10)
        assert ids.tolist() == alone.tolist() and np.array_equal(scores, alone_scores)
    backend, sizes = remote.scorer.backend, []
    answer = backend._answer
    monkeypatch.setattr(backend, "_answer", lambda requests: sizes.append(len(requests)) or answer(requests))
    remote.evaluate(latency_sample=1)
    n = len(local.corpus.answerable)
    batches = [min(64, n - start) for start in range(0, n, 64)]  # then single queries: ranks, the latency
    assert [size for size in sizes if size > 1] == [size for size in batches if size > 1] and n > 1


@pytest.fixture
def alfa(path, tmp_path):
    """studio-alfa under BM25: (local retriever, the same setup through a freshly pushed collection 'alfa')."""
    push_to, open_at = path
    corpus = load_corpus("studio-alfa")
    setup = setup_for(corpus, BM25)
    local = Workbench(corpus).retriever(setup)
    push_to(local, f"qdrant:{tmp_path}", "alfa")
    with open_at(f"qdrant:{tmp_path}", "alfa") as backend:
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


def cancel_after_first_batch(done: int, total: int, label: str) -> None:
    if done >= 4:
        raise Cancelled()


def test_a_cancelled_push_into_an_edge_folder_keeps_the_previous_shard(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    first = push(local, f"qdrant:{tmp_path}", "alfa")
    with pytest.raises(Cancelled):
        push(local, f"qdrant:{tmp_path}", "alfa", replace=True, progress=cancel_after_first_batch, batch=4)
    assert sorted(p.name for p in (tmp_path / "alfa").iterdir()) == [".push.lock", "current.json", first.physical]
    with open_collection(f"qdrant:{tmp_path}", "alfa") as backend:
        assert Workbench(corpus, backend=backend).retriever(setup_for(corpus, BM25)).search("ferie").hits


def test_replace_switches_the_edge_shard_and_deletes_the_old_one(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    first = push(local, f"qdrant:{tmp_path}", "alfa")
    with pytest.raises(RanklensError, match="exists .--replace"):
        push(local, f"qdrant:{tmp_path}", "alfa")
    with open_collection(f"qdrant:{tmp_path}", "alfa") as reader:  # a reader open meanwhile keeps answering
        second = push(local, f"qdrant:{tmp_path}", "alfa", replace=True)
        assert Workbench(corpus, backend=reader).retriever(setup_for(corpus, BM25)).search("ferie").hits
    assert second.replaced == first.physical and second.physical != first.physical
    assert sorted(p.name for p in (tmp_path / "alfa").iterdir()) == [".push.lock", "current.json", second.physical]


def test_a_collection_that_lost_points_is_refused_as_damaged_through_the_client(tmp_path) -> None:
    from qdrant_client import QdrantClient, models

    corpus = load_corpus("studio-alfa")
    report = client_push.push(Workbench(corpus).retriever(setup_for(corpus, BM25)), f"qdrant:{tmp_path}", "alfa")
    client = QdrantClient(path=str(tmp_path))
    client.delete(report.physical, points_selector=models.PointIdsList(points=[3, 7]))
    client.close()
    with pytest.raises(RanklensError, match="collection 'alfa' is damaged: it holds 16 points, its push wrote 18"):
        QdrantBackend.open(f"qdrant:{tmp_path}", "alfa")


def test_a_cancelled_push_through_the_client_keeps_the_previous_collection(tmp_path) -> None:
    """The alias switch on the client's local mode, standing in for a server."""
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    first = client_push.push(local, f"qdrant:{tmp_path}", "alfa")
    with pytest.raises(Cancelled):
        client_push.push(local, f"qdrant:{tmp_path}", "alfa", replace=True, progress=cancel_after_first_batch,
                         batch=4)
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(tmp_path))
    try:
        assert [c.name for c in client.get_collections().collections] == [first.physical]
        assert client.count("alfa").count == len(local.chunks)
    finally:
        client.close()


def test_a_push_through_the_client_finding_the_alias_switched_meanwhile_is_dropped(tmp_path, monkeypatch) -> None:
    """Another push's switch happening while this one uploads (a server has no lock): that one stays."""
    from qdrant_client import QdrantClient, models

    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    connect, clients = client_push.connect, []

    def keeping(*args: object) -> QdrantClient:
        clients.append(connect(*args))
        return clients[-1]

    def another_push_switches(done: int, total: int, label: str) -> None:
        if done == 4:
            clients[0].create_collection("alfa-other", vectors_config={})
            clients[0].update_collection_aliases(change_aliases_operations=[models.CreateAliasOperation(
                create_alias=models.CreateAlias(collection_name="alfa-other", alias_name="alfa"))])

    monkeypatch.setattr(client_push, "connect", keeping)
    with pytest.raises(RanklensError, match=r"collection 'alfa' was pushed by another process meanwhile "
                                            r"\(now alfa-other\); this push was dropped"):
        client_push.push(local, f"qdrant:{tmp_path}", "alfa", progress=another_push_switches, batch=4)
    client = QdrantClient(path=str(tmp_path))
    try:
        assert [c.name for c in client.get_collections().collections] == ["alfa-other"]
    finally:
        client.close()


def test_replace_through_the_client_points_the_alias_at_the_new_collection(tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    first = client_push.push(local, f"qdrant:{tmp_path}", "alfa")
    with pytest.raises(RanklensError, match="exists .--replace"):
        client_push.push(local, f"qdrant:{tmp_path}", "alfa")
    second = client_push.push(local, f"qdrant:{tmp_path}", "alfa", replace=True)
    assert second.replaced == first.physical and second.physical != first.physical
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(tmp_path))
    try:
        assert [c.name for c in client.get_collections().collections] == [second.physical]
    finally:
        client.close()


def test_other_analysis_settings_are_refused_by_name(path, tmp_path) -> None:
    push_to, open_at = path
    corpus = load_corpus("studio-alfa")
    push_to(Workbench(corpus).retriever(setup_for(corpus, BM25)), f"qdrant:{tmp_path}", "alfa")
    with open_at(f"qdrant:{tmp_path}", "alfa") as backend, \
            pytest.raises(RanklensError, match="stem='none' there, 'it' here"):
        Workbench(corpus, backend=backend).retriever(setup_for(corpus, {"stem": "it"}))


def test_other_corpus_is_refused(path, tmp_path) -> None:
    push_to, open_at = path
    push_to(Workbench(zipf()).retriever(setup_for(zipf(), BM25)), f"qdrant:{tmp_path}", "c")
    corpus = load_corpus("studio-alfa")
    refusal = "holds 400 other chunks .of corpus 'zipf'., not the 18 of 'studio-alfa'"
    with open_at(f"qdrant:{tmp_path}", "c") as backend, pytest.raises(RanklensError, match=refusal):
        Workbench(corpus, backend=backend).retriever(setup_for(corpus, BM25))


def test_other_bm25_variant_cannot_be_pushed(path, tmp_path) -> None:
    corpus = load_corpus("studio-alfa")
    with pytest.raises(RanklensError, match="lucene"):
        path[0](Workbench(corpus).retriever(setup_for(corpus, {**BM25, "bm25_variant": "robertson"})),
                f"qdrant:{tmp_path}", "alfa")
    assert list(tmp_path.iterdir()) == []


def test_judgments_the_collection_does_not_hold_are_counted(path, tmp_path) -> None:
    push_to, open_at = path
    base = load_corpus("studio-alfa")
    questions = [Question("x1", "ferie", {"nope": 1, "gone": 2}), Question("x2", "password", {"nope": 1}),
                 *base.questions]
    corpus = Corpus(base.name, base.documents, base.chunks, questions, base.settings)
    push_to(Workbench(corpus).retriever(setup_for(corpus, BM25)), f"qdrant:{tmp_path}")
    with open_at(f"qdrant:{tmp_path}") as backend:
        remote = Workbench(corpus, backend=backend).retriever(setup_for(corpus, {}))
        assert remote.notes == [f"3 judged id(s) of 2 question(s) are neither chunks nor documents of "
                                f"qdrant:{tmp_path} collection studio-alfa: they count as not retrieved"]
        assert [r.rank for r in remote.evaluate(latency_sample=1).evaluation.per_question[:2]] == [None, None]


def rewrite_point(where: Path, collection: str, point: int, vector: dict, edge: bool) -> None:
    """One point's sparse vector rewritten behind ranklens' back, through the engine's own API."""
    if edge:
        import json

        import qdrant_edge

        shard_dir = where / collection / json.loads((where / collection / "current.json").read_text())["shard"]
        shard = qdrant_edge.EdgeShard.load(str(shard_dir))
        try:
            rewritten = qdrant_edge.PointVectors(point, {"bm25": qdrant_edge.SparseVector(**vector)})
            shard.update(qdrant_edge.UpdateOperation.update_vectors([rewritten]))
            shard.flush()
        finally:
            shard.close()
        return
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(where))
    try:
        sparse = models.SparseVector(**vector)
        client.update_vectors(collection, points=[models.PointVectors(id=point, vector={"bm25": sparse})])
    finally:
        client.close()


def alfa_pushed(edge: bool, tmp_path: Path):  # noqa: ANN201
    """studio-alfa's BM25 retriever, pushed as collection 'alfa' on one path; and that path's opener."""
    push_to, open_at = PATHS["edge" if edge else "client-local-mode"]
    corpus = load_corpus("studio-alfa")
    local = Workbench(corpus).retriever(setup_for(corpus, BM25))
    push_to(local, f"qdrant:{tmp_path}", "alfa")
    return local, open_at


def rewrite_weights(where: Path, local, chunk: int, value: float, edge: bool) -> None:
    """Chunk ``chunk``'s sparse vector in collection 'alfa' rewritten to ``value`` at each of its terms."""
    row = local.index.counts[chunk]
    rewrite_point(where, "alfa", chunk, {"indices": row.indices.tolist(), "values": [value] * row.indices.size},
                  edge)


@pytest.mark.parametrize("edge", [True, False], ids=["edge", "client-local-mode"])
def test_explain_warns_when_the_collection_scores_otherwise(edge, tmp_path) -> None:
    """A point rewritten behind ranklens' back (as another writer, or a sharded idf, would make it) scores
    otherwise there than here: the explanation says so, with both scores."""
    local, open_at = alfa_pushed(edge, tmp_path)
    corpus, setup = local.corpus, local.setup
    text = corpus.questions[0].text
    top = local.search(text, 1).hits[0]
    rewrite_weights(tmp_path, local, top.index, 2.0, edge)
    with open_at(f"qdrant:{tmp_path}", "alfa") as backend:
        note = Workbench(corpus, backend=backend).retriever(setup).explain(text, top.index).notes[-1]
    assert note.startswith(f"warning: qdrant:{tmp_path} collection alfa scores it ")
    assert f"the local computation {top.score:.6g}" in note and note.endswith("beyond float32)")


@pytest.mark.parametrize("edge", [True, False], ids=["edge", "client-local-mode"])
def test_a_rank_beyond_the_top_10_is_the_engines_when_its_scores_are_not_the_local_ones(edge, tmp_path) -> None:
    """The local scores only guide the short query: a chunk the engine scores otherwise (rewritten behind
    ranklens' back) still gets the rank the engine's top 1000 gives it."""
    local, open_at = alfa_pushed(edge, tmp_path)
    corpus, setup = local.corpus, local.setup
    text = corpus.questions[0].text
    query = local.query(text)
    ranked, scores = local.scorer.top_k(query, 30)
    lowered, raised = int(ranked[11]), int(ranked[15])  # beyond the top 10, both sharing a term with the query
    assert scores[15] > 0
    for chunk, value in ((lowered, 0.01), (raised, 5.0)):
        rewrite_weights(tmp_path, local, chunk, value, edge)
    with open_at(f"qdrant:{tmp_path}", "alfa") as backend:
        remote = Workbench(corpus, backend=backend).retriever(setup)
        for relevant in ([lowered], [raised], [lowered, raised]):
            rank = remote.scorer.gold_rank(remote.query(text), np.array(relevant))
            assert rank == remote.scorer.query_scores(remote.query(text)).gold_rank(np.array(relevant))
            assert rank != local.scorer.query_scores(query).gold_rank(np.array(relevant))
