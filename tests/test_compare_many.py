"""More than two runs against one baseline (engine/comparing/many_runs.py, ``ranklens compare BASE R1 R2 …``).

The oracles: every pair is the two-run comparison (compare_runs, ``ranklens compare BASE R``), and the
corrected p-values are statsmodels' ``multipletests`` of the pairs' randomization p-values.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from ranklens.engine.comparing.two_runs import RunSide, compare_runs
from ranklens.engine.comparing.many_runs import compare_many
from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.trec import Run
from tests.support.cli import assert_error, run_cli, run_on
from tests.support.files import beir_folder
from tests.test_cli_relevance import QRELS, QUERIES, RECORDS

MEASURES = "nDCG@10 MRR@10 P@5"
QUESTIONS = [Question(f"q{i}", f"question {i}", {}) for i in range(40)]
CHUNKS = [f"c{i}" for i in range(30)]


def random_side(label: str, seed: int, qrels: dict[str, dict[str, int]]) -> RunSide:
    """A run ranking 20 of the chunks at random for each question but the last (which it leaves out)."""
    rng = np.random.default_rng(seed)
    rankings = {q.id: [(CHUNKS[c], float(20 - r)) for r, c in enumerate(rng.permutation(len(CHUNKS))[:20])]
                for q in QUESTIONS[:-1]}
    return RunSide(label, Run(rankings), qrels)


def random_qrels(seed: int) -> dict[str, dict[str, int]]:
    rng = np.random.default_rng(seed)
    return {q.id: {CHUNKS[c]: int(rng.integers(0, 3)) for c in rng.choice(len(CHUNKS), 4, replace=False)}
            for q in QUESTIONS}


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_each_run_is_its_two_run_comparison_and_the_p_values_are_corrected_as_statsmodels(correction: str) -> None:
    qrels = random_qrels(0)
    baseline = random_side("base", 1, qrels)
    runs = [random_side(f"r{i}", 10 + i, qrels) for i in range(3)]
    many = compare_many(baseline, runs, QUESTIONS, MEASURES, 2_000, 7, correction)
    assert many.measures == ["nDCG@10", "MRR@10", "P@5"] and many.same_questions() and not any(
        "differ" in note for note in many.notes)
    for run in many.runs:
        alone = compare_runs(baseline, run.side, QUESTIONS, MEASURES, 2_000, 7)
        assert run.pair.rows == alone.rows  # means, Δ, both p-values, the interval, wins, ties, losses
    for name in many.measures:
        p = [run.row(name).p_randomization for run in many.runs]
        assert [run.adjusted[name] for run in many.runs] == pytest.approx(
            list(multipletests(p, method=correction)[1]), rel=1e-12)
    # a question none of the sides ranks scores 0 for all: the baseline's note is said once, not per run
    assert many.notes.count("base: 1 compared question(s) not in the run (scored 0)") == 1


def test_the_json_has_the_baseline_and_each_run_per_measure() -> None:
    qrels = random_qrels(0)
    many = compare_many(random_side("base", 1, qrels), [random_side("r0", 2, qrels), random_side("r1", 3, qrels)],
                        QUESTIONS, MEASURES, 1_000, 3)
    data = many.to_dict()
    assert set(data) >= {"baseline", "runs", "questions", "permutations", "seed", "correction"}
    assert (data["permutations"], data["seed"], data["correction"]) == (1_000, 3, "holm")
    assert data["baseline"]["label"] == "base" and list(data["baseline"]["metrics"]) == many.measures
    assert [run["label"] for run in data["runs"]] == ["r0", "r1"]
    judged = [q for q in QUESTIONS if any(g >= 1 for g in qrels[q.id].values())]
    assert data["questions"] == len(judged)
    for run in data["runs"]:
        assert list(run["metrics"]) == many.measures
        for row in run["metrics"].values():
            assert set(row) >= {"mean", "delta", "p_ttest", "p_randomization", "p_holm", "ci95"}
            assert row["delta"] == pytest.approx(row["mean"] - row["baseline"])
        assert run["metrics"]["nDCG@10"]["baseline"] == data["baseline"]["metrics"]["nDCG@10"]
    assert "p_bonferroni" in compare_many(many.baseline, [r.side for r in many.runs], QUESTIONS, MEASURES, 1_000, 3,
                                          "bonferroni").to_dict()["runs"][0]["metrics"]["P@5"]


def test_runs_judged_on_other_questions_are_each_compared_on_their_own_pair() -> None:
    qrels = random_qrels(0)
    judged = [q.id for q in QUESTIONS if any(g >= 1 for g in qrels[q.id].values())]
    unjudged = next(q.id for q in QUESTIONS if q.id not in judged)
    # a run chunking otherwise: under its chunking one more question has a relevant chunk
    more = {**qrels, unjudged: {"c0": 1}}
    baseline = random_side("base", 1, qrels)
    same, other = random_side("same", 2, qrels), random_side("other", 3, more)
    many = compare_many(baseline, [same, other], QUESTIONS, "MRR@10", 1_000)
    assert not many.same_questions() and any("different questions" in note for note in many.notes)
    assert [len(run.pair.questions) for run in many.runs] == [len(judged), len(judged) + 1]
    for run in many.runs:
        assert run.row("MRR@10").a == compare_runs(baseline, run.side, QUESTIONS, "MRR@10", 1_000).rows[0].a
    # the baseline's mean shown once is over every pair's questions: here the second pair's, where the
    # question the baseline judges nothing relevant scores 0
    assert many.baseline_means()["MRR@10"] == pytest.approx(many.runs[1].row("MRR@10").a)
    assert many.baseline_means()["MRR@10"] == pytest.approx(
        many.runs[0].row("MRR@10").a * len(judged) / (len(judged) + 1))
    assert many.questions == [q.id for q in QUESTIONS if q.id in judged or q.id == unjudged]


def test_a_nan_p_value_is_not_corrected() -> None:
    # one judged question: a t-test has no p, the randomization test has one (1.0 or 0.5)
    qrels = {"q0": {"c0": 1}}
    many = compare_many(random_side("base", 1, qrels), [random_side("r0", 2, qrels), random_side("r1", 3, qrels)],
                        QUESTIONS, "MRR@10", 1_000)
    assert math.isnan(many.runs[0].row("MRR@10").p_ttest) and not math.isnan(many.runs[0].adjusted["MRR@10"])
    assert many.to_dict()["runs"][0]["metrics"]["MRR@10"]["p_ttest"] is None


def test_bad_arguments_of_the_engine() -> None:
    side = random_side("base", 1, random_qrels(0))
    with pytest.raises(RanklensError, match="unknown correction 'sidak'"):
        compare_many(side, [side], QUESTIONS, "MRR@10", 1_000, correction="sidak")
    with pytest.raises(RanklensError, match="at least one run"):
        compare_many(side, [], QUESTIONS, "MRR@10", 1_000)


# -- the command line -------------------------------------------------------------------------


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return beir_folder(tmp_path / "pets", RECORDS, QUERIES, QRELS)


def test_three_runs_on_the_command_line_are_three_two_run_compares(capsys, tmp_path: Path, corpus: Path) -> None:
    ws = ("--workspace", str(tmp_path / "ws"))
    runs = ["tfidf", "lsa --dims 1", "bm25 --k1 0.2"]
    many = run_on(capsys, corpus, "compare", str(corpus), "bm25", *runs, "--metrics", "nDCG@10 MRR", *ws, "--json")
    assert many.status == 0, many.err
    data = many.json
    assert data["baseline"]["label"] == "bm25" and [r["label"] for r in data["runs"]] == runs
    assert (data["questions"], data["correction"], data["judgments"]["source"]) == (3, "holm", "corpus+workspace")
    for run in data["runs"]:
        alone = run_cli(capsys, "compare", str(corpus), "bm25", run["label"], "--metrics", "nDCG@10 MRR", *ws,
                        "--json").json
        assert run["setup"] == alone["b"]["setup"]
        for name, row in alone["metrics"].items():
            mine = run["metrics"][name]
            assert (mine["mean"], mine["baseline"], mine["delta"]) == (row["b"], row["a"], row["delta"])
            assert (mine["p_ttest"], mine["p_randomization"], mine["ci95"]) == (row["p_ttest"], row["p_randomization"],
                                                                                row["ci95"])
    for name in ("nDCG@10", "MRR"):
        p = [run["metrics"][name]["p_randomization"] for run in data["runs"]]
        assert [run["metrics"][name]["p_holm"] for run in data["runs"]] == pytest.approx(
            list(multipletests(p, method="holm")[1]), rel=1e-12)
    text = run_on(capsys, corpus, "compare", str(corpus), "bm25", *runs, "--metrics", "nDCG@10 MRR", *ws,
                  "--correction", "bonferroni")
    assert text.status == 0, text.err
    assert "R2   lsa --dims 1" in text.out and "p Bonf." in text.out
    mrr = data["runs"][1]["metrics"]["MRR"]
    bonferroni = min(1.0, 3 * mrr["p_randomization"])
    assert f"R2   {mrr['mean']:>7.4f} {mrr['delta']:>+8.4f}" in text.out
    assert f" {bonferroni:.4f}  [{mrr['ci95'][0]:+.4f}, {mrr['ci95'][1]:+.4f}]" in text.out


def test_two_runs_against_a_saved_baseline_and_a_piped_run(capsys, tmp_path: Path, corpus: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    ws = ("--workspace", str(tmp_path / "ws"))
    assert run_cli(capsys, "run", str(corpus), "--save", "base", *ws).status == 0
    piped = run_cli(capsys, "run", str(corpus), "--output", "-", "--scorer", "tfidf")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(piped.out.encode())))
    many = run_cli(capsys, "compare", str(corpus), "base", "-", "lsa --dims 1", *ws, "--json")
    assert many.status == 0, many.err
    assert [r["label"] for r in many.json["runs"]] == ["<stdin>", "lsa --dims 1"]


@pytest.mark.parametrize(("argv", "needles"), [
    (("bm25", "-", "tfidf", "-"), ("only one of BASE and the runs can read standard input",)),
    (("bm25", "tfidf", "no-such-run"), ("'no-such-run' is not a saved run", "not a file, and not a setup")),
    (("bm25", "tfidf", "tfidf"), ("'tfidf' is given twice",)),
    (("bm25", "tfidf", "lsa", "--correction", "sidak"), ("--correction", "invalid choice: 'sidak'")),
])
def test_bad_many_run_compares_are_one_line(capsys, tmp_path: Path, corpus: Path, argv, needles) -> None:
    assert_error(run_cli(capsys, "compare", str(corpus), *argv, "--workspace", str(tmp_path / "ws")), *needles)


def test_a_run_of_another_corpus_among_many_is_refused(capsys, tmp_path: Path, corpus: Path) -> None:
    other = beir_folder(tmp_path / "other", [*RECORDS, {"_id": "c6", "text": "one more chunk"}], QUERIES, QRELS)
    out = tmp_path / "other.run"
    assert run_cli(capsys, "run", str(other), "--output", str(out)).status == 0
    assert_error(run_cli(capsys, "compare", str(corpus), "bm25", "tfidf", str(out), "--workspace", str(tmp_path / "w")),
                 "is a run of corpus 'other'", "different corpora")
