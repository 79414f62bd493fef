"""Measures of runs (engine/measuring/measures): names, a hand-worked question, and equality with ranx within 1e-9.

ranx is the oracle: the same ranking and the same qrels go to both. ranx sorts a run by score
with an unstable sort, so where a run ties scores it gets scores made from our ranks instead
(the measures are then compared on the same order); a run without ties goes to ranx as the
TREC file we wrote, read by ranx itself.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.measures import DEFAULT_MEASURES, measure_run, parse_measures
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.measuring.runs import make_run, resolved_qrels
from ranklens.engine.measuring.trec import read_run, write_qrels, write_run
from tests.support.files import beir_folder

# ranx, the oracle, takes a worker 2 s to import: its tests run in one worker, which imports it once
pytestmark = pytest.mark.xdist_group("ranx")

CRANFIELD = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"
# ours -> ranx's name for the same measure
RANX_NAMES = {"nDCG@10": "ndcg@10", "nDCG@3": "ndcg@3", "nDCG": "ndcg", "MRR@10": "mrr@10", "MRR": "mrr",
              "P@5": "precision@5", "P@1": "precision@1", "R@100": "recall@100", "R@10": "recall@10",
              "MAP": "map", "MAP@10": "map@10", "Rprec": "r-precision", "hit@1": "hit_rate@1", "hit@3": "hit_rate@3"}
ALL = " ".join(RANX_NAMES)


def test_names_parse_like_ir_measures() -> None:
    names = [m.name for m in parse_measures("nDCG@10 R@100 RR@10 P@5 AP success@3 R-precision ndcg")]
    assert names == ["nDCG@10", "R@100", "MRR@10", "P@5", "MAP", "hit@3", "Rprec", "nDCG"]
    assert [m.name for m in parse_measures("MRR@10,mrr@10")] == ["MRR@10"]


@pytest.mark.parametrize(("text", "needle"), [
    ("nDCG@10 ERR@20", "unknown measure 'ERR@20' (known: nDCG@k, MRR@k, hit@k, P@k, R@k, MAP@k, Rprec"),
    ("Rprec@5", "Rprec takes no @k"),
    ("P@0", "k must be at least 1"),
    ("", "no measures named"),
])
def test_bad_names_are_one_line_listing_the_known_ones(text: str, needle: str) -> None:
    with pytest.raises(RanklensError) as error:
        parse_measures(text)
    assert needle in str(error.value) and "\n" not in str(error.value)


def test_one_question_by_hand() -> None:
    # ranking a b c d e; relevant b (grade 2), d (1), z (3, never retrieved)
    run = {"q": ["a", "b", "c", "d", "e"]}
    qrels = {"q": {"b": 2, "d": 1, "z": 3, "a": 0}}
    got = measure_run(run, qrels, "nDCG@5 MRR P@5 R@5 MAP Rprec hit@1 hit@2").means
    dcg = 2 / math.log2(3) + 1 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    expected = {"nDCG@5": dcg / idcg, "MRR": 1 / 2, "P@5": 2 / 5, "R@5": 2 / 3, "MAP": (1 / 2 + 2 / 4) / 3,
                "Rprec": 1 / 3, "hit@1": 0.0, "hit@2": 1.0}
    assert got == pytest.approx(expected, abs=1e-15)


def test_missing_and_unjudged_questions_are_counted() -> None:
    result = measure_run({"q1": ["a"], "extra": ["a"]}, {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}, "MRR")
    assert result.questions == ["q1", "q2"]
    assert result.values["MRR"] == [1.0, 0.0]
    assert result.first_ranks == [1, None]
    assert result.warnings == ["1 judged question(s) missing from the run (scored 0)",
                               "1 question(s) of the run have nothing judged relevant (not measured)"]


def _ranx(run_path: Path, qrels_path: Path, names: list[str], tied: bool) -> dict[str, np.ndarray]:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    if tied:  # ranx would order tied scores arbitrarily: give it our order as scores
        ours = read_run(run_path)
        run = Run({qid: {doc: float(len(r) - i) for i, doc in enumerate(r)} for qid, r in ours.ids().items()
                   if qid in qrels.qrels})
    else:
        run = Run.from_file(str(run_path), kind="trec")
    run = run.make_comparable(qrels)
    evaluate(qrels, run, [RANX_NAMES[n] for n in names])  # per question scores land in run.scores
    return {n: np.array([run.scores[RANX_NAMES[n]][q] for q in qrels.get_query_ids()]) for n in names}


def _assert_equals_ranx(tmp_path: Path, run: dict[str, list[tuple[str, float]]],
                        qrels: dict[str, dict[str, int]]) -> None:
    judged = {q: g for q, g in qrels.items() if any(v >= 1 for v in g.values())}
    write_run(tmp_path / "run", run, "ours")
    write_qrels(tmp_path / "qrels", judged)
    read_back = read_run(tmp_path / "run")
    tied = any("tie" in w for w in read_back.warnings)
    ours = measure_run(read_back.ids(), judged, ALL)
    theirs = _ranx(tmp_path / "run", tmp_path / "qrels", list(RANX_NAMES), tied)
    from ranx import Qrels

    order = list(Qrels.from_file(str(tmp_path / "qrels"), kind="trec").get_query_ids())
    position = {q: i for i, q in enumerate(ours.questions)}
    for name in RANX_NAMES:
        mine = np.array([ours.values[name][position[q]] for q in order])
        np.testing.assert_allclose(mine, theirs[name], rtol=0, atol=1e-9, err_msg=name)
        assert abs(mine.mean() - theirs[name].mean()) <= 1e-9


@pytest.mark.parametrize("scorer", ["tfidf", "bm25", "lsa"])
@pytest.mark.parametrize("name", ["studio-alfa", "battery", "bateria"])
def test_bundled_corpora_measure_as_ranx(tmp_path: Path, name: str, scorer: str) -> None:
    corpus = load_corpus(name)
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": scorer}))
    run = make_run(retriever, corpus.questions, depth=100)
    _assert_equals_ranx(tmp_path, run.rankings, resolved_qrels(retriever, corpus.questions))


def test_studio_alfa_rechunked_by_answer_spans_measures_as_ranx(tmp_path: Path) -> None:
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"size": 20, "overlap": 8}))
    run = make_run(retriever, corpus.questions, depth=50)
    _assert_equals_ranx(tmp_path, run.rankings, resolved_qrels(retriever, corpus.questions))


def test_a_zipf_corpus_with_graded_qrels_measures_as_ranx(tmp_path: Path) -> None:
    rng = np.random.default_rng(12)
    vocab = np.array([f"w{i}" for i in range(2000)])
    texts = [" ".join(vocab[np.minimum(rng.zipf(1.3, size=n), 2000) - 1]) for n in rng.integers(5, 80, 600)]
    queries = [{"_id": f"q{j}", "text": " ".join(vocab[rng.integers(0, 200, 4)])} for j in range(60)]
    # graded 1..3 judgments, some for chunks no scorer will rank, some grade 0
    rows = "".join(f"q{j}\td{d}\t{g}\n" for j in range(60)
                   for d, g in zip(rng.choice(600, rng.integers(1, 12), replace=False), rng.integers(0, 4, 12)))
    folder = beir_folder(tmp_path / "zipf", [{"_id": f"d{i}", "text": t} for i, t in enumerate(texts)],
                         queries, rows)
    corpus = load_corpus(folder)
    for scorer in ("bm25", "tfidf"):
        retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": scorer}))
        run = make_run(retriever, corpus.questions, depth=100)
        _assert_equals_ranx(tmp_path, run.rankings, resolved_qrels(retriever, corpus.questions))


def test_random_runs_without_ties_measure_as_ranx_reading_our_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    run = {f"q{j}": [(f"d{d}", float(s)) for d, s in
                     zip(rng.permutation(300)[:rng.integers(0, 150)], np.sort(rng.random(150))[::-1])]
           for j in range(80)}
    qrels = {f"q{j}": {f"d{d}": int(rng.integers(0, 5)) for d in rng.permutation(300)[:rng.integers(1, 30)]}
             for j in range(90)}  # ten judged questions have no run at all: they score 0 on both sides
    _assert_equals_ranx(tmp_path, run, qrels)


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason=f"Cranfield collection not found: looked for {CRANFIELD}")
def test_cranfield_measures_as_ranx(tmp_path: Path) -> None:
    corpus = load_corpus(CRANFIELD)
    workbench = Workbench(corpus)
    for scorer in ("bm25", "tfidf"):
        retriever = workbench.retriever(setup_for(corpus, {"scorer": scorer}))
        run = make_run(retriever, corpus.questions, depth=100)
        _assert_equals_ranx(tmp_path, run.rankings, resolved_qrels(retriever, corpus.questions))


def test_the_default_measures_parse() -> None:
    assert [m.name for m in parse_measures(DEFAULT_MEASURES)] == ["nDCG@10", "MRR@10", "P@5", "R@100", "MAP"]
