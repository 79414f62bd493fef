"""The grade scale (engine/judging/grades.py): 0-3 unless the corpus' ranklens.toml declares its maximum; a grade
off it is refused when judging (one line, status 2) and refuses a whole import of qrels; without a declared
maximum, the corpus' own qrels grading above 3 raise the scale's top to their highest grade."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.grades import GradeError, check_grade, max_grade
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import assert_error, run_cli, run_on
from tests.support.files import beir_folder

RECORDS = [{"_id": "c0", "text": "the cat sat on the mat"}, {"_id": "c1", "text": "a dog in the garden"}]
QUERIES = [{"_id": "q1", "text": "cat on a mat"}]


@pytest.mark.parametrize("grade", ["7", "100", "-1"])
def test_a_grade_off_the_scale_is_one_line_and_status_2_and_nothing_is_judged(capsys, tmp_path: Path,
                                                                              grade: str) -> None:
    ws = tmp_path / "ws"
    run = run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(ws), "--judge", "q01", "copie-0", grade)
    assert_error(run, "--judge", f"grade {grade} is off the scale 0-3")
    assert Workspace(ws).judgments() == {}
    assert run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(ws), "--judge", "q01", "copie-0",
                   "3").status == 0


def test_a_corpus_declares_its_maximum_in_its_toml(capsys, tmp_path: Path) -> None:
    corpus = beir_folder(tmp_path / "c", RECORDS, QUERIES, "q1\tc0\t1\n", toml="max_grade = 4\n")
    ws = str(tmp_path / "ws")
    assert max_grade(load_corpus(corpus)) == 4
    judged = run_on(capsys, corpus, "judgments", str(corpus), "--workspace", ws, "--judge", "q1", "c1", "4", "--json")
    assert judged.status == 0 and judged.json["judged"]["grade"] == 4 and judged.json["max_grade"] == 4
    assert_error(run_on(capsys, corpus, "judgments", str(corpus), "--workspace", ws, "--judge", "q1", "c1", "5"),
                 "grade 5 is off the scale 0-4")
    # the key is the corpus', not a setting: setups and the settings checks do not see it
    assert run_on(capsys, corpus, "eval", str(corpus), "--workspace", ws).status == 0


@pytest.mark.parametrize("toml", ["max_grade = 0\n", "max_grade = \"three\"\n", "max_grade = 2.5\n"])
def test_a_bad_declared_maximum_names_the_toml(capsys, tmp_path: Path, toml: str) -> None:
    corpus = beir_folder(tmp_path / "c", RECORDS, QUERIES, "q1\tc0\t1\n", toml=toml)
    assert_error(run_cli(capsys, "eval", str(corpus)), "ranklens.toml: max_grade must be a whole number of at least 1")


def test_an_import_with_grades_off_the_scale_is_refused_whole(capsys, tmp_path: Path) -> None:
    qrels = tmp_path / "mine.qrels"
    qrels.write_text("q01 0 copie-0 2\nq01 0 copie-1 7\nq02 0 copie-2 100\nq03 0 copie-0 -1\n", encoding="utf-8")
    ws = tmp_path / "ws"
    run = run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(ws), "--import-qrels", str(qrels), "--json")
    assert_error(run, "mine.qrels: 3 judgment(s) off the scale 0-3 (grades -1, 7, 100): nothing imported",
                 "max_grade")
    assert Workspace(ws).judgments() == {}


# Cranfield's layout: relevance graded 1-4 in the qrels, no ranklens.toml
GRADED_1_4 = "q1\tc0\t4\nq1\tc1\t1\nq2\tc1\t4\n"
QUERIES_2 = [*QUERIES, {"_id": "q2", "text": "a dog"}]


def test_the_scale_reaches_the_highest_grade_of_the_corpus_qrels(capsys, tmp_path: Path) -> None:
    corpus = beir_folder(tmp_path / "c", RECORDS, QUERIES_2, GRADED_1_4)
    assert max_grade(load_corpus(corpus)) == 4
    assert max_grade(load_corpus(beir_folder(tmp_path / "low", RECORDS, QUERIES, "q1\tc0\t1\n"))) == 3
    assert max_grade(load_corpus(beir_folder(tmp_path / "toml", RECORDS, QUERIES_2, GRADED_1_4,
                                             toml="max_grade = 5\n"))) == 5  # declared wins
    ws = str(tmp_path / "ws")
    judged = run_on(capsys, corpus, "judgments", str(corpus), "--workspace", ws, "--judge", "q1", "c1", "4", "--json")
    assert judged.status == 0 and judged.json["max_grade"] == 4
    assert_error(run_on(capsys, corpus, "judgments", str(corpus), "--workspace", ws, "--judge", "q1", "c1", "5"),
                 "grade 5 is off the scale 0-4")


def test_the_corpus_judgments_exported_then_imported_keep_every_row(capsys, tmp_path: Path) -> None:
    corpus = beir_folder(tmp_path / "c", RECORDS, QUERIES_2, GRADED_1_4)
    exported = tmp_path / "all.qrels"
    assert run_on(capsys, corpus, "judgments", str(corpus), "--export-qrels", str(exported)).status == 0
    assert exported.read_text(encoding="utf-8").splitlines() == ["q1 0 c0 4", "q1 0 c1 1", "q2 0 c1 4"]
    ws = tmp_path / "ws"
    imported = run_on(capsys, corpus, "judgments", str(corpus), "--workspace", str(ws), "--import-qrels",
                      str(exported), "--json")
    assert imported.status == 0 and imported.json["imported_judgments"] == 3, imported.err
    assert Workspace(ws).judgments() == {"q1": {"c0": 4, "c1": 1}, "q2": {"c1": 4}}


def test_the_engine_refuses_what_no_front_end_may_write(tmp_path: Path) -> None:
    assert check_grade(3, 3) == 3
    with pytest.raises(GradeError, match="grade 4 is off the scale 0-3"):
        check_grade(4, 3)
    workspace = Workspace.for_corpus(load_corpus("studio-alfa"), tmp_path / "ws")
    with pytest.raises(RanklensError, match="off the scale"):
        workspace.judge_many([("q01", "copie-0", 1), ("q01", "copie-1", 9)])
    assert workspace.judgments() == {}  # all or nothing
