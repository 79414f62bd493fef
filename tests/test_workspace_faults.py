"""The workspace's writes under faults (engine/workspace/store.py): an import killed mid-write or failing on a full
disk records nothing; a judgment whose qrels file cannot be written is taken back and said so; a writer killed
between the log and the qrels file is caught up by the next reader; a full or read-only disk is one line and
exit 2 for every command that writes, a file of the workspace nested too deeply too; nothing half-written."""
from __future__ import annotations

import builtins
import errno
import os
from pathlib import Path

import pytest

from ranklens.engine.measuring.trec import read_qrels
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import assert_error, run_cli
from tests.support.files import beir_folder
from tests.support.killed import full_mid_write, killed_before_rename, killed_mid_write

RECORDS = [{"_id": f"c{i}", "text": text} for i, text in enumerate(
    ["the cat sat on the mat", "a dog in the garden", "market shares fell", "water the garden"])]
QUERIES = [{"_id": "q1", "text": "cat on a mat"}, {"_id": "q2", "text": "garden water"}]
ROWS = 3000  # judgments in the big import: ~330 kB of log, past the writes' 64 kB limit below
LIMIT = 64_000


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return beir_folder(tmp_path / "c", RECORDS, QUERIES, "q1\tc0\t1\n")


@pytest.fixture
def ws(tmp_path: Path, corpus: Path, capsys) -> Path:
    """A workspace holding one judgment and one saved run."""
    root = tmp_path / "ws"
    assert run_cli(capsys, "judgments", str(corpus), "--workspace", str(root), "--judge", "q1", "c1", "2").status == 0
    assert run_cli(capsys, "run", str(corpus), "--workspace", str(root), "--save", "r").status == 0
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.name != ".lock"}


def _big_qrels(path: Path) -> Path:
    path.write_text("".join(f"q{1 + i % 2} 0 c{i % 4}#{i} {i % 4}\n" for i in range(ROWS)), encoding="utf-8")
    return path


def test_an_import_killed_mid_write_records_nothing(tmp_path: Path, corpus: Path, ws: Path, capsys) -> None:
    before = _files(ws)
    argv = ["judgments", str(corpus), "--workspace", str(ws), "--import-qrels", str(_big_qrels(tmp_path / "big"))]
    killed_mid_write(LIMIT, argv)
    assert Workspace(ws).judgments() == {"q1": {"c1": 2}}
    assert run_cli(capsys, *argv).status == 0  # whole, once not killed; the killed writer's leftover cleared
    assert sum(map(len, Workspace(ws).judgments().values())) == ROWS + 1
    assert {name for name in _files(ws) if name.endswith(".tmp")} == set() and set(before) <= set(_files(ws))


def test_an_import_on_a_disk_filling_up_is_one_line_and_records_nothing(tmp_path: Path, corpus: Path,
                                                                          ws: Path) -> None:
    before = _files(ws)
    done = full_mid_write(LIMIT, ["judgments", str(corpus), "--workspace", str(ws), "--import-qrels",
                                  str(_big_qrels(tmp_path / "big"))])
    assert done.returncode == 2 and done.stdout == b""
    [line] = done.stderr.decode().splitlines()
    assert "cannot write" in line and "judgments.jsonl" in line and "Traceback" not in line
    assert _files(ws) == before


def test_a_judgment_whose_qrels_cannot_be_written_is_taken_back(monkeypatch, capsys, corpus: Path,
                                                               ws: Path) -> None:
    before = _files(ws)
    real = os.fsync

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(ws / ".qrels.")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    judge = ["judgments", str(corpus), "--workspace", str(ws), "--judge", "q2", "c3", "3"]
    assert_error(run_cli(capsys, *judge), "cannot write", "qrels", "No space left on device",
                 "1 judgment not recorded")
    assert _files(ws) == before and Workspace(ws).judgments() == {"q1": {"c1": 2}}
    monkeypatch.setattr(os, "fsync", real)
    assert run_cli(capsys, *judge).status == 0
    assert read_qrels(ws / "qrels").judgments == {"q1": {"c1": 2}, "q2": {"c3": 3}}


def test_a_writer_killed_between_the_log_and_qrels_is_caught_up_by_the_next_reader(capsys, corpus: Path,
                                                                                  ws: Path) -> None:
    killed_before_rename("qrels", ["judgments", str(corpus), "--workspace", str(ws), "--judge", "q2", "c3", "3"])
    assert read_qrels(ws / "qrels").judgments == {"q1": {"c1": 2}}  # behind the log
    assert run_cli(capsys, "eval", str(corpus), "--workspace", str(ws)).status == 0  # a reader
    assert read_qrels(ws / "qrels").judgments == {"q1": {"c1": 2}, "q2": {"c3": 3}}


