"""Writing the caches: a full or read-only disk is a warning that names the folder, a killed writer's staging
folder is removed by the next run, and nothing half-written is ever left or read.

Full and read-only disks are injected as the system reports them (``OSError`` with ``ENOSPC`` or ``EROFS``);
the killed writer is a real ``ranklens index`` process, killed with SIGKILL while its staging folder is full.
"""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.storage import staging
from ranklens.engine.storage.cache import IndexCache, save_array
from ranklens.engine.corpus.cache import CorpusCache
from ranklens.engine.storage.embeddings import EmbeddingCache
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import ROOT, run_cli
from tests.support.files import beir_folder

RECORDS = [{"_id": f"d{i}", "title": "", "text": f"alpha beta{i % 7} gamma{i % 11} città"} for i in range(300)]


def full_disk_at(monkeypatch: pytest.MonkeyPatch, root: Path, where: str) -> None:
    """Writes under ``root`` fail as the system fails them: ``manifest`` the last file of an entry on a full disk
    (after its arrays were written), ``mkdir`` every folder on a read-only disk, ``titles.bin`` the corpus'
    last column made on a disk out of inodes."""
    if where == "titles.bin":
        open_path = Path.open

        def no_inodes(self: Path, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            if self.name == where and root in self.parents:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
            return open_path(self, *args, **kwargs)

        monkeypatch.setattr(Path, "open", no_inodes)
    elif where == "manifest":
        write_text = Path.write_text

        def full(self: Path, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            if self.name == "manifest.json" and root in self.parents:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
            return write_text(self, *args, **kwargs)

        monkeypatch.setattr(Path, "write_text", full)
    else:
        mkdir = os.mkdir

        def read_only(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            if root == Path(path) or root in Path(path).parents:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
            return mkdir(path, *args, **kwargs)

        monkeypatch.setattr(os, "mkdir", read_only)


FAULTS = {"manifest": errno.ENOSPC, "mkdir": errno.EROFS}


def left_in(root: Path) -> list[str]:
    """Everything under ``root``, staging folders included."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


@pytest.mark.parametrize("where", FAULTS)
def test_index_on_a_full_or_read_only_disk_warns_and_claims_nothing(capsys, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   where: str) -> None:
    folder = beir_folder(tmp_path / "beir", RECORDS)
    root = tmp_path / "cache"
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(root))
    monkeypatch.setattr("ranklens.engine.corpus.loaders.MIN_BYTES", 0)  # the corpus is kept in the cache too
    full_disk_at(monkeypatch, root, where)
    run = run_cli(capsys, "index", str(folder))
    assert run.status == 0, run.err
    reason = os.strerror(FAULTS[where])
    assert run.err.splitlines() == [
        f"ranklens: warning: could not cache the corpus in {root}: {reason}",
        f"ranklens: warning: could not save the index cache in {root}: {reason}",
    ]
    assert run.out.startswith("beir: 300 chunks")
    assert run.out.endswith("; the term index could not be cached (the warning above says why)\n")
    assert left_in(root) == []


def test_index_says_cached_only_when_it_is(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = beir_folder(tmp_path / "beir", RECORDS)
    root = tmp_path / "cache"
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(root))
    run = run_cli(capsys, "index", str(folder))
    assert run.status == 0 and run.err == ""
    assert run.out.endswith(f"the term index is cached under {root}\n")
    (entry,) = root.iterdir()
    assert (entry / "manifest.json").is_file()


def test_a_failed_save_of_the_embeddings_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full_disk_at(monkeypatch, tmp_path, "manifest")
    cache = EmbeddingCache(tmp_path)
    cache.save("k" * 40, np.ones((3, 4), dtype=np.float32), "model")
    assert cache.problems == [f"could not save the embeddings cache in {tmp_path / 'embeddings'}: "
                              f"{os.strerror(errno.ENOSPC)}"]
    assert left_in(tmp_path) == ["embeddings"]
    assert cache.load("k" * 40, 3) is None


def test_scorer_weights_that_cannot_be_kept_are_made_and_leave_nothing(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens.engine.corpus import Chunk, Corpus, Document

    docs = [Document(r["_id"], "", r["text"]) for r in RECORDS]
    corpus = Corpus("mem", docs, [Chunk(d.id, d.id, 0, 0, len(d.text), d.text) for d in docs])
    uncached = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"}))
    write_text = Path.write_text

    def full_inside_entries(self: Path, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if self.name == "manifest.json" and self.parent.parent.parent == tmp_path:  # KEY/.NAME-staging/manifest
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_inside_entries)
    bench = Workbench(corpus, IndexCache(tmp_path), cache_min_chunks=0)
    cached = bench.retriever(setup_for(corpus, {"scorer": "bm25"}))
    query = cached.query("alpha beta3 città")
    assert np.allclose(cached.scores(query), uncached.scores(uncached.query("alpha beta3 città")))
    (entry,) = tmp_path.iterdir()
    assert [p.name for p in entry.iterdir() if p.is_dir()] == []  # no weights, no staging folder


@pytest.mark.parametrize("where", [*FAULTS, "titles.bin"])
def test_a_corpus_that_cannot_be_cached_is_read_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  where: str) -> None:
    folder = beir_folder(tmp_path / "beir", RECORDS)
    root = tmp_path / "cache"
    full_disk_at(monkeypatch, root, where)
    corpus = load_corpus(folder, cache=CorpusCache(root, min_bytes=0))
    assert corpus.chunks == load_corpus(folder, use_cache=False).chunks
    assert corpus.warnings == (f"could not cache the corpus in {root}: {os.strerror(FAULTS.get(where, errno.ENOSPC))}",)
    assert left_in(root) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_an_array_written_to_a_full_device_raises_the_systems_error() -> None:
    # numpy's own writer reports "N requested and M written", no errno, or nothing at all: the message said "None"
    with pytest.raises(OSError) as error:
        save_array(Path("/dev/full"), np.zeros(1 << 20))
    assert error.value.errno == errno.ENOSPC


def test_an_array_is_written_as_numpy_writes_it(tmp_path: Path) -> None:
    arrays = [np.zeros((0, 3), np.int64), np.arange(10, dtype=np.uint8), np.arange(12.0).reshape(3, 4)[:, :2],
              np.frombuffer("città".encode("utf-32-le"), dtype=np.uint32), np.ones((2, 5), dtype=np.float32)]
    for i, array in enumerate(arrays):
        save_array(tmp_path / f"{i}.npy", array)
        np.save(tmp_path / f"numpy-{i}.npy", array, allow_pickle=False)
        assert (tmp_path / f"{i}.npy").read_bytes() == (tmp_path / f"numpy-{i}.npy").read_bytes()


# -- a killed writer ----------------------------------------------------------------------------------

# ``ranklens ARGS`` whose first manifest write under the cache stops: the staging folder is printed, with its
# arrays written, and the process waits to be killed.
HOOKED = """
import os, pathlib, sys
import ranklens.engine.corpus.loaders
from ranklens.cli.main import main

if os.environ.get("CACHE_EVERY_CORPUS"):
    ranklens.engine.corpus.loaders.MIN_BYTES = 0
write_text = pathlib.Path.write_text

def stop_before_manifest(self, *args, **kwargs):
    if self.name == "manifest.json":
        print(self.parent, flush=True)
        sys.stdin.read()
    return write_text(self, *args, **kwargs)

if os.environ.get("STOP_AT_MANIFEST"):
    pathlib.Path.write_text = stop_before_manifest
sys.exit(main(sys.argv[1:]))
"""


def ranklens(root: Path, *argv: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", HOOKED, *argv], cwd=ROOT, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "RANKLENS_CACHE_DIR": str(root), **env})


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


@pytest.mark.parametrize("writing", ["the term index", "the corpus"])
def test_a_killed_index_builds_staging_is_removed_by_the_next_run(tmp_path: Path, writing: str) -> None:
    folder = beir_folder(tmp_path / "beir", RECORDS)
    root = tmp_path / "cache"
    env = {"CACHE_EVERY_CORPUS": "1"} if writing == "the corpus" else {}
    killed = ranklens(root, "index", str(folder), STOP_AT_MANIFEST="1", **env)
    assert killed.stdout is not None
    stopped = Path(killed.stdout.readline().strip())
    killed.send_signal(signal.SIGKILL)
    assert killed.wait(timeout=60) == -signal.SIGKILL
    assert stopped.parent == root and stopped.name.startswith(".") and any(stopped.iterdir())
    assert [p.name for p in root.iterdir()] == [stopped.name]  # the staging folder, and no entry

    # another writer, still running, whose staging folder the next run must leave alone
    alive = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        other = root / f".{'e' * 40}.{alive.pid}.staging-abcd1234"
        other.mkdir()
        status, out, err = finished(ranklens(root, "index", str(folder), **env))
        assert status == 0 and err == "", err
        assert out.endswith(f"the term index is cached under {root}\n")
        assert not stopped.exists()
        assert other.is_dir()
        entries = sorted(p.name for p in root.iterdir() if p != other)
        assert len(entries) == (2 if writing == "the corpus" else 1) and not any(e.startswith(".") for e in entries)
    finally:
        alive.communicate(timeout=60)


def test_only_staging_folders_of_processes_gone_are_removed(tmp_path: Path) -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait(timeout=60)
    kept = [
        tmp_path / f".entry.{os.getpid()}.staging-aaaa1111",  # this process'
        tmp_path / f"entry.{ended.pid}.staging-cccc3333",  # not hidden: not a staging folder
        tmp_path / ".d5ef20b0d668-h6j7ra3g",  # named before staging folders carried a process id, but new
        tmp_path / ".thumbnails-h6j7ra3g",  # someone else's, however old
    ]
    removed = [
        tmp_path / f".entry.{ended.pid}.staging-bbbb2222",
        tmp_path / ".d5ef20b0d668-q1w2e3r4",  # named the old way, and two days old
        tmp_path / f".corpus-{'0' * 32}-q1w2e3r4",
        tmp_path / f".bm25-{'1' * 20}-q1w2e3r4",
    ]
    for path in kept + removed:
        path.mkdir()
        (path / "data.npy").write_bytes(b"x")
    two_days_ago = time.time() - 2 * 24 * 3600
    for path in [*removed[1:], kept[-1]]:
        os.utime(path, (two_days_ago, two_days_ago))
    made = staging.staging_folder(tmp_path, "entry")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in [*kept, made])
    assert made.name.startswith(f".entry.{os.getpid()}.staging-")


def process_state(pid: int) -> str:
    """The state letter /proc gives the process (R, S, Z ...)."""
    return Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rpartition(")")[2].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_killed_writer_not_yet_reaped_counts_as_gone(tmp_path: Path) -> None:
    # under a parent that never waits (a container's first process when it is not an init) a killed process stays
    # a zombie: its process id answers os.kill, yet it writes nothing more
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    left = tmp_path / f".entry.{child.pid}.staging-zzzz9999"
    left.mkdir()
    try:
        staging.remove_stale(tmp_path)
        assert left.is_dir()  # running
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while process_state(child.pid) != "Z":  # not waited for, so a zombie once the kill lands
            assert time.monotonic() < deadline, process_state(child.pid)
            time.sleep(0.01)
        staging.remove_stale(tmp_path)
        assert not left.exists()
    finally:
        child.kill()
        child.wait(timeout=60)
