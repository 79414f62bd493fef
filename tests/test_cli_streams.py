"""`-` on the command line: standard output for every export, standard input for every import
(judgments' qrels and queries, run --output, compare's run files), and nothing written to a file named `-`."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from ranklens.engine.measuring.trec import read_qrels, read_run
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import assert_error, run_cli


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a file named "-" would land here


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


def test_export_qrels_and_queries_to_standard_output(capsys, tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--judge", "q01", "copie-0", "2")
    qrels = run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--export-qrels", "-")
    assert qrels.status == 0 and not Path("-").exists()
    run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--export-qrels", "file.qrels")
    assert qrels.out == Path("file.qrels").read_text(encoding="utf-8")  # the export alone on stdout
    assert "q01 0 copie-0 2\n" in qrels.out and "exported 16 judgments to -" in qrels.err
    queries = run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--export-queries", "-")
    lines = [json.loads(line) for line in queries.out.splitlines()]
    assert queries.status == 0 and len(lines) == 19 and lines[0]["_id"] == "q01" and not Path("-").exists()


def test_import_qrels_and_queries_from_standard_input(capsys, monkeypatch, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _stdin(monkeypatch, '{"_id": "mine", "text": "posso lavorare da casa il venerdì"}\n')
    run = run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(ws), "--import-queries", "-", "--json")
    assert run.status == 0 and run.json["imported_questions"] == 1
    _stdin(monkeypatch, "mine 0 lavoro_agile-0 2\nq01 0 copie-0 1\n")
    run = run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(ws), "--import-qrels", "-", "--json")
    assert run.status == 0 and run.json["imported_judgments"] == 2
    assert Workspace(ws).judgments() == {"mine": {"lavoro_agile-0": 2}, "q01": {"copie-0": 1}}


def test_a_bad_line_on_standard_input_is_named_as_such(capsys, monkeypatch, tmp_path: Path) -> None:
    _stdin(monkeypatch, "q01 0 copie-0 1\nq01 0 copie-1 1 extra\n")
    assert_error(run_cli(capsys, "judgments", "studio-alfa", "--workspace", str(tmp_path), "--import-qrels", "-"),
                 "<stdin>:2: expected 4 fields")


def test_run_output_to_standard_output_is_the_run_alone(capsys, monkeypatch, tmp_path: Path) -> None:
    piped = run_cli(capsys, "run", "studio-alfa", "--scorer", "tfidf", "--output", "-")
    assert piped.status == 0 and not Path("-").exists() and not Path("-.json").exists()
    run_cli(capsys, "run", "studio-alfa", "--scorer", "tfidf", "--output", "tfidf.run")
    assert read_run("tfidf.run").rankings == read_run_text(piped.out, tmp_path).rankings
    _stdin(monkeypatch, piped.out)  # and compare reads it back from standard input
    compared = run_cli(capsys, "compare", "studio-alfa", "-", "tfidf", "--metrics", "nDCG@10", "--permutations",
                       "1000", "--json")
    assert compared.status == 0, compared.err
    assert compared.json["metrics"]["nDCG@10"]["delta"] == pytest.approx(0.0, abs=1e-12)


def read_run_text(text: str, folder: Path):  # noqa: ANN201
    path = folder / "piped.run"
    path.write_text(text, encoding="utf-8")
    return read_run(path)


@pytest.mark.parametrize("argv, said", [
    (["judgments", "studio-alfa", "--export-qrels", "-", "--json"], "--json: an export to - writes standard output"),
    (["judgments", "studio-alfa", "--export-qrels", "-", "--export-queries", "-"], "cannot both write standard"),
    (["judgments", "studio-alfa", "--import-qrels", "-", "--import-queries", "-"], "cannot both read standard input"),
    (["run", "studio-alfa", "--output", "-", "--json"], "--output - writes the run to standard output already"),
    (["compare", "studio-alfa", "-", "-"], "cannot both read standard input"),
])
def test_two_uses_of_one_stream_are_one_line_and_status_2(capsys, argv: list[str], said: str) -> None:
    assert_error(run_cli(capsys, *argv), said)


def test_qrels_from_standard_input_read_as_a_file_would(monkeypatch, tmp_path: Path) -> None:
    text = "q1 0 c1 1\nq1 0 c2 0\n"
    (tmp_path / "q.qrels").write_text(text, encoding="utf-8")
    _stdin(monkeypatch, text)
    assert read_qrels("-").judgments == read_qrels(tmp_path / "q.qrels").judgments


QUERY = "posso lavorare da casa il venerdì?"


@pytest.mark.parametrize("argv", [
    ["search", "studio-alfa", QUERY, "--explain"],
    ["prompt", "studio-alfa", QUERY],
    ["why", "studio-alfa", QUERY, "lavoro_agile-0"],
], ids=["search", "prompt", "why"])
@pytest.mark.parametrize("line_end", ["\n", "\r\n", ""])
def test_a_query_of_dash_is_read_from_standard_input(capsys, monkeypatch, argv: list[str], line_end: str) -> None:
    typed = run_cli(capsys, *argv, "--json")
    _stdin(monkeypatch, QUERY + line_end)
    piped = run_cli(capsys, *["-" if arg == QUERY else arg for arg in argv], "--json")
    assert piped.status == 0 and typed.status == 0, piped.err
    assert piped.out == typed.out and piped.err == typed.err == ""
    assert QUERY in piped.out and not Path("-").exists()
