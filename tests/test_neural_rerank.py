"""Reranking with a tiny CrossEncoder made here: the order is the model's own ``predict()`` order.

The first stage is any scorer (TF-IDF, BM25, fusion...); the reranker rereads its
top N and reorders them by ``CrossEncoder.predict`` on (query, chunk text) pairs,
computed here independently of ranklens. Below the top N, the first stage's order
stays. Evaluation reports both rankings; the first stage's numbers are the
ordinary ``Retriever.evaluate``'s.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: nothing here may reach the network

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("sentence_transformers", reason="the neural extra is not installed: pip install 'ranklens[neural]'")

from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.measuring.metrics import QuestionScores, evaluate  # noqa: E402
from ranklens.engine.neural.rerank import evaluate_reranked, rerank_search  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from ranklens.engine.topk import QueryScores  # noqa: E402
from tests.support import tiny_models  # noqa: E402
from tests.support.cli import assert_error, run_cli  # noqa: E402

QUERY = "ho cancellato un file per sbaglio"


@pytest.fixture(scope="module")
def reranker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_models.cross_encoder(tmp_path_factory.mktemp("models") / "reranker")


@pytest.fixture(scope="module")
def oracle(reranker: Path):  # noqa: ANN201
    from sentence_transformers import CrossEncoder

    return CrossEncoder(str(reranker), device="cpu")


@pytest.fixture(scope="module")
def studio_alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


@pytest.mark.parametrize("scorer, top, k", [("tfidf", 5, 5), ("bm25", 5, 3), ("fusion", 3, 6)])
def test_the_reranked_order_is_the_cross_encoders_predict_order(
        studio_alfa, reranker, oracle, scorer: str, top: int, k: int) -> None:
    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": scorer, "rerank": str(reranker),
                                                                     "rerank_top": top, "k": k}))
    first = retriever.search(QUERY, max(k, top)).hits
    head = first[:top]
    predicted = oracle.predict([(QUERY, h.chunk.text) for h in head])
    assert len(set(np.round(predicted, 6))) == len(head), "the tiny model gives distinct scores"
    order = np.argsort(-predicted, kind="stable")
    expected = [head[i].chunk.id for i in order] + [h.chunk.id for h in first[top:]]
    result = rerank_search(retriever, QUERY)
    assert [h.chunk.id for h in result.hits] == expected[:k]
    for hit in result.hits:
        assert hit.first_rank == next(h.rank for h in first if h.chunk.id == hit.chunk.id)
        assert hit.first_score == pytest.approx(first[hit.first_rank - 1].score)
        if hit.first_rank <= top:
            assert hit.rerank_score == pytest.approx(float(predicted[hit.first_rank - 1]), abs=1e-6)
        else:
            assert hit.rerank_score is None


def test_reranked_evaluation_reports_both_rankings(studio_alfa, reranker, oracle) -> None:
    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "tfidf", "rerank": str(reranker)}))
    report = evaluate_reranked(retriever)
    assert report.first.metrics == retriever.evaluate().metrics  # the seed's TF-IDF: 10/15, 13/15, 0.786
    assert round(report.first.metrics["hit@1"] * 15) == 10 and f"{report.first.metrics['mrr']:.3f}" == "0.786"
    # the oracle: each question's first-stage top 5 reordered by predict(), the rest in first-stage order
    rows = []
    for q in retriever.corpus.answerable:
        scores = np.asarray(retriever.scores(retriever.query(q.text)), dtype=float)
        order = np.argsort(-scores, kind="stable")
        head = [i for i in order[:5] if scores[i] > 0]
        predicted = oracle.predict([(q.text, retriever.chunks[i].text) for i in head])
        # the ranking rule: a chunk the question matches nothing of (TF-IDF 0) is not retrieved, reranked or not
        ranking = ([head[j] for j in np.argsort(-predicted, kind="stable")]
                   + [i for i in order if i not in head and scores[i] > 0])
        reranked = np.zeros(len(scores))
        reranked[ranking] = np.arange(len(ranking), 0, -1)
        rel = retriever.relevant(q)
        rows.append(QuestionScores(q.id, q.text, QueryScores.of(reranked, 0.0), np.array(list(rel)),
                                   np.array(list(rel.values()), float),
                                   retriever.relevant_text(q)))
    expected = evaluate(rows, retriever.setup.k)
    assert report.reranked.metrics == pytest.approx(expected.metrics)
    assert [r.rank for r in report.reranked.per_question] == [r.rank for r in expected.per_question]
    data = report.to_dict()
    assert data["metrics"] == report.first.metrics and data["rerank"]["metrics"] == pytest.approx(expected.metrics)
    assert data["rerank"]["rerank_top"] == 5 and data["rerank"]["timing"]["rerank_s"] > 0


def test_rerank_on_the_command_line(capsys, reranker, oracle) -> None:
    run = run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", str(reranker), "--json")
    assert run.status == 0, run.err
    rows = run.json["results"]
    assert run.json["rerank_top"] == 5 and [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    assert sorted(r["first_rank"] for r in rows) == [1, 2, 3, 4, 5]
    predicted = oracle.predict([(QUERY, r["text"]) for r in rows])
    assert [r["rerank_score"] for r in rows] == pytest.approx(predicted.tolist(), abs=1e-6)
    assert list(predicted) == sorted(predicted, reverse=True)
    human = run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", str(reranker), "--rerank-top", "2", "-k", "3")
    assert human.status == 0 and "first→re" in human.out and "· rerank reranker top 2 ·" in human.out
    lines = [line for line in human.out.splitlines() if " → " in line]
    assert len(lines) == 3 and lines[2].lstrip().startswith("3 → 3")
    evaluation = run_cli(capsys, "eval", "studio-alfa", "--rerank", str(reranker))
    assert evaluation.status == 0, evaluation.err
    assert "first stage" in evaluation.out and "reranked" in evaluation.out
    data = run_cli(capsys, "eval", "studio-alfa", "--rerank", str(reranker), "--json").json
    assert set(data["rerank"]) >= {"metrics", "per_question", "reranker", "rerank_top", "timing"}
    assert_error(run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", str(reranker), "--rerank-top", "0"),
                 "--rerank-top")


def test_the_prompt_takes_the_reranked_top(capsys, studio_alfa, reranker) -> None:
    from ranklens.engine.prompt import build_prompt

    retriever = studio_alfa.retriever(setup_for(studio_alfa.corpus, {"scorer": "tfidf", "rerank": str(reranker)}))
    hits = rerank_search(retriever, QUERY, k=2).hits
    expected = build_prompt(QUERY, [(retriever.corpus.document(h.chunk.doc_id).title or h.chunk.doc_id, h.chunk.text)
                                    for h in hits])
    run = run_cli(capsys, "prompt", "studio-alfa", QUERY, "-k", "2", "--rerank", str(reranker))
    assert run.status == 0 and run.out == expected + "\n"
