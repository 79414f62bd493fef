"""Bad input on the command line: exit status 2, one line on stderr naming the culprit, no traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli


def assert_one_line_error(run, *needles: str) -> None:
    assert run.status == 2
    assert run.out == ""
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert "Traceback" not in run.err
    for needle in needles:
        assert needle in lines[0]


def beir_folder(tmp_path: Path, corpus_lines: list[str]) -> Path:
    folder = tmp_path / "beir"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("\n".join(corpus_lines) + "\n", encoding="utf-8")
    return folder


def test_missing_corpus(capsys, tmp_path) -> None:
    assert_one_line_error(run_cli(capsys, "search", str(tmp_path / "nowhere"), "q"), "nowhere")


def test_empty_corpus_folder(capsys, tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    assert_one_line_error(run_cli(capsys, "eval", str(tmp_path / "empty")), "empty")


def test_unknown_scorer(capsys) -> None:
    assert_one_line_error(run_cli(capsys, "search", "studio-alfa", "q", "--scorer", "magic"), "--scorer", "magic")


@pytest.mark.parametrize("argv", [
    ["search", "studio-alfa", "ferie", "--size", "20", "--overlap", "20"],
    ["chunk", "-", "--size", "10", "--overlap", "12"],
])
def test_overlap_not_smaller_than_size(capsys, argv) -> None:
    assert_one_line_error(run_cli(capsys, *argv), "overlap")


@pytest.mark.parametrize("k", ["0", "-3", "two"])
def test_k_below_one(capsys, k) -> None:
    assert_one_line_error(run_cli(capsys, "search", "studio-alfa", "ferie", "-k", k), "-k")


def test_malformed_jsonl_names_file_and_line(capsys, tmp_path) -> None:
    folder = beir_folder(tmp_path, ['{"_id": "a", "text": "fine"}', '{"_id": "b", "text": oops}'])
    assert_one_line_error(run_cli(capsys, "eval", str(folder)), "corpus.jsonl:2")


def test_unknown_bm25_variant_and_negative_k1(capsys) -> None:
    assert_one_line_error(run_cli(capsys, "search", "studio-alfa", "q", "--bm25-variant", "bm26"), "bm25-variant")
    assert_one_line_error(run_cli(capsys, "search", "studio-alfa", "q", "--k1", "-1"), "--k1")


def test_overlap_without_size(capsys) -> None:
    assert_one_line_error(run_cli(capsys, "search", "studio-alfa", "q", "--overlap", "3"), "--size")


def test_unknown_stopwords_language(capsys) -> None:
    assert_one_line_error(run_cli(capsys, "search", "studio-alfa", "q", "--stopwords", "klingon"), "klingon")


def test_missing_chunk_file(capsys, tmp_path) -> None:
    assert_one_line_error(run_cli(capsys, "chunk", str(tmp_path / "none.txt"), "--size", "5"), "none.txt")


def test_query_without_terms_is_not_an_arbitrary_ranking(capsys) -> None:
    run = run_cli(capsys, "search", "studio-alfa", "?! ...", "--json")
    assert run.status == 0
    assert run.json["results"] == []
    assert run.json["note"] == "no query terms after analysis"


def test_console_script_exit_status_and_message(tmp_path) -> None:
    script = Path(sys.executable).with_name("ranklens")
    result = subprocess.run([str(script), "eval", str(tmp_path / "missing")], capture_output=True, text=True,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"}, timeout=120)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "missing" in result.stderr
