"""The sides of a comparison (engine/comparing/two_runs.py): a setup's run made now, a saved run, two rankings side by
side."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.comparing.two_runs import run_depth, saved_side, setup_run, setup_side, side_by_side
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.workspace.store import Workspace


def test_moves_are_b_against_a_and_new_and_dropped_are_named() -> None:
    a = ["c1", "c2", "c3", "c4"]
    b = ["c3", "c1", "c5"]
    left, right = side_by_side(a, b, {"c3": 1}, {"c3": 2, "c5": 0}, depth=3)
    assert [(p.rank, p.id, p.relevant, p.move, p.status) for p in left] == [
        (1, "c1", False, -1, "moved"), (2, "c2", False, None, "dropped"), (3, "c3", True, 2, "moved")]
    assert [(p.rank, p.id, p.relevant, p.move, p.status) for p in right] == [
        (1, "c3", True, 2, "moved"), (2, "c1", False, -1, "moved"), (3, "c5", False, None, "new")]


def test_a_saved_run_is_the_same_side_as_the_setup_run_it_was_made_from(tmp_path: Path) -> None:
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    setup = run_depth(setup_for(corpus, {"scorer": "bm25"}))
    assert setup.k == 100 and run_depth(setup.replace(k=300)).k == 300
    run, meta, qrels = setup_run(workbench, setup, "bm25")
    assert (meta["k"], meta["questions"], meta["judged"], meta["setup"]["scorer"]) == (100, 19, 15, "bm25")
    workspace = Workspace(tmp_path / "ws")
    saved = saved_side(workspace.load_run(workspace.save_run("bm25", run, meta).name), workbench)
    now = setup_side("bm25", workbench, setup)
    assert saved.run.ids() == now.run.ids() and saved.qrels == now.qrels == qrels
    for qid, ranking in now.run.rankings.items():  # scores as the run file writes them
        assert [score for _, score in saved.run.rankings[qid]] == pytest.approx([score for _, score in ranking],
                                                                              abs=1e-6)
    assert saved.describe == now.describe == "BM25 lucene k1=1.2 b=0.75 · stop=none · stem=none · k=100"


def test_a_run_of_another_corpus_is_refused(tmp_path: Path) -> None:
    battery = load_corpus("battery")
    run, meta, _ = setup_run(Workbench(battery), run_depth(setup_for(battery)), "other")
    workspace = Workspace(tmp_path / "ws")
    saved = workspace.load_run(workspace.save_run("other", run, meta).name)
    with pytest.raises(RanklensError, match="runs of different corpora cannot be compared"):
        saved_side(saved, Workbench(load_corpus("studio-alfa")))


def test_a_run_file_with_unknown_ids_is_a_side_with_its_unknowns_counted(tmp_path: Path) -> None:
    from ranklens.engine.measuring.trec import read_run, write_run
    from ranklens.engine.workspace.store import SavedRun

    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    run, _, _ = setup_run(workbench, run_depth(setup_for(corpus, {"scorer": "bm25"})), "bm25")
    run.rankings["q01"] = [("no-such-chunk", 9.0), *run.rankings["q01"]]
    run.rankings["zz"] = [("copie-1", 1.0)]
    path = tmp_path / "edited.run"
    write_run(path, run, "edited")
    side = saved_side(SavedRun(str(path), read_run(path), {}, path), workbench)  # no sidecar: a foreign file
    assert side.describe == "a TREC run file"
    assert side.notes == (f"{path}: 15 line(s) tie the score of the line above; ordered by their rank column "
                          "(trec_eval orders ties by docid, ranx arbitrarily)",  # a foreign file: its ties are said
                          f"{path}: 1 question(s) of the run are not the corpus' (ignored)",
                          f"{path}: 1 ranked id(s) are not chunks of the corpus (never relevant)")


def test_the_compare_tabs_summary_groups_thousands() -> None:
    from ranklens.engine.comparing.two_runs import RunSide, compare_runs
    from ranklens.engine.corpus import Question
    from ranklens.engine.measuring.trec import Run
    from ranklens.tui.panes.compare import measures_table

    questions = [Question(f"q{i}", "t", {"d1": 1}) for i in range(1200)]
    run = Run({q.id: [("d1", 1.0)] for q in questions})
    qrels = {q.id: {"d1": 1} for q in questions}
    comparison = compare_runs(RunSide("a", run, qrels), RunSide("b", run, qrels), questions, "nDCG@10", 100)
    from io import StringIO

    from rich.console import Console

    console = Console(width=200, record=True, file=StringIO())
    console.print(measures_table(comparison))
    assert "0 wins, 1,200 ties, 0 losses · 1,200 questions" in console.export_text()
