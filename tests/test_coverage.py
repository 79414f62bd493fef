"""Coverage of judgments in `compare` and `runs`: each side's judged share of its top 10, the warning below 80 %,
the JSON's "coverage" object, `runs --metrics`, and one-line refusals of bad measure names.

The oracle is a direct computation from the files: the saved TREC runs and the corpus' qrels TSV.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import assert_error, run_cli, run_on
from tests.support.coverage import coverage_from_files, judged_corpus, qrels_from_file, tops_from_file

WARNING = "a difference may come from unjudged chunks"


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _saved(capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path) -> dict[str, Path]:
    """BM25's and TF-IDF's runs of ``corpus`` written beside it (with sidecars) and saved in its workspace."""
    files = {}
    for scorer in ("bm25", "tfidf"):
        files[scorer] = tmp_path / f"{corpus.name}-{scorer}.run"
        assert run_cli(capsys, "run", str(corpus), "--scorer", scorer, "--output", str(files[scorer])).status == 0
        assert run_cli(capsys, "run", str(corpus), "--scorer", scorer, "--save", scorer).status == 0
    return files


@pytest.mark.parametrize("fully", [False, True])
def test_compare_reports_each_sides_coverage_as_the_files_give_it(capsys, tmp_path: Path, fully: bool) -> None:
    corpus = judged_corpus(tmp_path / ("full" if fully else "sparse"), fully)
    files = _saved(capsys, corpus, tmp_path)
    run = run_on(capsys, corpus, "compare", str(corpus), "bm25", "tfidf", "--permutations", "1000", "--json")
    assert run.status == 0, run.err
    coverage = run.json["coverage"]
    qrels = corpus / "qrels" / "test.tsv"
    expected = {side: coverage_from_files(files[scorer], qrels) for side, scorer in (("a", "bm25"), ("b", "tfidf"))}
    assert {side: coverage[side] for side in "ab"} == pytest.approx(expected, abs=1e-12)
    assert (coverage["depth"], coverage["threshold"]) == (10, 0.8)
    if fully:
        assert expected == {"a": 1.0, "b": 1.0}  # every chunk is judged
        assert coverage["warning"] is None and WARNING not in run.err
    else:
        low = [f"{int(share * 100 + 1e-9)} %" for share in expected.values()]
        assert max(expected.values()) < 0.8
        said = f"A's top 10 is {low[0]} judged, B's {low[1]}: {WARNING}"
        assert coverage["warning"] == said
        assert f"ranklens: warning: {said}" in run.err.splitlines()


def test_a_question_with_an_answer_span_is_wholly_judged(capsys, tmp_path: Path) -> None:
    # the span says of every chunk whether it holds the answer: q1 counts 1.0, q2 and q3 what their qrels judge
    corpus = judged_corpus(tmp_path / "spans", fully=False, answers={"q1": "red cat sleeps"})
    files = _saved(capsys, corpus, tmp_path)
    coverage = run_cli(capsys, "compare", str(corpus), "bm25", "tfidf", "--permutations", "1000", "--json").json[
        "coverage"]
    qrels = corpus / "qrels" / "test.tsv"
    expected = {side: coverage_from_files(files[scorer], qrels, whole=frozenset({"q1"}))
                for side, scorer in (("a", "bm25"), ("b", "tfidf"))}
    assert {side: coverage[side] for side in "ab"} == pytest.approx(expected, abs=1e-12)
    assert expected["a"] > coverage_from_files(files["bm25"], qrels)


def test_the_lesson_corpus_has_answer_spans_and_no_warning(capsys) -> None:
    run = run_cli(capsys, "compare", "studio-alfa", "bm25", "tfidf", "--permutations", "1000", "--json")
    assert run.json["coverage"] == {"depth": 10, "a": 1.0, "b": 1.0, "threshold": 0.8, "warning": None}
    assert WARNING not in run.err


def test_compare_text_warns_once_on_stderr(capsys, tmp_path: Path) -> None:
    corpus = judged_corpus(tmp_path / "sparse", fully=False)
    _saved(capsys, corpus, tmp_path)
    run = run_cli(capsys, "compare", str(corpus), "bm25", "tfidf", "--metrics", "judged@10 bpref nDCG'@10 P'@5",
                  "--permutations", "1000")
    assert run.status == 0, run.err
    assert [line for line in run.err.splitlines() if WARNING in line] == [line for line in run.err.splitlines()
                                                                         if line.startswith("ranklens: warning: A's")]
    assert sum(WARNING in line for line in run.err.splitlines()) == 1
    names = [line.split()[0] for line in run.out.splitlines() if line.split() and line.split()[0][0] in "jbnP"]
    assert names == ["judged@10", "bpref", "nDCG_prime@10", "P_prime@5"]


def test_runs_measures_what_metrics_names(capsys, tmp_path: Path) -> None:
    corpus = judged_corpus(tmp_path / "sparse", fully=False)
    files = _saved(capsys, corpus, tmp_path)
    default = run_cli(capsys, "runs", str(corpus), "--json").json
    assert list(default["runs"][0]["metrics"]) == ["nDCG@10", "MRR@10", "P@5", "R@100", "MAP"]
    chosen = run_cli(capsys, "runs", str(corpus), "--metrics", "Judged@10 bpref", "--json").json
    by_name = {row["name"]: row["metrics"] for row in chosen["runs"]}
    assert list(by_name["bm25"]) == ["judged@10", "bpref"]
    # judged@10 divides by 10, also for a question the run ranks fewer than 10 chunks for
    qrels, tops = qrels_from_file(corpus / "qrels" / "test.tsv"), tops_from_file(files["bm25"])
    expected = sum(sum(doc in qrels[q] for doc in tops.get(q, [])) / 10 for q in qrels) / len(qrels)
    assert by_name["bm25"]["judged@10"] == pytest.approx(expected, abs=1e-12)
    text = run_cli(capsys, "runs", str(corpus), "--metrics", "nDCG_prime@10 judged@10")
    header = text.out.splitlines()[1].split()
    assert header[:4] == ["run", "created", "nDCG_prime@10", "judged@10"]


@pytest.mark.parametrize("command", ["runs", "compare"])
@pytest.mark.parametrize(("names", "needle"), [
    ("bpref@5", "--metrics: bpref takes no @k (got 'bpref@5')"),
    ("nDCG@10 ERR@5", "--metrics: unknown measure 'ERR@5'"),
])
def test_bad_measure_names_are_one_line(capsys, tmp_path: Path, command: str, names: str, needle: str) -> None:
    corpus = judged_corpus(tmp_path / "sparse", fully=False)
    sides = ["bm25", "tfidf"] if command == "compare" else []
    run = run_on(capsys, corpus, command, str(corpus), *sides, "--metrics", names)
    assert_error(run, f"ranklens {command}: {needle}")


def test_compare_of_three_runs_reports_every_runs_coverage(capsys, tmp_path: Path) -> None:
    corpus = judged_corpus(tmp_path / "sparse", fully=False)
    files = _saved(capsys, corpus, tmp_path)
    qrels = corpus / "qrels" / "test.tsv"
    run = run_on(capsys, corpus, "compare", str(corpus), "bm25", "tfidf", "bm25 --k1 0.5", "--permutations",
                 "1000", "--json")
    assert run.status == 0, run.err
    shares = run.json["coverage"]["shares"]
    assert shares["bm25"] == pytest.approx(coverage_from_files(files["bm25"], qrels), abs=1e-12)
    assert shares["tfidf"] == pytest.approx(coverage_from_files(files["tfidf"], qrels), abs=1e-12)
    assert set(shares) == {"bm25", "tfidf", "bm25 --k1 0.5"}
    assert WARNING in run.json["coverage"]["warning"] and WARNING in run.err


def test_a_side_exactly_at_the_threshold_is_not_warned_about() -> None:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Question
    from ranklens.engine.comparing.coverage import judged_coverage
    from ranklens.engine.measuring.trec import Run

    ranked = [(f"c{i}", 10.0 - i) for i in range(10)]
    eight = {f"c{i}": int(i == 0) for i in range(8)}  # 8 of the top 10 judged: 80 %, the threshold itself
    seven = {f"c{i}": int(i == 0) for i in range(7)}
    question = Question("q", "text", {"c0": 1})
    at = judged_coverage({"A": RunSide("a", Run({"q": ranked}), {"q": eight})}, [question])
    below = judged_coverage({"A": RunSide("a", Run({"q": ranked}), {"q": seven})}, [question])
    assert at.shares == {"A": pytest.approx(0.8)} and at.warning is None
    assert below.shares == {"A": pytest.approx(0.7)} and below.warning is not None
