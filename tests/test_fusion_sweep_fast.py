"""The fusion sweep ranks its fusions on a pool of chunks (engine.experiments.fusion_grid); these pin
it, bit for bit, to the straightforward definition: every candidate fused over all N chunks and
scored by ``score_question``, the sweep's computation before the pool (kept here as the oracle).

Ties matter: BM25 and TF-IDF leave most chunks at 0, and scores of a few distinct values tie at
the pool's edge, where the pool must give way to a fusion over all chunks.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.experiments import fusion_grid
from ranklens.engine.experiments.fusion_grid import FusionGrid, ndcg_of_tops
from ranklens.engine.experiments.weights import Candidate, candidates, fusion_sweep, ndcg_tables
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.metric_table import NDCG
from ranklens.engine.measuring.metrics import QuestionScores, score_question
from ranklens.engine.retriever import Retriever, Workbench, setup_for
from ranklens.engine.scoring.fusion import NORMALISERS, FusionScorer, convex_weights, fuse_lists
from ranklens.engine.topk import top_k

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def fused_by_definition(lists: list[np.ndarray], c: Candidate, rrf_k: int) -> np.ndarray:
    if c.weight is None:
        return fuse_lists(lists, c.method, rrf_k)
    normalised = [NORMALISERS[c.method](s) for s in lists]
    return np.add.reduce([w * s for w, s in zip(convex_weights(len(lists), c.weight), normalised)])


def oracle_tables(retriever: Retriever, tried: tuple[Candidate, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The sweep before the pool: each candidate fused over all chunks, each row through score_question."""
    scorer = retriever.scorer
    assert isinstance(scorer, FusionScorer)
    questions = retriever.corpus.answerable
    table, alone = np.zeros((len(questions), len(tried))), np.zeros((len(questions), len(scorer.parts)))
    for i, q in enumerate(questions):
        lists = [np.asarray(p.scores(retriever.query(q.text)), dtype=np.float64) for p in scorer.parts]
        relevant = retriever.relevant(q)
        rel, grades = np.array(list(relevant), dtype=np.int64), np.array(list(relevant.values()), dtype=float)

        def ndcg(scores: np.ndarray) -> float:
            return score_question(QuestionScores(q.id, q.text, scores, rel, grades)).values[NDCG]  # noqa: B023

        table[i] = [ndcg(fused_by_definition(lists, c, scorer.rrf_k)) for c in tried]
        alone[i] = [ndcg(s) for s in lists]
    return table, alone


def assert_same_tables(retriever: Retriever, tried: tuple[Candidate, ...]) -> None:
    fast, fast_alone = ndcg_tables(retriever, tried)
    table, alone = oracle_tables(retriever, tried)
    assert np.array_equal(fast, table) and np.array_equal(fast_alone, alone)  # equal, not approximately


def count_fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The fusions ranked over all N chunks because the pool could not vouch for their top 10, counted in
    the list's one item: every top_k call of the grid beyond RRF's ranking (one per question)."""
    calls = [0]
    top_k = fusion_grid.top_k

    def counting(scores: np.ndarray, k: int) -> np.ndarray:
        calls[0] += 1
        return top_k(scores, k)

    monkeypatch.setattr(fusion_grid, "top_k", counting)
    return calls


@pytest.fixture(scope="module")
def studio_alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


@pytest.mark.parametrize("fuse", ["bm25,tfidf", "tfidf,bm25,lsa"])
@pytest.mark.parametrize("pool", [fusion_grid.POOL, 10])
def test_the_sweep_tables_equal_the_definition_on_studio_alfa(studio_alfa: Workbench, monkeypatch: pytest.MonkeyPatch,
                                                              fuse: str, pool: int) -> None:
    """The pool down to each part's top 10, on a corpus of 32 chunks where sparse scorers tie most at 0."""
    monkeypatch.setattr(fusion_grid, "POOL", pool)
    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "fusion", "fuse": fuse, "rrf_k": 30}))
    assert_same_tables(retriever, candidates(weights=(0.0, 0.25, 0.5, 0.9, 1.0)))


