"""One rule for which judgments a number counts (engine/judging/counted.py): every command that measures gives the
same nDCG@10 for one setup and one set of judgments, and says which judgments it used.

The oracle is ranx: the saved run and the judgments written out by hand (the corpus' gold passages plus
the one judgment of the test) measured there. Without the workspace, nDCG@10 is the lesson's 0.839.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.trec import read_run
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import run_cli

# ranx, the oracle, takes a worker 2 s to import: its tests run in one worker, which imports it once
pytestmark = pytest.mark.xdist_group("ranx")

TFIDF = ("--scorer", "tfidf")
JUDGED = ("q01", "copie-0", "1")  # q01 asks about holidays: a chunk on backups judged relevant


def _ndcg(capsys, ws: Path, *extra: str) -> dict[str, float]:
    """nDCG@10 of TF-IDF on studio-alfa by eval, compare-scorers, run + runs and compare, with ``extra``."""
    where = ("--workspace", str(ws))
    found = {}
    evaluated = run_cli(capsys, "eval", "studio-alfa", *TFIDF, *where, *extra, "--json").json
    found["eval"] = evaluated["metrics"]["ndcg@10"]
    table = run_cli(capsys, "compare-scorers", "studio-alfa", *TFIDF, *where, *extra, "--json").json
    found["compare-scorers"] = next(s["metrics"]["ndcg@10"] for s in table["scorers"] if s["scorer"] == "tfidf")
    name = "plain" if extra else "mine"
    saved = run_cli(capsys, "run", "studio-alfa", *TFIDF, "--save", name, *where, *extra, "--json")
    assert saved.status == 0, saved.err
    listed = run_cli(capsys, "runs", "studio-alfa", *where, *extra, "--json").json
    found["run"] = saved.json["metrics"]["nDCG@10"]
    found["runs"] = next(r["metrics"]["nDCG@10"] for r in listed["runs"] if r["name"] == name)
    compared = run_cli(capsys, "compare", "studio-alfa", name, "tfidf", *where, *extra,
                       "--metrics", "nDCG@10", "--permutations", "1000", "--json").json
    found["compare A (saved)"] = compared["metrics"]["nDCG@10"]["a"]
    found["compare B (made now)"] = compared["metrics"]["nDCG@10"]["b"]
    for report in (evaluated, table, listed, compared):
        assert report["judgments"]["source"] == ("corpus" if extra else "corpus+workspace")
        assert report["judgments"]["own_judgments"] == (0 if extra else 1)
    return found


def test_eval_compare_scorers_runs_and_compare_count_one_judgment_alike(capsys, tmp_path: Path) -> None:
    from ranx import Qrels, Run, evaluate

    ws = tmp_path / "ws"
    assert run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(ws), "--judge", *JUDGED).status == 0
    mine = _ndcg(capsys, ws)
    own = _ndcg(capsys, ws, "--no-workspace")
    assert max(mine.values()) - min(mine.values()) < 1e-12, mine
    assert max(own.values()) - min(own.values()) < 1e-12, own
    assert round(own["eval"], 3) == 0.839  # the corpus' own: the lesson's TF-IDF nDCG@10
    assert abs(mine["eval"] - own["eval"]) > 1e-3  # the judgment moved it

    corpus = load_corpus("studio-alfa")
    qrels = {q.id: dict(q.relevant) for q in corpus.questions if q.relevant}
    qrels["q01"]["copie-0"] = 1
    saved = read_run(ws / "runs" / "mine.run").ids()
    run = {qid: {doc: float(len(ids) - i) for i, doc in enumerate(ids)} for qid, ids in saved.items() if qid in qrels}
    assert mine["eval"] == pytest.approx(evaluate(Qrels(qrels), Run(run), "ndcg@10"), abs=1e-9)


def test_every_report_says_which_judgments_it_used(capsys, tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--judge", *JUDGED)
    for argv in (["eval"], ["threshold"], ["compare-scorers"], ["sweep", "chunks"], ["why"]):
        extra = ["ferie", "ferie-0"] if argv == ["why"] else []
        sizes = ["--sizes", "40"] if argv[0] == "sweep" else []
        mine = run_cli(capsys, *argv, "studio-alfa", *extra, *sizes, "--workspace", ws)
        assert mine.status == 0, mine.err
        assert "15 questions · 1 judgment of yours" in mine.out, (argv, mine.out)
        own = run_cli(capsys, *argv, "studio-alfa", *extra, *sizes, "--workspace", ws, "--no-workspace")
        assert "15 questions · the corpus' judgments only" in own.out, (argv, own.out)


def test_the_rule_lets_the_latest_grade_win_and_counts_the_users_judgments(tmp_path: Path) -> None:
    corpus = load_corpus("studio-alfa")
    workspace = Workspace.for_corpus(corpus, tmp_path / "ws")
    workspace.judge("q01", "ferie-0", 0)  # the corpus' gold passage judged not relevant…
    workspace.judge("q01", "ferie-0", 2)  # …then relevant again, graded 2: the latest grade wins
    workspace.judge("q02", "trasferte-1", 0)  # the gold passage judged not relevant
    judged = judged_corpus(corpus, workspace)
    questions = {q.id: q for q in judged.corpus.questions}
    assert questions["q01"].relevant["ferie-0"] == 2
    assert "trasferte-1" not in questions["q02"].relevant
    assert (judged.own_judgments, judged.describe()) == (2, "15 questions · 2 judgments of yours")
    alone = judged_corpus(corpus, None)
    assert alone.corpus is corpus and alone.to_dict()["source"] == "corpus"
