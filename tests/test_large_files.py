"""A very large single file: the command line finishes, in bounded memory, writing nothing next to it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import measured_run, run_cli, run_on, slow
from tests.support.files import listing, text_folder

LINE = "The quick brown fox jumps over the lazy dog near the river bank today. Rivers flow 42 miles!\n"
MEMORY_BOUND = 4 << 30  # generous: the 200 MB file peaks near 2.3 GB (search) and 1 GB (chunk)


def write_big_file(path: Path, megabytes: int) -> Path:
    block = LINE * ((1 << 20) // len(LINE) + 1)  # a little over 1 MB
    with path.open("w", encoding="utf-8") as handle:
        for _ in range(megabytes):
            handle.write(block)
    return path


@pytest.mark.parametrize("megabytes", [20, pytest.param(200, marks=slow)])
def test_a_huge_single_file_is_chunked_and_searched_in_bounded_memory(tmp_path: Path, megabytes: int) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    path = write_big_file(folder / "big.txt", megabytes)
    before = listing(folder)
    try:
        chunk = measured_run(["chunk", str(path), "--size", "200", "--overlap", "20", "--json"],
                             stdout=subprocess.DEVNULL)
        assert chunk.status == 0 and chunk.err == b"", chunk.err
        assert chunk.peak_rss < MEMORY_BOUND
        search = measured_run(["search", str(folder), "rivers fox"])
        assert search.status == 0 and b"Traceback" not in search.err, search.err
        assert search.out.splitlines()[1].startswith(b"  1  ") and b"big.txt#" in search.out
        assert search.peak_rss < MEMORY_BOUND
        assert listing(folder) == before  # the index cache lives in the cache folder, not here
    finally:
        path.unlink()  # pytest keeps recent temporary folders: do not leave 200 MB behind


def test_chunk_json_of_a_big_text_counts_words_without_splitting_it(capsys, tmp_path: Path) -> None:
    path = write_big_file(tmp_path / "big.txt", 2)
    data = run_cli(capsys, "chunk", str(path), "--size", "200", "--overlap", "20", "--json").json
    words = len(path.read_text(encoding="utf-8").split())
    assert data["words"] == words
    assert data["chunks"][-1]["start_word"] + len(data["chunks"][-1]["text"].split()) == words
    assert len(data["chunks"]) == -(-(words - 20) // 180)


def test_progress_is_shown_on_a_terminal_and_wiped_before_the_results(capsys, monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "notes", {"a.txt": "red apple", "b.txt": "green pear"})
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    run = run_on(capsys, folder, "search", str(folder), "apple")
    assert run.status == 0 and "a.txt#0" in run.out
    drawn = [piece for piece in run.err.split("\r") if piece.strip()]
    assert drawn[0] == "ranklens: loading 0 of 2" and all(piece.startswith("ranklens: ") for piece in drawn)
    assert run.err.endswith("\r") and not run.err[:-1].split("\r")[-1].strip()  # the last write wipes the line


def test_no_progress_when_stderr_is_not_a_terminal(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "notes", {"a.txt": "red apple"})
    assert run_on(capsys, folder, "search", str(folder), "apple").err == ""
