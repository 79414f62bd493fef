"""Saved runs (engine/measuring/runs.py, engine/workspace/store.py): a run and its sidecar switched so that a
save killed between the two is named half-saved by every command, never read as a saved run; a run written to a file
never replaces a file ranklens did not write without --replace; a sidecar that is not usable JSON is one line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranklens.engine.measuring.trec import read_run
from tests.support.cli import assert_error, run_cli, run_on, stderr_lines
from tests.support.files import beir_folder
from tests.support.killed import killed_before_rename

RECORDS = [
    {"_id": "c0", "text": "the cat sat on the mat"},
    {"_id": "c1", "text": "a dog chased the cat around the garden"},
    {"_id": "c2", "text": "cats and dogs are pets that people keep at home"},
    {"_id": "c3", "text": "the stock market fell as traders sold shares"},
]
QUERIES = [{"_id": "q1", "text": "cat on a mat"}, {"_id": "q2", "text": "market shares"}]
QRELS = "q1\tc0\t2\nq2\tc3\t1\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return beir_folder(tmp_path / "pets", RECORDS, QUERIES, QRELS)


def _stale(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".*.tmp"))


@pytest.mark.parametrize("saved_before", [True, False], ids=["replacing", "first-save"])
def test_a_save_killed_between_run_and_sidecar_is_half_saved_for_every_command(capsys, tmp_path: Path, corpus: Path,
                                                                               saved_before: bool) -> None:
    ws = tmp_path / "ws"
    common = [str(corpus), "--workspace", str(ws)]
    if saved_before:
        assert run_cli(capsys, "run", *common, "--save", "r", "--scorer", "bm25").status == 0
    # killed once the new r.run is in place, before its sidecar r.json is
    killed_before_rename("r.json", ["run", *common, "--save", "r", "--scorer", "tfidf", "--replace"])
    assert read_run(ws / "runs" / "r.run").rankings  # the new run is there…
    if saved_before:  # …beside the sidecar of the old setup
        assert json.loads((ws / "runs" / "r.json").read_text())["setup"]["scorer"] == "bm25"
    # runs, compare and run --save agree: r is half-saved, and replacing it is the way out
    listed = run_on(capsys, corpus, "runs", *common, "--json")
    assert listed.status == 0 and listed.json["runs"] == []
    [warning] = stderr_lines(listed, "warning")
    assert "run 'r' is half-saved" in warning and "--save r --replace" in warning
    assert_error(run_on(capsys, corpus, "compare", *common, "r", "bm25"), "run 'r' is half-saved", "--replace")
    assert_error(run_on(capsys, corpus, "run", *common, "--save", "r"), "run 'r' is half-saved", "--replace")
    saved = run_on(capsys, corpus, "run", *common, "--save", "r", "--scorer", "tfidf", "--replace")
    assert saved.status == 0, saved.err
    listed = run_on(capsys, corpus, "runs", *common, "--json")
    assert [(r["name"], r["setup"]["scorer"]) for r in listed.json["runs"]] == [("r", "tfidf")]
    assert stderr_lines(listed, "warning") == []


def test_a_save_killed_before_its_run_keeps_the_old_run_and_the_next_writer_clears_its_leftover(
        capsys, tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "ws"
    common = [str(corpus), "--workspace", str(ws)]
    assert run_cli(capsys, "run", *common, "--save", "r", "--scorer", "bm25").status == 0
    before = (ws / "runs" / "r.run").read_bytes(), (ws / "runs" / "r.json").read_bytes()
    killed_before_rename("r.run", ["run", *common, "--save", "r", "--scorer", "tfidf", "--replace"])
    assert ((ws / "runs" / "r.run").read_bytes(), (ws / "runs" / "r.json").read_bytes()) == before
    assert len(_stale(ws / "runs")) == 1  # the killed writer's temporary run file
    listed = run_on(capsys, corpus, "runs", *common, "--json")
    assert [(r["name"], r["setup"]["scorer"]) for r in listed.json["runs"]] == [("r", "bm25")]
    assert run_on(capsys, corpus, "judgments", *common, "--judge", "q1", "c1", "1").status == 0  # a writer
    assert _stale(ws / "runs") == [] and _stale(ws) == []


@pytest.mark.parametrize("files", [{"important.txt": "my notes\n"},
                                   {"important.json": "{\"mine\": true}\n"},
                                   {"important.txt": "my notes\n", "important.json": "[1, 2]\n"},
                                   {"important.txt": "my notes\n", "important.json": "[" * 100_000}],
                         ids=["file", "sidecar", "both", "nested-json"])
def test_output_never_replaces_a_file_ranklens_did_not_write_without_replace(capsys, tmp_path: Path, corpus: Path,
                                                                             files: dict[str, str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    refused = run_on(capsys, corpus, "run", str(corpus), "--output", str(out / "important.txt"))
    assert_error(refused, "--output", "is not a ranklens run or its sidecar", "--replace")
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == files
    replaced = run_on(capsys, corpus, "run", str(corpus), "--output", str(out / "important.txt"), "--replace")
    assert replaced.status == 0, replaced.err
    assert read_run(out / "important.txt").rankings
    assert json.loads((out / "important.json").read_text())["setup"]["scorer"] == "bm25"


def test_output_replaces_a_run_ranklens_wrote_there(capsys, tmp_path: Path, corpus: Path) -> None:
    target = tmp_path / "bm25.run"
    assert run_on(capsys, corpus, "run", str(corpus), "--output", str(target)).status == 0
    again = run_on(capsys, corpus, "run", str(corpus), "--output", str(target), "--scorer", "tfidf")
    assert again.status == 0, again.err
    assert json.loads((tmp_path / "bm25.json").read_text())["setup"]["scorer"] == "tfidf"


def test_a_sidecar_nested_too_deeply_is_one_line_naming_it(capsys, tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "ws"
    assert run_cli(capsys, "run", str(corpus), "--workspace", str(ws), "--save", "r").status == 0
    sidecar = ws / "runs" / "r.json"
    sidecar.write_text("[" * 100_000, encoding="utf-8")
    for argv in (["runs", str(corpus)], ["compare", str(corpus), "r", "tfidf"]):
        assert_error(run_on(capsys, corpus, *argv, "--workspace", str(ws)), f"{sidecar}: not usable JSON (nested "
                                                                            "too deeply)")


def test_a_run_file_written_again_without_its_sidecar_is_not_read_with_the_old_one(capsys, tmp_path: Path,
                                                                                  corpus: Path) -> None:
    target = tmp_path / "mine.run"
    assert run_on(capsys, corpus, "run", str(corpus), "--output", str(target), "--scorer", "bm25").status == 0
    killed_before_rename("mine.json", ["run", str(corpus), "--output", str(target), "--scorer", "tfidf"])
    assert_error(run_on(capsys, corpus, "compare", str(corpus), str(target), "bm25"),
                 "its sidecar mine.json describes another run", "replacing it")
    # a run file with no sidecar at all is a foreign run, compared as one
    (tmp_path / "mine.json").unlink()
    assert run_on(capsys, corpus, "compare", str(corpus), str(target), "bm25").status == 0
