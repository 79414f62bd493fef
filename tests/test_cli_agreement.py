"""Raters on the command line: ``ranklens judgments --rater``, ``--rater-rule``, ``--agreement`` (cli/agreement.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from tests.support.cli import assert_error, run_cli

# (question, chunk, ann's grade, bob's grade): studio-alfa's questions and chunks
GRADES = [("u1", "accessi-1", 3, 1), ("u1", "trasferte-1", 0, 0), ("u1", "trasferte-2", 2, 2),
          ("q02", "ferie-0", 3, 3), ("q02", "ferie-1", 1, 0), ("q03", "copie-0", 2, 3)]


def judgments(capsys: pytest.CaptureFixture[str], workspace: Path, *options: str):  # noqa: ANN201
    return run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(workspace), *options)


@pytest.fixture
def graded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    """A workspace where ann and bob graded GRADES, as two users would."""
    workspace = tmp_path / "ws"
    for question, chunk, ann, bob in GRADES:
        for rater, grade in (("ann", ann), ("bob", bob)):
            run = judgments(capsys, workspace, "--judge", question, chunk, str(grade), "--rater", rater)
            assert run.status == 0, run.err
    return workspace


def logged(workspace: Path) -> list[dict]:
    return [json.loads(line) for line in (workspace / "judgments.jsonl").read_text().splitlines()]


def test_agreement_json_is_scikit_learns_kappa_on_the_log(capsys, graded: Path) -> None:
    # the oracle reads the log itself: each rater's grade of each pair
    by_rater: dict[str, dict[tuple[str, str], int]] = {}
    for line in logged(graded):
        by_rater.setdefault(line["rater"], {})[line["question"], line["id"]] = line["grade"]
    pairs = sorted(by_rater["ann"])
    ann, bob = [by_rater["ann"][p] for p in pairs], [by_rater["bob"][p] for p in pairs]
    run = judgments(capsys, graded, "--agreement", "--json")
    assert run.status == 0, run.err
    report = run.json
    assert report["raters"] == ["ann", "bob"] and report["pairs"] == len(GRADES)
    assert report["kappa"] == pytest.approx(cohen_kappa_score(ann, bob))
    assert report["kappa_linear"] == pytest.approx(cohen_kappa_score(ann, bob, labels=[0, 1, 2, 3],
                                                                     weights="linear"))
    assert report["agreement"] == pytest.approx(3 / 6)
    assert report["fleiss_kappa"] is not None
    # q03: |2-3| = 1 → 1; u1: |3-1| = 2 and two alike → 2/3; q02: 1/2
    assert [(d["question"], d["differing"], d["judged"]) for d in report["disagreements"]] == [
        ("q03", 1, 1), ("u1", 1, 3), ("q02", 1, 2)]
    assert report["disagreements"][1]["ids"] == [{"id": "accessi-1", "grades": {"ann": 3, "bob": 1}}]
    assert report["disagreements"][1]["text"].startswith("qual è la politica")


def test_agreement_as_text(capsys, graded: Path) -> None:
    run = judgments(capsys, graded, "--agreement")
    assert run.status == 0, run.err
    assert "by 2 raters (latest counts)" in run.out
    assert "agreement of 2 raters (ann, bob) on the 6 pairs (question, id) every one graded:" in run.out
    kappa = cohen_kappa_score([3, 0, 2, 3, 1, 2], [1, 0, 2, 3, 0, 3])
    assert f"Cohen's kappa {kappa:.3f}" in run.out and "raw agreement 0.500" in run.out
    assert "  u1   0.67  1/3  qual è la politica" in run.out and "(e.g. accessi-1: ann 3, bob 1)" in run.out


def test_one_rater_is_said_in_one_line_and_is_no_error(capsys, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    assert judgments(capsys, workspace, "--judge", "u1", "accessi-1", "2", "--rater", "ann").status == 0
    run = judgments(capsys, workspace, "--agreement")
    assert run.status == 0
    assert "agreement needs two raters or more: the workspace's judgments have 1 (all ann's)" in run.out
    run = judgments(capsys, workspace, "--agreement", "--json")
    assert run.json["raters"] == ["ann"] and run.json["kappa"] is None


def test_the_rater_rule_counts_in_every_measure(capsys, graded: Path) -> None:
    run = judgments(capsys, graded, "--rater-rule", "max", "--json")
    assert run.status == 0 and run.json["rater_rule"] == "max" and run.json["rater_rule_set"] == "max"
    assert "u1 0 accessi-1 3\n" in (graded / "qrels").read_text()  # max(3, 1)
    run = run_cli(capsys, "eval", "studio-alfa", "--workspace", str(graded), "--json")
    assert run.json["judgments"]["rater_rule"] == "max" and run.json["judgments"]["raters"] == ["ann", "bob"]
    run = run_cli(capsys, "eval", "studio-alfa", "--workspace", str(graded))
    assert "judgments of yours · 2 raters, max" in run.out


def test_import_and_undo_as_a_rater(capsys, tmp_path: Path) -> None:
    workspace, qrels = tmp_path / "ws", tmp_path / "mine.qrels"
    qrels.write_text("u1 0 accessi-1 2\nu1 0 trasferte-1 0\n")
    assert judgments(capsys, workspace, "--import-qrels", str(qrels), "--rater", "cy").status == 0
    assert judgments(capsys, workspace, "--judge", "u1", "accessi-1", "1", "--rater", "dee").status == 0
    run = judgments(capsys, workspace, "--undo", "--rater", "cy", "--json")  # cy's latest, not dee's
    assert run.json["undone"] == {"question": "u1", "id": "trasferte-1", "grade": None, "rater": "cy"}
    assert [(line["op"], line["rater"]) for line in logged(workspace)] == [
        ("judge", "cy"), ("judge", "cy"), ("judge", "dee"), ("undo", "cy")]


@pytest.mark.parametrize(("options", "needles"), [
    (("--judge", "u1", "accessi-1", "2", "--rater", ""), ("--rater", "cannot be empty")),
    (("--judge", "u1", "accessi-1", "2", "--rater", "a\x1bb"), ("--rater", "printable")),
    (("--judge", "u1", "accessi-1", "2", "--rater", "x" * 65), ("--rater", "at most 64")),
    (("--judge", "u1", "accessi-1", "4", "--rater", "ann"), ("--judge", "grade 4 is off the scale 0-3")),
    (("--agreement", "--raters", "ann,zed"), ("no rater 'zed'", "raters: ann, bob")),
    (("--agreement", "--raters", "ann"), ("--raters", "two raters or more")),
    (("--raters", "ann,bob"), ("--raters", "only with --agreement")),
    (("--rater-rule", "median"), ("--rater-rule", "invalid choice")),
    (("--judge", "u1", "accessi-1", "2", "--agreement", "--raters", "ann,zed"), ("no rater 'zed'",)),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, graded: Path, options: tuple[str, ...],
                                                        needles: tuple[str, ...]) -> None:
    before = {path.name: path.read_bytes() for path in graded.iterdir()}
    assert_error(judgments(capsys, graded, *options), *needles)
    assert {path.name: path.read_bytes() for path in graded.iterdir()} == before
