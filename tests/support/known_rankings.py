"""A corpus whose questions the user's own retriever answers from rankings the test knows, and trec_eval's
metrics of those rankings (the oracle of ``eval --backend endpoint:…`` and ``python:…``)."""
from __future__ import annotations

import random
import statistics
from pathlib import Path

from tests.support.files import beir_folder
from tests.support.ranking_server import Ranking
from tests.support.trec_oracle import SAME, trec_eval

QUESTIONS = 30
DOCS = 40


def corpus(folder: Path) -> tuple[Path, dict[str, dict[str, int]], dict[str, Ranking], dict[str, str]]:
    """A BEIR corpus, its qrels, and a ranking per question text the retriever answers with: every relevant
    document somewhere in the top 15 (some beyond 10), distinct scores, nothing but known ids."""
    rng = random.Random(7)
    docs = [{"_id": f"d{i:02}", "title": "", "text": f"alpha{i} beta{i} gamma"} for i in range(DOCS)]
    qrels: dict[str, dict[str, int]] = {}
    rankings: dict[str, Ranking] = {}
    texts: dict[str, str] = {}
    for q in range(QUESTIONS):
        qid, text = f"q{q:02}", f"question {q} about alpha{q}"
        order = rng.sample(range(DOCS), 15)
        relevant = rng.sample(order, rng.choice((1, 2)))
        qrels[qid] = {f"d{d:02}": rng.choice((1, 2)) for d in relevant}
        rankings[text] = [(f"d{d:02}", round(30.0 - rank - rng.random() * 0.5, 6), None)
                          for rank, d in enumerate(order)]
        texts[qid] = text
    qrel_lines = "".join(f"{qid}\t{doc}\t{grade}\n" for qid, judged in qrels.items() for doc, grade in judged.items())
    path = beir_folder(folder / "c", docs, [{"_id": qid, "text": text} for qid, text in texts.items()], qrel_lines)
    return path, qrels, rankings, texts


def as_run(rankings: dict[str, Ranking], texts: dict[str, str], failed: set[str] = frozenset()
           ) -> dict[str, dict[str, float]]:
    """The rankings as a run (question id -> {id: score}), the ``failed`` questions ranking nothing."""
    return {qid: {doc: score for doc, score, _ in rankings[text]} for qid, text in texts.items() if qid not in failed}


def per_question(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each judged question's trec_eval measures of ``run`` (0 where the run ranks nothing for it)."""
    return trec_eval(run, qrels, list(qrels))


def trec_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """ranklens' eval metrics of ``run`` as trec_eval computes them, averaged over the judged questions."""
    measured = per_question(qrels, run)
    return {ours: statistics.mean(q[theirs] for q in measured.values()) for ours, theirs in SAME.items()}


def trec_part(metrics: dict[str, float]) -> dict[str, float]:
    """The metrics of eval's JSON that trec_eval defines (the span measures have their own oracle:
    tests/test_span_measures.py)."""
    return {ours: metrics[ours] for ours in SAME}
