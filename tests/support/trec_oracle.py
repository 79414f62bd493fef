"""trec_eval as the oracle of eval's numbers: a run file read as trec_eval reads it, the corpus' qrels by hand,
and trec_eval's per-question measures (pytrec_eval) named as eval names its metrics."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

MEASURES = {"recip_rank", "ndcg_cut.10", "recall.10", "success.1,3"}
# eval's metric -> trec_eval's measure of the same definition (MRR uncut: the run holds every chunk retrieved)
SAME = {"mrr": "recip_rank", "ndcg@10": "ndcg_cut_10", "recall@10": "recall_10", "hit@1": "success_1",
        "hit@3": "success_3"}


def read_run(path: Path) -> dict[str, dict[str, float]]:
    """A TREC run file as trec_eval reads it, each question's order fixed by the rank column (trec_eval breaks
    score ties by document id; the rank column is ranklens' order)."""
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, doc, rank, _, _ = line.split()
        run.setdefault(qid, {})[doc] = -float(rank)
    return run


def trec_eval(run: dict, qrels: dict, qids: list[str]) -> dict[str, dict[str, float]]:
    """Per question, trec_eval's measures; 0 for a question the run retrieves nothing for (trec_eval skips it)."""
    found = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    return {q: found.get(q, {m: 0.0 for m in SAME.values()}) for q in qids}


def corpus_qrels(corpus_folder: str) -> dict[str, dict[str, int]]:
    """qrels/test.tsv of a BEIR folder, by hand."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (Path(corpus_folder) / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def assert_eval_is_trec_evals(report: dict, run_file: Path, qrels: dict[str, dict[str, int]]) -> None:
    """eval's --json numbers, per question and their means, equal trec_eval's on the run file of the same setup."""
    rows = report["per_question"]
    oracle = trec_eval(read_run(run_file), qrels, [row["id"] for row in rows])
    for row in rows:
        expected = oracle[row["id"]]
        rank = row["full_rank"]
        assert (0.0 if rank is None else 1 / rank) == pytest.approx(expected["recip_rank"], abs=1e-12), row
        assert row["ndcg@10"] == pytest.approx(expected["ndcg_cut_10"], abs=1e-12), row
        assert row["recall@10"] == pytest.approx(expected["recall_10"], abs=1e-12), row
    for metric, measure in SAME.items():
        mean = float(np.mean([oracle[row["id"]][measure] for row in rows]))
        assert report["metrics"][metric] == pytest.approx(mean, abs=1e-12), metric
