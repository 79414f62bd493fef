"""The engine's experiments without Textual: the metrics table over scorers, the chunk sweep, the index sweep.

Numbers are checked against the seeds' printed tables (DESIGN.md reference
numbers); cancellation must stop early and keep the rows already finished.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.experiments.chunking import Window, chunk_sweep, sweep_windows
from ranklens.engine.experiments.indexes import index_sweep
from ranklens.engine.experiments.scorers import compare_scorers
from ranklens.engine.ann.base import IndexSettingError
from ranklens.engine.ann.vectors import VectorSet
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.settings import SettingError
from tests.support.cli import assert_error, run_cli
from tests.support.files import beir_folder
from tests.support.shared_builds import SHARED, shared_builds  # noqa: F401

SEED_TFIDF_RANKS = [1, 4, 1, 3, 2, 1, 1, 1, 1, 1, 5, 1, 2, 1, 1]
ANSWER = "entro cinque giorni dalla notifica di scarto"


def cancel_when(word: str):
    """A progress that cancels at the first report whose label contains ``word``."""

    def progress(done: int, total: int, label: str) -> None:
        if word in label:
            raise Cancelled(label)

    return progress


@pytest.fixture(scope="module")
def studio_alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


@pytest.fixture(scope="module")
def table(studio_alfa: Workbench):
    return compare_scorers(studio_alfa, setup_for(studio_alfa.corpus))


# -- the metrics table over scorers --------------------------------------------------------------


def test_the_tfidf_row_is_the_seeds(table) -> None:
    tfidf = next(r for r in table.scorers if r.scorer == "tfidf")
    m = tfidf.evaluation.metrics
    assert (round(m["hit@1"] * 15), round(m["hit@3"] * 15), f"{m['mrr']:.3f}") == (10, 13, "0.786")
    assert [q.rank for q in tfidf.evaluation.per_question] == SEED_TFIDF_RANKS
    assert [q.ranks[0] for q in table.questions] == SEED_TFIDF_RANKS


def test_every_scorer_is_measured_with_its_label(table) -> None:
    assert [r.scorer for r in table.scorers] == ["tfidf", "bm25", "lsa", "fusion"]
    assert [r.label for r in table.scorers] == ["TF-IDF", "BM25 lucene", "LSA 18 dims", "fusion bm25+lsa"]
    assert table.current == "tfidf" and table.complete and table.question_count == 15
    assert table.questions[1].gold == ("trasferte-1",)


def test_the_threshold_is_the_current_scorers(table) -> None:
    summary = table.threshold.answerable_summary
    assert [f"{summary[k]:.3f}" for k in ("min", "median", "max")] == ["0.172", "0.320", "0.506"]
    assert [f"{q.top_score:.3f}" for q in table.threshold.unanswerable] == ["0.302", "0.157", "0.295", "0.183"]


def test_the_table_is_plain_json(table) -> None:
    data = json.loads(json.dumps(table.to_dict()))
    assert data["scorers"][0]["label"] == "TF-IDF" and data["scorers"][0]["metrics"]["hit@1"] == pytest.approx(10 / 15)
    assert data["per_question"][1]["ranks"] == {"tfidf": 4, "bm25": 4, "lsa": 4, "fusion": 4}


def test_cancelling_keeps_the_scorers_already_measured(studio_alfa: Workbench) -> None:
    table = compare_scorers(studio_alfa, setup_for(studio_alfa.corpus), progress=cancel_when("LSA"))
    assert not table.complete
    assert [r.scorer for r in table.scorers] == ["tfidf", "bm25"]
    assert all(len(q.ranks) == 2 for q in table.questions) and table.threshold is None


def test_question_rows_can_be_capped_and_a_corpus_without_questions_gives_an_empty_table(
        studio_alfa: Workbench, tmp_path: Path) -> None:
    capped = compare_scorers(studio_alfa, setup_for(studio_alfa.corpus), scorers=["bm25"], question_rows=3)
    assert len(capped.questions) == 3 and capped.question_count == 15
    bare = Workbench(load_corpus(str(beir_folder(tmp_path / "bare", [{"_id": "d", "text": "alpha beta"}]))))
    assert compare_scorers(bare, setup_for(bare.corpus)).scorers == ()


# -- the chunk sweep -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fatture(tmp_path_factory: pytest.TempPathFactory) -> Workbench:
    """Seed 004's chunking text: the first two passages of "fatture" (51 words), asked for its answer."""
    corpus = load_corpus("studio-alfa")
    passages = [c for c in corpus.chunks if c.doc_id == "fatture"]
    text = corpus.document("fatture").text[:passages[1].end]
    assert len(text.split()) == 51
    folder = beir_folder(tmp_path_factory.mktemp("fatture"), [{"_id": "fatture", "text": text}],
                         [{"_id": "q", "text": "fattura scartata", "answer": ANSWER}])
    return Workbench(load_corpus(str(folder)))