def _failing(monkeypatch: pytest.MonkeyPatch, roots: list[Path], code: int) -> None:
    """Every write under ``roots`` fails with ``code``: ENOSPC when data reaches the disk (fsync) or a folder
    is made; EROFS as soon as a file is opened for writing, made, renamed, cut or removed."""
    def under(path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and any(
            os.path.abspath(os.fspath(path)).startswith(str(root)) for root in roots)

    def fail() -> None:
        raise OSError(code, os.strerror(code))

    def wrap(module: object, name: str, failing: object) -> None:
        real = getattr(module, name)

        def patched(*args: object, **kwargs: object) -> object:
            if failing(*args, **kwargs):
                fail()
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, patched)

    wrap(os, "mkdir", lambda path, *a, **k: under(path))
    if code == errno.ENOSPC:
        wrap(os, "fsync", lambda fd: under(os.readlink(f"/proc/self/fd/{fd}")))
        return
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT
    wrap(os, "open", lambda path, flags, *a, **k: under(path) and bool(flags & writing)
         and not str(path).endswith(".lock"))
    wrap(builtins, "open", lambda path, mode="r", *a, **k: under(path) and any(c in mode for c in "wax+"))
    for name in ("replace", "truncate", "unlink"):
        wrap(os, name, lambda path, *a, **k: under(path))


WRITES = {
    "judge": ["judgments", "--judge", "q2", "c3", "3"],
    "undo": ["judgments", "--undo"],
    "import-qrels": ["judgments", "--import-qrels", "{qrels}"],
    "import-queries": ["judgments", "--import-queries", "{queries}"],
    "rater-rule": ["judgments", "--rater-rule", "max"],
    "save": ["run", "--save", "new"],
    "replace": ["run", "--save", "r", "--replace", "--scorer", "tfidf"],
    "output": ["run", "--output", "{out}/mine.run"],
}


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS], ids=["full", "read-only"])
@pytest.mark.parametrize("command", list(WRITES))
def test_a_full_or_read_only_disk_is_one_line_and_changes_nothing(monkeypatch, capsys, tmp_path: Path,
                                                                  corpus: Path, ws: Path, command: str,
                                                                  code: int) -> None:
    qrels, queries, out = tmp_path / "in.qrels", tmp_path / "in.jsonl", tmp_path / "out"
    qrels.write_text("q2 0 c2 1\nq2 0 c0 0\n", encoding="utf-8")
    queries.write_text('{"_id": "n1", "text": "dogs"}\n', encoding="utf-8")
    out.mkdir()
    name, *rest = WRITES[command]
    argv = [name, str(corpus), "--workspace", str(ws),
            *(a.format(qrels=qrels, queries=queries, out=out) for a in rest)]
    before, written = _files(ws), _files(out)
    _failing(monkeypatch, [ws, out], code)
    assert_error(run_cli(capsys, *argv), "cannot write", os.strerror(code))
    assert _files(ws) == before and _files(out) == written


def test_a_runs_folder_that_cannot_be_made_is_one_line(monkeypatch, capsys, tmp_path: Path, corpus: Path) -> None:
    ws = tmp_path / "fresh"
    assert run_cli(capsys, "judgments", str(corpus), "--workspace", str(ws), "--judge", "q1", "c1", "2").status == 0
    _failing(monkeypatch, [ws / "runs"], errno.ENOSPC)
    assert_error(run_cli(capsys, "run", str(corpus), "--workspace", str(ws), "--save", "first"),
                 f"cannot write {ws / 'runs'}: No space left on device")
    assert not (ws / "runs").exists()


@pytest.mark.parametrize("name", ["queries.jsonl", "judgments.jsonl", "settings.json", "import"])
def test_workspace_json_nested_too_deeply_is_one_line_naming_the_file(capsys, tmp_path: Path, corpus: Path,
                                                                      ws: Path, name: str) -> None:
    path = tmp_path / "nested.jsonl" if name == "import" else ws / name
    path.write_text("{\"_id\": " + "[" * 100_000 + "\n", encoding="utf-8")
    argv = ["judgments", str(corpus), "--workspace", str(ws)]
    if name == "import":
        argv += ["--import-queries", str(path)]
    assert_error(run_cli(capsys, *argv), str(path), "not usable JSON (nested too deeply)")


def test_a_kept_pool_nested_too_deeply_is_one_line_naming_it(tmp_path: Path) -> None:
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.judging.pool import load_pool

    (tmp_path / "pools").mkdir()
    (tmp_path / "pools" / "deep.json").write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(RanklensError, match=r"deep\.json: not usable JSON \(nested too deeply\)"):
        load_pool(Workspace(tmp_path), "deep")


def test_the_next_writer_deletes_the_leftovers_of_killed_writers_only(capsys, corpus: Path, ws: Path) -> None:
    dead = 2 ** 22 + 7  # above the highest pid_max Linux allows: no process has it
    (ws / "pools").mkdir()
    leftovers = [ws / f".qrels.{dead}.1.tmp", ws / "runs" / f".r.run.{dead}.1.tmp",
                 ws / "pools" / f".p.json.{dead}.1.tmp"]
    alive = ws / f".qrels.{os.getpid()}.1.tmp"  # a writer still running (this one)
    for path in [*leftovers, alive]:
        path.write_text("half", encoding="utf-8")
    assert run_cli(capsys, "judgments", str(corpus), "--workspace", str(ws), "--judge", "q2", "c3", "1").status == 0
    assert [p.exists() for p in leftovers] == [False, False, False] and alive.exists()
