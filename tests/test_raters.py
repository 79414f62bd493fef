"""Raters in the workspace's judgment log (engine/workspace/store.py, engine/judging/raters.py): who judged, each one's
own undo, the rule making several raters' grades one, logs written before raters were recorded."""
from __future__ import annotations

import getpass
import json
from pathlib import Path

import pytest

from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.grades import GradeError
from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.judging.raters import check_rater, combine, default_rater
from ranklens.engine.workspace.store import Workspace


def write_log(folder: Path, *lines: dict) -> Workspace:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "judgments.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return Workspace(folder, rater="ann")


def judge(rater: str, question: str, ident: str, grade: int | None, previous: int | None = None) -> dict:
    return {"op": "judge", "question": question, "id": ident, "grade": grade, "previous": previous, "rater": rater}


# c1 graded 1 by ann, 3 by bob, 3 by cy; c2 0, 0 then 2, 2 by ann, bob, cy, dee; c3 2 by ann, then 1 by bob
LOG = [judge("ann", "q", "c1", 1), judge("bob", "q", "c1", 3), judge("cy", "q", "c1", 3),
       judge("ann", "q", "c2", 0), judge("bob", "q", "c2", 0), judge("cy", "q", "c2", 2), judge("dee", "q", "c2", 2),
       judge("ann", "q", "c3", 2), judge("bob", "q", "c3", 1)]


@pytest.mark.parametrize(("rule", "grades"), [
    ("latest", {"c1": 3, "c2": 2, "c3": 1}),  # the grade given last, whoever gave it
    ("mean", {"c1": 2, "c2": 1, "c3": 2}),  # 7/3 → 2; 4/4 → 1; 3/2 = 1.5 → 2 (half up)
    ("majority", {"c1": 3, "c2": 2, "c3": 2}),  # 3 twice; 0 and 2 twice each: the higher; 2 and 1: the higher
    ("max", {"c1": 3, "c2": 2, "c3": 2}),
])
def test_each_rule_makes_several_raters_grades_one(tmp_path: Path, rule: str, grades: dict[str, int]) -> None:
    workspace = write_log(tmp_path / "ws", *LOG)
    workspace.set_rater_rule(rule)
    assert workspace.judgments() == {"q": grades}
    assert json.loads(workspace.settings_path.read_text()) == {"rater_rule": rule}
    # the qrels file follows the rule at once
    assert workspace.qrels_path.read_text() == "".join(f"q 0 {i} {g}\n" for i, g in grades.items())


def test_mean_rounds_half_up() -> None:
    assert [combine(dict(zip("ab", pair)), "mean") for pair in [(0, 1), (1, 2), (2, 3), (0, 3), (1, 1)]] == \
        [1, 2, 3, 2, 1]
    assert combine({"a": 0, "b": 0, "c": 1}, "mean") == 0  # 1/3


def test_a_log_without_raters_is_the_unnamed_raters_and_replays_as_before(tmp_path: Path) -> None:
    old = [{"op": "judge", "question": "q", "id": "c1", "grade": 2, "previous": None},
           {"op": "judge", "question": "q", "id": "c1", "grade": 3, "previous": 2},
           {"op": "judge", "question": "q", "id": "c2", "grade": 1, "previous": None},
           {"op": "undo", "question": "q", "id": "c2", "grade": None, "previous": 1, "undoes": 3}]
    workspace = write_log(tmp_path / "ws", *old)
    assert [e.rater for e in workspace.log()] == ["", "", "", ""]
    assert workspace.ratings() == {"q": {"c1": {"": 3}}}
    assert workspace.judgments() == {"q": {"c1": 3}}
    workspace.judge("q", "c3", 1, rater="bob")
    assert workspace.undo(rater="ann") is not None  # the unnamed rater's lines are anyone's to take back
    assert workspace.log()[-1].rater == ""  # and stay the unnamed rater's
    assert workspace.judgments() == {"q": {"c1": 2, "c3": 1}}  # bob's stays
    undone = workspace.undo(rater="")
    assert undone is not None and (undone.id, undone.grade, undone.rater) == ("c1", None, "")
    assert workspace.undo(rater="ann") is None
    assert workspace.judgments() == {"q": {"c3": 1}}


def test_undo_takes_back_the_undoing_raters_latest_only(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws", rater="ann")
    workspace.judge("q", "c1", 2)
    workspace.judge("q", "c1", 3, rater="bob")
    first = workspace.judge("q", "c1", 1)
    assert first.previous == 2  # ann's own previous grade, not bob's
    assert workspace.judgments() == {"q": {"c1": 1}}  # latest: ann's 1
    undone = workspace.undo()
    assert undone is not None and (undone.rater, undone.grade, undone.previous) == ("ann", 2, 1)
    # ann's 2 was given before bob's 3: bob's is the latest again
    assert workspace.ratings() == {"q": {"c1": {"ann": 2, "bob": 3}}}
    assert workspace.judgments() == {"q": {"c1": 3}}
    assert workspace.undo(rater="bob") is not None
    assert workspace.judgments() == {"q": {"c1": 2}}
    assert [json.loads(line)["rater"] for line in workspace.log_path.read_text().splitlines()] == \
        ["ann", "bob", "ann", "ann", "bob"]


def test_bad_raters_and_grades_write_nothing(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws", rater="ann")
    for name in ["   ", "a\tb", "line\nbreak", "x" * 65]:
        with pytest.raises(RanklensError):
            workspace.judge("q", "c1", 1, rater=name)
    with pytest.raises(GradeError):
        workspace.judge_many([("q", "c1", 1), ("q", "c2", 4)], rater="bob")
    assert not workspace.log_path.exists()
    assert check_rater("x" * 64) == "x" * 64


def test_an_unknown_rule_in_the_settings_file_names_it(tmp_path: Path) -> None:
    workspace = write_log(tmp_path / "ws", *LOG)
    workspace.settings_path.write_text('{"rater_rule": "median"}')
    with pytest.raises(RanklensError, match="settings.json: rater_rule: unknown rater rule 'median'"):
        workspace.judgments()


def test_the_default_rater_is_the_login_name_or_the_unnamed_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: "ada")
    assert default_rater() == "ada" and Workspace("unused").rater == "ada"

    def no_login() -> str:
        raise OSError("no login name")

    monkeypatch.setattr(getpass, "getuser", no_login)
    assert default_rater() == ""


def test_reports_say_how_many_raters_and_the_rule(tmp_path: Path) -> None:
    corpus = load_corpus("studio-alfa")
    workspace = Workspace.for_corpus(corpus, tmp_path / "ws", rater="ann")
    workspace.judge("u1", "accessi-1", 3)
    assert judged_corpus(corpus, workspace).describe().endswith("1 judgment of yours")  # one rater: as before
    workspace.judge("u1", "accessi-1", 1, rater="bob")
    workspace.set_rater_rule("max")
    judged = judged_corpus(corpus, workspace)
    assert judged.describe().endswith("1 judgment of yours · 2 raters, max")
    assert judged.to_dict()["raters"] == ["ann", "bob"] and judged.to_dict()["rater_rule"] == "max"
    question = next(q for q in judged.corpus.questions if q.id == "u1")
    assert question.relevant == {"accessi-1": 3}  # max of 3 and 1 is what is measured