def test_the_sweep_reproduces_the_seeds_chunk_table(fatture: Workbench) -> None:
    windows = [Window(20, 0, "words"), Window(20, 8, "words"), Window(40, 0, "words"), Window(40, 10, "words")]
    sweep = chunk_sweep(fatture, setup_for(fatture.corpus), windows)
    assert [(c.chunks, c.whole == 1) for c in sweep.cells] == [(3, False), (4, True), (2, False), (2, True)]
    # A cut answer has no relevant chunk: the question is a miss there, found where it stays whole, unless the
    # chunk holding it shares no word with the question (40/10 starts after "fattura scartata"): not retrieved.
    assert [c.evaluation.per_question[0].rank is not None for c in sweep.cells] == [False, True, False, False]
    assert sweep.cells[sweep.winner].window in (windows[1], windows[3])


def test_the_default_grid_and_its_winner(studio_alfa: Workbench) -> None:
    sweep = chunk_sweep(studio_alfa, setup_for(studio_alfa.corpus))
    assert [(w.size, w.overlap) for w in sweep.windows] == [
        (20, 0), (20, 5), (40, 0), (40, 10), (60, 0), (60, 15), (100, 0), (100, 25)]
    assert sweep.columns == 2 and sweep.complete and sweep.scorer == "TF-IDF"
    mrr = [round(c.evaluation.metrics["mrr"], 9) for c in sweep.cells]
    assert mrr[sweep.winner] == max(mrr)
    assert json.loads(json.dumps(sweep.to_dict()))["best"] == {"size": 100, "overlap": 0, "chunker": "words"}


def test_cancelling_the_sweep_keeps_the_windows_measured(studio_alfa: Workbench) -> None:
    sweep = chunk_sweep(studio_alfa, setup_for(studio_alfa.corpus), progress=cancel_when("words 40/0"))
    assert not sweep.complete
    assert [c.window.label for c in sweep.cells] == ["words 20/0", "words 20/5"]
    assert sweep.winner in (0, 1)


def test_sweep_windows_speak_the_engines_words() -> None:
    assert sweep_windows([8], [0, 2], "sentences") == (Window(8, 0, "sentences"), Window(8, 2, "sentences"))
    with pytest.raises(SettingError, match="^overlap 10 must be smaller than size 5$") as caught:
        sweep_windows([5, 40], [0, 10])
    assert caught.value.setting == "overlap"
    with pytest.raises(SettingError, match="size 0 must be at least 1"):
        sweep_windows([0])


def test_a_sweep_needs_questions_it_can_judge_after_rechunking(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "c", [{"_id": "d1", "text": "alpha beta gamma"}], [{"_id": "q", "text": "alpha"}])
    workbench = Workbench(load_corpus(str(folder)))
    with pytest.raises(RanklensError, match="the sweep needs questions with an \"answer\" span"):
        chunk_sweep(workbench, setup_for(workbench.corpus))