def test_the_sweep_tables_equal_the_definition_with_a_dense_part(studio_alfa: Workbench, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A static embedding model's cosines (negative ones too: min-max's floor is then the lowest score)."""
    pytest.importorskip("model2vec", reason="the neural extra is not installed")
    from tests.support.tiny_models import static_model

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = static_model(tmp_path / "static")
    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "fusion", "fuse": "dense,bm25",
                                                                     "model": str(model)}))
    assert min(float(np.min(np.asarray(retriever.scorer.parts[0].scores(retriever.query(q.text)))))
               for q in studio_alfa.corpus.answerable) < 0
    assert_same_tables(retriever, candidates())


@pytest.fixture(scope="module")
def cranfield() -> tuple[Retriever, tuple[np.ndarray, np.ndarray]]:
    """Cranfield's fusion of three parts and the definition's tables on it, which no pool changes: both
    pools are checked against one computation."""
    workbench = Workbench(load_corpus(DATA / "cranfield"))
    retriever = workbench.retriever(setup_for(workbench.corpus, {"scorer": "fusion", "fuse": "bm25,tfidf,lsa"}))
    return retriever, oracle_tables(retriever, candidates())


@pytest.mark.skipif(not (DATA / "cranfield" / "corpus.jsonl").is_file(), reason="the Cranfield collection is absent")
@pytest.mark.xdist_group("fusion-sweep-cranfield")  # one worker builds the fixture
@pytest.mark.parametrize("pool", [fusion_grid.POOL, 10])
def test_the_sweep_tables_equal_the_definition_on_cranfield(cranfield, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                            pool: int) -> None:
    """1,400 chunks, 225 questions with graded judgments, three parts; at a pool of 10 many fusions
    cannot be vouched for and are ranked over all chunks, and the numbers stay the definition's."""
    monkeypatch.setattr(fusion_grid, "POOL", pool)
    retriever, (table, alone) = cranfield
    calls = count_fallbacks(monkeypatch)
    fast, fast_alone = ndcg_tables(retriever, candidates())
    assert np.array_equal(fast, table) and np.array_equal(fast_alone, alone)  # equal, not approximately
    fallbacks = calls[0] - len(retriever.corpus.answerable)
    assert (fallbacks > 100) == (pool == 10), fallbacks  # the full-N path is exercised; the default pool needs none


def test_ties_at_the_pool_edge_go_to_the_lower_index() -> None:
    """Scores of few distinct values, a block of questions at a time: whole runs of chunks tie at the
    10th place and at the pool's edge; a question with a NaN or an inf is ranked as top_k ranks it."""
    rng = np.random.default_rng(7)
    tried = candidates(weights=(0.0, 0.3, 0.5, 1.0))
    for parts in (2, 3):
        grid = FusionGrid([(c.method, c.weight) for c in tried], parts, 60)
        for n in (5, 12, 40, 80, 399):
            block = rng.integers(0, 4, (parts, 30, n)) * rng.choice([0.0, 1.0], (parts, 30, n), p=[0.6, 0.4])
            block[0, 3, 2], block[-1, 7, 0] = np.nan, np.inf
            with np.errstate(invalid="ignore"):  # the normalisers' warnings on the NaN
                tops, alone = grid.tops(list(block))
                expected_tops = [[top_k(fused_by_definition(list(block[:, q]), c, 60), 10) for c in tried]
                                 for q in range(30)]
            for q in range(30):
                lists = list(block[:, q])
                expected = expected_tops[q]
                assert np.array_equal(tops[q], np.array(expected)), (parts, n, q)
                assert np.array_equal(alone[q], np.array([top_k(s, 10) for s in lists])), (parts, n, q)


def test_ndcg_of_tops_is_score_questions() -> None:
    """Graded, duplicated and zero-graded judgments, rankings with and without hits, fewer than 10 chunks."""
    rng = np.random.default_rng(3)
    for n in (4, 12, 300):
        for _ in range(30):
            scores = rng.integers(0, 5, (6, n)).astype(float)
            judged = QuestionScores("q", "q", scores[0], rng.integers(0, n, 4), rng.integers(0, 3, 4).astype(float))
            tops = np.array([np.argsort(-s, kind="stable")[:10] for s in scores])
            by_definition = [score_question(QuestionScores("q", "q", s, judged.relevant, judged.grades)).values[NDCG]
                             for s in scores]
            assert ndcg_of_tops(tops, np.ones(tops.shape, bool), judged).tolist() == by_definition


def test_the_sweep_still_reports_progress_per_question_and_cancels(studio_alfa: Workbench) -> None:
    from ranklens.engine.errors import Cancelled

    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "fusion", "fuse": "bm25,tfidf"}))
    seen: list[tuple[int, int]] = []

    def stop_at_four(done: int, total: int, label: str) -> None:
        seen.append((done, total))
        if done == 4:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        fusion_sweep(retriever, progress=stop_at_four)
    assert seen == [(1, 15), (2, 15), (3, 15), (4, 15)]
