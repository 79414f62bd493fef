"""Bad corpora on the command line: one line on stderr naming the file (and line), exit 2, or a warning.

Every run checks that the corpus folder was left exactly as it was found.
"""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from collections.abc import Callable

import pytest

from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from tests.support.cli import ROOT, assert_error, run_cli, run_on, stderr_lines
from tests.support.files import DOCS, beir_folder, deny_open, text_folder
from tests.support.hostile import assert_terminal_safe

needs_permissions = pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                                       reason="needs POSIX permissions and a non-root user (root reads anything)")


# -- missing, empty, unreadable --------------------------------------------------------------------


def test_missing_path(capsys, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert_error(run_cli(capsys, "search", str(missing), "q"), f"corpus not found: {missing}")
    assert not missing.exists()


def test_empty_folder(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "empty", {})
    assert_error(run_on(capsys, folder, "search", str(folder), "q"), f"no documents in {folder}")


def test_folder_of_only_binary_files_says_why_it_is_empty(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "bin", {"image.txt": b"\x89PNG\x00\x00", "notes.md": b"\x00" * 10})
    assert_error(run_on(capsys, folder, "search", str(folder), "q"),
                  f"no documents in {folder} (skipped binary file image.txt)")


@pytest.mark.parametrize("name", ["corpus.jsonl", "queries.jsonl", "ranklens.toml", "qrels/test.tsv"])
def test_unreadable_beir_file_is_named(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    folder = beir_folder(tmp_path / "beir", DOCS, [{"_id": "q", "text": "apple"}], "q\ta\t1\n", 'k = 2\n')
    deny_open(monkeypatch, folder / name)
    assert_error(run_on(capsys, folder, "eval", str(folder)), f"cannot read {folder / name}: Permission denied")


def test_unreadable_text_file_is_skipped_with_a_warning(capsys, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = text_folder(tmp_path / "notes", {"a.txt": "red apple", "secret.txt": "hidden pear"})
    deny_open(monkeypatch, folder / "secret.txt")
    run = run_on(capsys, folder, "search", str(folder), "apple")
    assert run.status == 0 and "a.txt#0" in run.out
    assert stderr_lines(run, "warning") == ["ranklens: warning: skipped unreadable file secret.txt: Permission denied"]


def test_only_unreadable_text_files_is_an_error_that_says_why(capsys, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    folder = text_folder(tmp_path / "notes", {"secret.txt": "hidden pear"})
    deny_open(monkeypatch, folder / "secret.txt")
    assert_error(run_on(capsys, folder, "search", str(folder), "pear"),
                  f"no documents in {folder} (skipped unreadable file secret.txt: Permission denied)")


def test_unreadable_folder(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = text_folder(tmp_path / "locked", {"a.txt": "red apple"})
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != folder and real_access(path, mode, **kw))
    assert_error(run_on(capsys, folder, "search", str(folder), "apple"), f"cannot read {folder}: Permission denied")


def test_unreadable_subfolder_is_skipped_with_a_warning(capsys, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = text_folder(tmp_path / "notes", {"a.txt": "red apple", "private/b.txt": "green pear"})
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == folder / "private":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    run = run_on(capsys, folder, "search", str(folder), "pear")
    assert run.status == 0 and "no results" in run.out
    assert stderr_lines(run, "warning") == ["ranklens: warning: skipped unreadable folder private: Permission denied"]


def test_unreadable_chunk_file(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.txt"
    path.write_text("some words", encoding="utf-8")

    def denied(name, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", name)

    monkeypatch.setattr("ranklens.cli.commands.open", denied, raising=False)
    assert_error(run_cli(capsys, "chunk", str(path), "--size", "5"), f"cannot read {path}: Permission denied")


@needs_permissions
def test_real_permissions(capsys, tmp_path: Path) -> None:
    beir = beir_folder(tmp_path / "beir", DOCS)
    notes = text_folder(tmp_path / "notes", {"a.txt": "red apple", "secret.txt": "pear"})
    (beir / "corpus.jsonl").chmod(0)
    (notes / "secret.txt").chmod(0)
    try:
        assert_error(run_on(capsys, beir, "search", str(beir), "apple"), f"cannot read {beir / 'corpus.jsonl'}")
        run = run_on(capsys, notes, "search", str(notes), "apple")
        assert run.status == 0 and "skipped unreadable file secret.txt" in run.err
        assert_error(run_cli(capsys, "chunk", str(notes / "secret.txt"), "--size", "5"), "secret.txt")
        notes.chmod(0)
        assert_error(run_cli(capsys, "search", str(notes), "apple"), f"cannot read {notes}: Permission denied")
    finally:
        notes.chmod(0o755)
        (notes / "secret.txt").chmod(0o644)
        (beir / "corpus.jsonl").chmod(0o644)


def run_process(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """``ranklens *argv`` as its own process: a run that blocks fails the test instead of hanging it."""
    try:
        return subprocess.run([sys.executable, "-m", "ranklens.cli.main", *argv], cwd=ROOT, capture_output=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"ranklens {' '.join(argv)} did not finish")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_named_like_a_document_never_blocks(tmp_path: Path) -> None:
    notes = text_folder(tmp_path / "notes", {"a.txt": "red apple"})
    os.mkfifo(notes / "pipe.txt")
    run = run_process("search", str(notes), "apple")
    assert run.returncode == 0 and b"a.txt#0" in run.stdout
    assert run.stderr == b"ranklens: warning: skipped unreadable file pipe.txt: not a regular file\n"
    beir = tmp_path / "beir"
    beir.mkdir()
    os.mkfifo(beir / "corpus.jsonl")
    run = run_process("search", str(beir), "apple")
    assert run.returncode == 2
    assert run.stderr.decode() == f"ranklens: cannot read {beir / 'corpus.jsonl'}: not a regular file\n"


# -- files that load with a warning ----------------------------------------------------------------


def test_binary_and_invalid_utf8_files_load_with_warnings(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "mixed", {
        "good.txt": "caffè latte",
        "photo.txt": b"JFIF\x00\x01\x02binary",
        "latin1.md": "caffè latte".encode("latin-1"),
    })
    run = run_on(capsys, folder, "search", str(folder), "latte")
    assert run.status == 0
    assert stderr_lines(run, "warning") == [
        "ranklens: warning: latin1.md: not UTF-8, read as Latin-1 (ISO-8859-1)",
        "ranklens: warning: skipped binary file photo.txt",
    ]
    assert "caffè latte" in run.out and "\ufffd" not in run.out and "photo" not in run.out


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_links_in_a_loop_or_to_nothing_are_skipped_with_a_warning(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "links", {"good.txt": "caffè latte"})
    os.symlink("round.txt", folder / "about.txt")  # about.txt -> round.txt -> about.txt
    os.symlink("about.txt", folder / "round.txt")
    os.symlink("self.md", folder / "self.md")
    os.symlink("gone.txt", folder / "dangling.txt")
    before = sorted((p.name, os.lstat(p).st_mtime_ns) for p in folder.iterdir())  # stat() fails on a loop
    run = run_cli(capsys, "search", str(folder), "latte")
    assert run.status == 0 and "good.txt#0" in run.out
    loop = os.strerror(errno.ELOOP)
    assert stderr_lines(run, "warning") == [
        f"ranklens: warning: skipped unreadable file about.txt: {loop}",
        f"ranklens: warning: skipped unreadable file dangling.txt: {os.strerror(errno.ENOENT)}",
        f"ranklens: warning: skipped unreadable file round.txt: {loop}",
        f"ranklens: warning: skipped unreadable file self.md: {loop}",
    ]
    assert "Traceback" not in run.err
    assert sorted((p.name, os.lstat(p).st_mtime_ns) for p in folder.iterdir()) == before


def test_invalid_utf8_in_jsonl_is_named_with_its_line(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    folder.mkdir()
    (folder / "corpus.jsonl").write_bytes(b'{"_id": "a", "text": "ok latte"}\n{"_id": "b", "text": "caff\xe8 latte"}\n')
    run = run_on(capsys, folder, "search", str(folder), "latte", "--json")
    assert run.status == 0
    assert stderr_lines(run, "warning") == [
        f"ranklens: warning: {folder / 'corpus.jsonl'}: 1 line(s) not valid UTF-8 (first: line 2), bad bytes replaced"]
    assert "caff\ufffd latte" in [r["text"] for r in run.json["results"]]


def test_lone_surrogate_escapes_are_replaced_with_a_warning(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text('{"_id": "a\\ud800", "text": "x\\udfff latte \\ud83d\\ude00"}\n',
                                         encoding="utf-8")
    run = run_on(capsys, folder, "search", str(folder), "latte")
    assert run.status == 0
    assert stderr_lines(run, "warning") == [f"ranklens: warning: {folder / 'corpus.jsonl'}: 1 line(s) with lone "
                                            "surrogate escapes (first: line 1), replaced by U+FFFD"]
    assert "a\ufffd" in run.out and "x\ufffd latte \U0001F600" in run.out


def test_undecodable_file_name(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "names", {})
    with open(os.fsencode(folder) + b"/caff\xe8.txt", "wb") as handle:  # a latin-1 byte in a file name
        handle.write(b"latte macchiato")
    run = run_on(capsys, folder, "search", str(folder), "latte", "--json")
    assert run.status == 0
    assert run.json["results"][0]["id"] == "caff\ufffd.txt#0"


def test_qrels_naming_unknown_ids_are_counted_and_reported(capsys, tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "beir", DOCS, [{"_id": "q1", "text": "red apple"}],
                         "q1\ta\t1\nq1\tghost\t1\nq1\tphantom\t2\nq9\ta\t1\n")
    run = run_on(capsys, folder, "eval", str(folder), "--json")
    assert run.status == 0 and run.json["questions"] == 1
    qrels = folder / "qrels" / "test.tsv"
    assert stderr_lines(run, "warning") == [
        f"ranklens: warning: {qrels}: skipped 1 row(s) naming queries not in queries.jsonl",
        f"ranklens: warning: {qrels}: skipped 2 row(s) naming ids not in the corpus",
    ]


# -- malformed JSONL, ids and settings -------------------------------------------------------------


def corpus_lines(*lines: str) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        folder.mkdir()
        (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return folder
    return build


def with_queries(*lines: str) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        beir_folder(folder, DOCS)
        (folder / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return folder
    return build


def with_toml(text: str) -> Callable[[Path], Path]:
    return lambda folder: beir_folder(folder, DOCS, toml=text)


GOOD = json.dumps(DOCS[0])
BAD_CORPORA = {
    "malformed line": (corpus_lines(GOOD, '{"_id": "b", "text": oops}'), ["corpus.jsonl:2: not valid JSON"]),
    "not an object": (corpus_lines(GOOD, "[1, 2]"), ["corpus.jsonl:2: not a JSON object"]),
    "missing _id": (corpus_lines(GOOD, '{"text": "no id"}'), ["corpus.jsonl:2: record has no _id"]),
    "null _id": (corpus_lines('{"_id": null, "text": "x"}'), ["corpus.jsonl:1: record has no _id"]),
    "duplicate ids": (corpus_lines(GOOD, GOOD), ["corpus.jsonl:2: duplicate _id 'a'"]),
    "text not a string": (corpus_lines('{"_id": "a", "text": {"x": 1}}'), ["corpus.jsonl:1: 'text' must be a string"]),
    "huge integer": (corpus_lines('{"_id": ' + "9" * 5000 + "}"), ["corpus.jsonl:1: not usable JSON"]),
    "deep nesting": (corpus_lines('{"_id": "a", "text": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                     ["corpus.jsonl:1: not usable JSON (nested too deeply)"]),
    "queries malformed": (with_queries('{"_id": "q1", "text": "a"}', "", "{oops"), ["queries.jsonl:3: not valid JSON"]),
    "queries duplicate": (with_queries('{"_id": "q1", "text": "a"}', '{"_id": "q1", "text": "b"}'),
                          ["queries.jsonl:2: duplicate _id 'q1'"]),
    "queries number text": (with_queries('{"_id": "3", "text": 42}'), ["queries.jsonl:1: 'text' must be a string"]),
    "queries no text": (with_queries('{"_id": "3"}'), ["queries.jsonl:1: record has no text"]),
    "corpus null text": (corpus_lines('{"_id": "a", "text": "x"}', '{"_id": "b", "text": null}'),
                         ["corpus.jsonl:2: 'text' must be a string, not null"]),
    "corpus float id": (corpus_lines('{"_id": 1.5, "text": "x"}'),
                        ["corpus.jsonl:1: '_id' must be a string or a whole number, not a number"]),
    "corpus number title": (corpus_lines('{"_id": "a", "title": 7, "text": "x"}'),
                            ["corpus.jsonl:1: 'title' must be a string, not a number"]),
    "queries list answer": (with_queries('{"_id": "q", "text": "a", "answer": ["x"]}'),
                            ["queries.jsonl:1: 'answer' must be a string, not an array"]),
    "toml unknown key": (with_toml('colour = "blue"\n'), ["ranklens.toml: unknown setting 'colour'"]),
    "toml wrong type": (with_toml('k = "five"\n'), ["ranklens.toml: k must be int, got str 'five'"]),
    "toml bool for int": (with_toml("size = true\n"), ["ranklens.toml: size must be int, got bool"]),
    "toml int for bool": (with_toml("lowercase = 1\n"), ["ranklens.toml: lowercase must be bool, got int"]),
    "toml table": (with_toml("[search]\nk = 3\n"), ["ranklens.toml: unknown setting 'search'"]),
    "toml unknown scorer": (with_toml('scorer = "magic"\n'), ["ranklens.toml: unknown scorer 'magic'"]),
    "toml unknown language": (with_toml('language = "fr"\n'), ["ranklens.toml: unknown language 'fr'"]),
    "toml unknown stem": (with_toml('stem = "klingon"\n'), ["ranklens.toml: unknown stem 'klingon'"]),
    "toml missing stop list": (with_toml('stopwords = "stop.txt"\n'), ["ranklens.toml: stopwords 'stop.txt'"]),
    "toml nan k1": (with_toml("k1 = nan\n"), ["ranklens.toml: k1 must be a finite number"]),
    "toml inf b": (with_toml("b = inf\n"), ["ranklens.toml: b must be between 0 and 1"]),
    "toml negative decimals": (with_toml("decimals = -1\n"), ["ranklens.toml: decimals must be between 0 and 12"]),
    "toml bad pattern": (with_toml('token_pattern = "("\n'), ["ranklens.toml: token_pattern '(' is not a valid"]),
    "toml empty-matching pattern": (with_toml('token_pattern = "\\\\w*"\n'),
                                    ["ranklens.toml: token_pattern '\\\\w*' matches the empty string"]),
    "toml two groups": (with_toml('token_pattern = "(a)(b)"\n'), ["ranklens.toml: token_pattern '(a)(b)' has more"]),
    "toml syntax": (with_toml("k = = 3\n"), ["ranklens.toml: not valid TOML", "line 1"]),
    "toml deep nesting": (with_toml("fuse = " + "[" * 50_000 + "]" * 50_000 + "\n"),
                          ["ranklens.toml: not valid TOML (nested too deeply)"]),
}


@pytest.mark.parametrize("case", BAD_CORPORA, ids=list(BAD_CORPORA))
def test_bad_corpus_names_file_line_or_key(capsys, tmp_path: Path, case: str) -> None:
    build, needles = BAD_CORPORA[case]
    folder = build(tmp_path / "corpus")
    run = run_on(capsys, folder, "search", str(folder), "apple")
    assert_error(run, str(folder), *needles)
    with pytest.raises(RanklensError):  # the same one line for the TUI, which calls the loader
        load_corpus(folder)


def test_messages_quoting_hostile_paths_are_made_safe(capsys, tmp_path: Path) -> None:
    missing = tmp_path / "\x1b]0;pwned\x07 \u202eevil"
    run = run_cli(capsys, "search", str(missing), "q")
    assert_error(run, "corpus not found", "␛]0;pwned␇ ⟨U+202E⟩evil")


def test_a_real_process_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "beir", DOCS)
    (folder / "corpus.jsonl").write_text(GOOD + "\n{broken\n", encoding="utf-8")
    result = run_process("search", str(folder), "apple")
    assert result.returncode == 2 and result.stdout == b""
    err = result.stderr.decode("utf-8")
    assert err.count("\n") == 1 and "Traceback" not in err and f"{folder / 'corpus.jsonl'}:2:" in err
    assert_terminal_safe(err.rstrip("\n"))