@pytest.fixture()
def no_token_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The text tables without the window column (counted only with the neural extra): one layout anywhere."""
    monkeypatch.setattr("ranklens.engine.chunking.model_window.e5_small_available", lambda: False)


def _by_document(tmp_path: Path, answer: str | None = None) -> Path:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
             "mu", "nu", "xi", "omicron", "pi", "rho", "sigma"]
    records = [{"_id": f"d{i}", "text": " ".join(words[i:] + words[:i]) * 3} for i in range(3)]
    queries = [{"_id": "q1", "text": "alpha beta"}, {"_id": "q2", "text": "gamma delta",
                                                      **({"answer": answer} if answer else {})}]
    return beir_folder(tmp_path / "c", records, queries, "q1\td0\t1\nq2\td1\t1\n")


@pytest.mark.usefixtures("no_token_counter")
def test_a_corpus_judged_per_document_has_no_whole_column(capsys, tmp_path: Path) -> None:
    folder = str(_by_document(tmp_path))
    text = run_cli(capsys, "sweep", "chunks", folder, "--sizes", "10,20")
    assert text.status == 0, text.err
    header = text.out.splitlines()[3]
    assert header.split()[:4] == ["size", "overlap", "chunks", "nDCG@10"], header
    assert "whole" not in header and "whole:" not in text.out
    data = run_cli(capsys, "sweep", "chunks", folder, "--sizes", "10,20", "--json").json
    assert data["answer_spans"] == 0 and {cell["whole"] for cell in data["cells"]} == {0}


@pytest.mark.usefixtures("no_token_counter")
def test_the_whole_column_counts_the_questions_with_an_answer_span(capsys, tmp_path: Path) -> None:
    folder = str(_by_document(tmp_path, answer="gamma delta epsilon zeta eta theta iota kappa"))
    data = run_cli(capsys, "sweep", "chunks", folder, "--sizes", "4,20", "--overlaps", "0", "--json").json
    assert data["answer_spans"] == 1
    assert [cell["whole"] for cell in data["cells"]] == [0, 1]  # 8 words cannot lie whole in 4-word windows
    text = run_cli(capsys, "sweep", "chunks", folder, "--sizes", "4,20", "--overlaps", "0")
    assert text.out.splitlines()[3].split()[3] == "whole" and "0/1" in text.out and "1/1" in text.out


# -- the index sweep -----------------------------------------------------------------------------


def unit_set(n: int, d: int, queries: int, cells: int) -> VectorSet:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n + queries, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return VectorSet("random", x[:n], x[n:], cells)


@SHARED
@pytest.mark.usefixtures("shared_builds")
def test_the_ivf_sweep_on_the_synthetic_set_is_the_seeds() -> None:
    from ranklens.engine.experiments.indexes import synthetic_vectors

    sweep = index_sweep(synthetic_vectors(), "ivf", 100, [1, 32, 100])
    assert [(r.value, f"{r.compared_mean:.0f}", f"{r.recall:.3f}") for r in sweep.rows] == [
        (1, "360", "0.505"), (32, "6454", "0.965"), (100, "20100", "1.000")]
    data = sweep.to_dict()
    assert data["cells"] == 100 and data["knob"] == "n_probe" and data["vectors"] == 20000
    assert set(data["rows"][0]) == {"n_probe", "compared_mean", "share", "recall@10", "ms_per_query"}


def test_default_cells_and_probes_come_from_the_set_and_the_index() -> None:
    sweep = index_sweep(unit_set(400, 8, 10, cells=8), "ivf")
    assert sweep.param_value == 8 and [r.value for r in sweep.rows] == [1, 2, 4, 8]
    assert sweep.rows[-1].recall == 1.0 and sweep.rows[-1].compared_mean == 400 + 8
    assert sweep.stats.bytes >= 400 * 8 * 4  # the vectors' float32 copy, cell by cell, at least


def test_exact_search_is_one_row_comparing_everything() -> None:
    sweep = index_sweep(unit_set(300, 6, 5, cells=4), "exact")
    assert [(r.knob, r.value, r.compared_mean, r.recall) for r in sweep.rows] == [(None, None, 300, 1.0)]
    assert "n_probe" not in sweep.to_dict()["rows"][0]


def test_cancelling_the_index_sweep_keeps_the_values_measured() -> None:
    sweep = index_sweep(unit_set(400, 8, 10, cells=8), "ivf", progress=cancel_when("n_probe 2"))
    assert not sweep.complete and [r.value for r in sweep.rows] == [1, 2]


def test_index_errors_name_the_setting_not_a_flag() -> None:
    vectors = unit_set(50, 4, 3, cells=5)
    with pytest.raises(IndexSettingError) as caught:
        index_sweep(vectors, "ivf", 5, [1, 6])
    assert str(caught.value) == "n_probe: 6 is not between 1 and the number of cells (5)"
    assert caught.value.naming("--probes") == "--probes: 6 is not between 1 and the number of cells (5)"
    with pytest.raises(IndexSettingError, match=r"^cells \(51\) is larger than the number of vectors \(50\)$"):
        index_sweep(vectors, "ivf", 51)
    with pytest.raises(RanklensError, match="unknown index 'annoy' \\(choose from exact, ivf, hnsw"):
        index_sweep(vectors, "annoy")


# -- the command line ----------------------------------------------------------------------------


def test_compare_scorers_on_the_command_line(capsys) -> None:
    data = run_cli(capsys, "compare-scorers", "studio-alfa", "--json").json
    tfidf = data["scorers"][0]
    assert (tfidf["label"], round(tfidf["metrics"]["hit@1"] * 15), f"{tfidf['metrics']['mrr']:.3f}") == (
        "TF-IDF", 10, "0.786")
    assert [q["ranks"]["tfidf"] for q in data["per_question"]] == SEED_TFIDF_RANKS
    human = run_cli(capsys, "compare-scorers", "studio-alfa", "--scorer", "bm25")
    assert "▸ BM25 lucene         10/15     12/15  0.774" in human.out
    assert "threshold (BM25 lucene): best" in human.out


@pytest.mark.usefixtures("no_token_counter")
def test_sweep_chunks_on_the_command_line(capsys) -> None:
    data = run_cli(capsys, "sweep", "chunks", "studio-alfa", "--sizes", "20,40", "--overlaps", "0,10", "--json").json
    assert [(c["size"], c["overlap"]) for c in data["cells"]] == [(20, 0), (20, 10), (40, 0), (40, 10)]
    assert data["best"] == {"size": 40, "overlap": 10, "chunker": "words"} and data["complete"]
    human = run_cli(capsys, "sweep", "chunks", "studio-alfa", "--sizes", "40", "--overlaps", "10")
    assert human.status == 0 and "★    40      10      18  15/15   0.737" in human.out


def test_experiment_commands_refuse_bad_input_in_one_line(capsys, tmp_path: Path) -> None:
    assert_error(run_cli(capsys, "sweep", "chunks", "studio-alfa", "--sizes", "5,40", "--overlaps", "0,10"),
                 "--overlaps: overlap 10 must be smaller than size 5")
    assert_error(run_cli(capsys, "sweep", "chunks", "studio-alfa", "--sizes", "0"), "--sizes values must be at least 1")
    bare = beir_folder(tmp_path / "bare", [{"_id": "d", "text": "alpha beta"}])
    assert_error(run_cli(capsys, "compare-scorers", str(bare)), "no questions with an answer")
    assert_error(run_cli(capsys, "ann", "--synthetic", "--index", "ivf,annoy"), "unknown index 'annoy'")
