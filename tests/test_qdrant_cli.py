"""`ranklens push` and `--backend` on the command line: over a folder of Qdrant Edge shards (qdrant:PATH), and
through qdrant-client against tiny HTTP servers (its errors).

The oracle is the same command run locally with --scorer bm25 (BM25 lucene).
Servers that refuse a key or never answer are real sockets, not mocks of the client.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")
pytest.importorskip("qdrant_edge", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")

from ranklens.engine.backends.qdrant import QdrantBackend  # noqa: E402
from ranklens.engine.errors import RanklensError  # noqa: E402
from tests.support.cli import ROOT, assert_error, run_cli, stderr_lines  # noqa: E402
from tests.test_qdrant_fingerprint import RECORDS, write_corpus  # noqa: E402


@pytest.fixture
def pushed(capsys, tmp_path) -> str:
    """A local folder holding studio-alfa's collection (an Edge shard), as `ranklens push` makes it."""
    target = f"qdrant:{tmp_path / 'q'}"
    run = run_cli(capsys, "push", "studio-alfa", "--to", target)
    assert run.status == 0, run.err
    assert run.out.startswith(f"pushed 18 chunks of studio-alfa (BM25 lucene k1=1.2 b=0.75 · stop=none · stem=none"
                              f" · k=5) to {target} collection studio-alfa = shard-")
    return target


def test_eval_through_the_collection_equals_local_bm25(capsys, pushed: str) -> None:
    local = run_cli(capsys, "eval", "studio-alfa", "--scorer", "bm25", "--json").json
    remote = run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--json")
    assert remote.status == 0, remote.err
    data = remote.json
    assert data["metrics"] == pytest.approx(local["metrics"], abs=1e-12)
    assert data["metrics"]["mrr"] == pytest.approx(0.8, abs=0.2)  # a real ranking, not an empty one
    assert [q["full_rank"] for q in data["per_question"]] == [q["full_rank"] for q in local["per_question"]]
    assert data["scorer"] == f"{local['scorer']} · through {pushed} collection studio-alfa"


def test_a_run_made_through_the_collection_names_it_in_its_sidecar(capsys, pushed: str, tmp_path) -> None:
    output = tmp_path / "through.run"
    run = run_cli(capsys, "run", "studio-alfa", "--backend", pushed, "--output", str(output), "--json")
    assert run.status == 0, run.err
    sidecar = json.loads(output.with_suffix(".json").read_text())
    assert sidecar["backend"] == f"{pushed} collection studio-alfa"
    assert sidecar["describe"].endswith(f" · through {pushed} collection studio-alfa")
    assert sidecar["setup"]["scorer"] == "bm25"


def test_search_explain_shows_the_engine_score_beside_the_terms(capsys, pushed: str) -> None:
    local = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--scorer", "bm25", "--json").json
    run = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--explain", "--json")
    assert run.status == 0, run.err
    rows = run.json["results"]
    assert [r["id"] for r in rows] == [r["id"] for r in local["results"]]
    assert [r["score"] for r in rows] == pytest.approx([r["score"] for r in local["results"]], rel=1e-5)
    for row in rows:
        note = row["explain"]["notes"][-1]
        assert note.startswith(f"{pushed} collection studio-alfa scores it {row['score']:.6g}: equal to the local")


def test_threshold_and_prompt_through_the_collection(capsys, pushed: str) -> None:
    local = run_cli(capsys, "threshold", "studio-alfa", "--scorer", "bm25", "--json").json
    remote = run_cli(capsys, "threshold", "studio-alfa", "--backend", pushed, "--json").json
    assert remote["best_accuracy"] == local["best_accuracy"]
    assert remote["best_threshold"] == pytest.approx(local["best_threshold"], rel=1e-5)
    prompt = run_cli(capsys, "prompt", "studio-alfa", "rimborso auto", "--backend", pushed)
    assert prompt.status == 0 and prompt.out == run_cli(capsys, "prompt", "studio-alfa", "rimborso auto",
                                                        "--scorer", "bm25").out


def test_push_onto_an_existing_collection_needs_replace(capsys, pushed: str) -> None:
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", pushed),
                 "collection 'studio-alfa' exists (--replace replaces it)")
    again = run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--replace", "--json")
    assert again.status == 0 and again.json["replaced"].startswith("shard-")


def test_unknown_collection_names_those_there_are(capsys, pushed: str) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--collection", "nope"),
                 f"{pushed}: no collection 'nope' (it has studio-alfa)")


def test_other_analysis_settings_are_refused_with_the_difference(capsys, pushed: str) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--stem", "it", "--k1", "2"),
                 "collection 'studio-alfa' was pushed with other settings: stem='none' there, 'it' here; "
                 "k1=1.2 there, 2.0 here")


def test_another_scorer_cannot_run_through_a_collection(capsys, pushed: str) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--scorer", "tfidf"),
                 "--scorer tfidf: a collection ranks by BM25 lucene, its dense vectors or their fusion")
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--scorer", "lsa"), "--scorer lsa")
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--replace", "--bm25-variant", "bm25+"),
                 "BM25 lucene's idf", "cannot be pushed")


@pytest.mark.parametrize("argv", [
    ("eval", "studio-alfa", "--backend", "ftp://host"),
    ("push", "studio-alfa", "--to", "qdrant:"),
])
def test_a_location_that_is_not_qdrant(capsys, argv: tuple[str, ...]) -> None:
    assert_error(run_cli(capsys, *argv), "is not a Qdrant or Python function or HTTP endpoint location: give "
                                         "qdrant:PATH")


def test_a_folder_that_does_not_exist_is_not_made(capsys, tmp_path) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", f"qdrant:{tmp_path / 'none'}"),
                 f"qdrant:{tmp_path / 'none'}: no such folder")
    assert not (tmp_path / "none").exists()


def test_collection_without_backend(capsys) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--collection", "x"), "--collection needs --backend")


def test_a_refused_connection_is_one_line(capsys) -> None:
    with socket.socket() as probe:  # a port nobody listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", f"http://127.0.0.1:{port}"),
                 f"http://127.0.0.1:{port}: cannot reach Qdrant (ConnectError")


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(RanklensError, match=r"cannot reach Qdrant \(ReadTimeout"):
            QdrantBackend.open(url, "c", timeout=1)


class _Refusing(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the handler's protocol
        body = json.dumps({"status": {"error": "Invalid API key or JWT"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    # shutdown() waits for the loop to look at its flag, every poll_interval (0.5 s by default)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_refused_api_key(capsys, monkeypatch, refusing_server: str) -> None:
    monkeypatch.setenv("QDRANT_API_KEY", "wrong")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", refusing_server),
                 f"{refusing_server}: the server refused the API key (status 401; set QDRANT_API_KEY)")


def test_judgments_outside_the_collection_are_a_counted_note(capsys, tmp_path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": f"d{i}", "text": text}) + "\n"
        for i, text in enumerate(["red apples grow", "green pears fall", "blue sky rain"])), encoding="utf-8")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "red apples"}) + "\n", encoding="utf-8")
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text("q1\td0\t1\n", encoding="utf-8")
    target = f"qdrant:{tmp_path / 'q'}"
    assert run_cli(capsys, "push", str(folder), "--to", target).status == 0
    run = run_cli(capsys, "eval", str(folder), "--backend", target, "--collection", "c", "--json")
    assert run.status == 0 and run.json["metrics"]["mrr"] == 1.0
    assert stderr_lines(run, "note") == []


def test_a_corpus_edited_after_its_push_is_refused_until_pushed_again(capsys, tmp_path) -> None:
    folder = write_corpus(tmp_path / "c", RECORDS)
    target = f"qdrant:{tmp_path / 'q'}"
    assert run_cli(capsys, "push", str(folder), "--to", target).status == 0
    # the same ids, terms and chunk count; two texts trade a word
    write_corpus(folder, [("d0", "orchard", "red apples fall"), ("d1", "città", "green pears grow"), RECORDS[2]])
    said = ("collection 'c' was pushed with other settings: it was pushed from an older corpus (the chunks' texts "
            "differ from those of 'c' here: push it again with --replace)")
    assert_error(run_cli(capsys, "eval", str(folder), "--backend", target), said)
    assert_error(run_cli(capsys, "search", str(folder), "apples fall", "--backend", target), said)
    assert run_cli(capsys, "push", str(folder), "--to", target, "--replace").status == 0
    assert run_cli(capsys, "search", str(folder), "apples fall", "--backend", target).status == 0


@pytest.mark.parametrize("lost", ["mutable_id_tracker.versions", "mutable_id_tracker.mappings", "version.info"])
def test_a_shard_missing_a_file_is_refused_as_damaged(capsys, pushed: str, tmp_path, lost: str) -> None:
    # Edge loads such a shard as an empty one: every chunk would score 0, nDCG 0.000, exit 0
    (file,) = (tmp_path / "q" / "studio-alfa").glob(f"shard-*/segments/*/{lost}")
    file.unlink()
    said = f"{pushed}: collection 'studio-alfa' is damaged: it holds 0 points, its push wrote 18"
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed), said, "push it again with --replace")
    assert_error(run_cli(capsys, "search", "studio-alfa", "rimborso", "--backend", pushed), said)
    assert run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--replace").status == 0
    assert run_cli(capsys, "eval", "studio-alfa", "--backend", pushed).status == 0


# A push killed (SIGKILL, no cleanup of any kind) once its second batch is in the new shard.
KILLED_PUSH = """
import os, signal, sys
from ranklens.engine.backends.qdrant import push
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for

def die(done, total, label):
    if done >= 8:
        os.kill(os.getpid(), signal.SIGKILL)

corpus = load_corpus("studio-alfa")
push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), sys.argv[1], replace=True, progress=die,
     batch=4)
"""

# A push killed right after its switch, before it deletes the shard it replaced.
KILLED_AFTER_THE_SWITCH = """
import os, shutil, signal, sys
from ranklens.engine.backends.qdrant import push
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for

shutil.rmtree = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
corpus = load_corpus("studio-alfa")
push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), sys.argv[1], replace=True)
"""

# A push that stops once its second batch is in the new shard (ARGV[2] says so) until ARGV[3] exists.
PAUSED_PUSH = """
import sys, time
from pathlib import Path
from ranklens.engine.backends.qdrant import push
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for

paused, go = Path(sys.argv[2]), Path(sys.argv[3])

def wait(done, total, label):
    if done >= 8 and not paused.exists():
        paused.touch()
        while not go.exists():
            time.sleep(0.02)

corpus = load_corpus("studio-alfa")
report = push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), sys.argv[1],
              replace=sys.argv[4] == "replace", progress=wait, batch=4)
print(report.physical)
"""


def python(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300)


@dataclass
class Pushing:
    pid: int
    status: int | None = None  # and what it printed, once it has ended
    out: str = ""
    err: str = ""


@contextmanager
def paused_push(tmp_path: Path, target: str, replace: bool) -> Iterator[Pushing]:
    """A push of studio-alfa in a process of its own, paused midway for the block, then let finish."""
    paused, go = tmp_path / "paused", tmp_path / "go"
    process = subprocess.Popen([sys.executable, "-c", PAUSED_PUSH, target, str(paused), str(go),
                                "replace" if replace else "new"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=ROOT)
    pushing = Pushing(process.pid)
    try:
        while not paused.exists():
            assert process.poll() is None, process.communicate()
            time.sleep(0.02)
        yield pushing
    finally:
        go.touch()
        pushing.out, pushing.err = process.communicate(timeout=300)
        pushing.status = process.returncode


def test_a_push_killed_midway_leaves_the_previous_shard_answering(capsys, pushed: str, tmp_path) -> None:
    before = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json").json
    killed = python("-c", KILLED_PUSH, pushed)
    assert killed.returncode == -9, killed.stderr
    folder = tmp_path / "q" / "studio-alfa"
    assert any(p.name.startswith(".partial-") for p in folder.iterdir())  # the half-written shard, never named
    after = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json")
    assert after.status == 0 and after.json["results"] == before["results"]
    # the next command to open the collection, finding no push under way, removed what the killed one left
    assert sorted(p.name for p in folder.iterdir()) == [".push.lock", "current.json", current_shard(folder)]


def current_shard(folder: Path) -> str:
    return json.loads((folder / "current.json").read_text(encoding="utf-8"))["shard"]


def test_a_shard_a_killed_push_replaced_but_did_not_delete_is_removed_by_the_next_command(
        capsys, pushed: str, tmp_path) -> None:
    folder = tmp_path / "q" / "studio-alfa"
    first = current_shard(folder)
    killed = python("-c", KILLED_AFTER_THE_SWITCH, pushed)
    assert killed.returncode == -9, killed.stderr
    second = current_shard(folder)
    assert second != first and (folder / first).is_dir()  # switched, the old shard left behind
    assert run_cli(capsys, "eval", "studio-alfa", "--backend", pushed).status == 0
    assert sorted(p.name for p in folder.iterdir()) == [".push.lock", "current.json", second]


def test_leftovers_set_aside_by_a_command_killed_while_deleting_them_are_deleted_by_the_next(
        capsys, pushed: str, tmp_path) -> None:
    folder = tmp_path / "q" / "studio-alfa"
    (folder / ".gone-0123456789ab" / "segments").mkdir(parents=True)
    (folder / ".gone-0123456789ab" / "segments" / "page_0.dat").write_bytes(b"x" * 4096)
    assert run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed).status == 0
    assert sorted(p.name for p in folder.iterdir()) == [".push.lock", "current.json", current_shard(folder)]


def test_two_pushes_of_one_collection_at_once_the_second_is_refused(capsys, tmp_path) -> None:
    target = f"qdrant:{tmp_path / 'q'}"
    with paused_push(tmp_path, target, replace=False) as first:
        second = python("-m", "ranklens.cli.main", "push", "studio-alfa", "--to", target)
        assert second.returncode == 2 and second.stdout == "", second.stderr
        assert second.stderr.splitlines() == [
            f"ranklens: {target}: collection 'studio-alfa' is being pushed by process {first.pid}; push again once "
            "that push has ended"]
    assert first.status == 0, first.err
    assert current_shard(tmp_path / "q" / "studio-alfa") == first.out.strip()  # the first push's shard answers
    assert run_cli(capsys, "eval", "studio-alfa", "--backend", target).status == 0


def test_a_command_opening_a_collection_leaves_a_live_pushs_folder_alone(capsys, pushed: str, tmp_path) -> None:
    folder = tmp_path / "q" / "studio-alfa"
    before = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json").json
    with paused_push(tmp_path, pushed, replace=True) as push:
        (partial,) = folder.glob(".partial-*")
        during = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json")
        assert during.status == 0 and during.json["results"] == before["results"]
        assert partial.is_dir()
    assert push.status == 0, push.err
    assert current_shard(folder) == push.out.strip() == f"shard-{partial.name.split('-')[1]}"


# sh functions for a script run by ``on_a_small_disk``: leave KB free on $DISK; list what $DISK holds
DISK_TOOLS = """
fill() { dd if=/dev/zero of="$DISK/filler" bs=1k count=$(( $(df -k --output=avail "$DISK" | tail -1) - $1 )) \
         2>/dev/null || true; }
listing() { echo "--- listing"; (cd "$DISK" && find . | sort); }
"""


def on_a_small_disk(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` (sh) run where $DISK is a fresh 16 MB tmpfs, in a mount namespace of its own (the disk is gone
    with it), $RANKLENS running the command line. Skipped where unprivileged namespaces are not allowed."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to mount a small disk with")
    namespace = ["unshare", "--user", "--map-root-user", "--mount"]
    disk = tmp_path / "disk"
    disk.mkdir()
    probe = subprocess.run([*namespace, "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a small disk here: {probe.stderr.decode(errors='replace').strip()}")
    env = {**os.environ, "DISK": str(disk), "RANKLENS": f"{sys.executable} -m ranklens.cli.main",
           "PYTHON": sys.executable}
    return subprocess.run([*namespace, "sh", "-c", 'mount -t tmpfs -o size=16m tmpfs "$DISK" || exit 99\n'
                           + DISK_TOOLS + script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def listed(run: subprocess.CompletedProcess[str]) -> list[str]:
    assert run.returncode == 0, run.stderr
    return run.stdout.split("--- listing\n", 1)[1].splitlines()


@pytest.mark.parametrize("free_kb", [0, 64])
def test_a_push_onto_a_nearly_full_disk_is_one_line_and_writes_nothing(tmp_path, free_kb: int) -> None:
    # Edge writes through memory maps: where the disk filled up under them, the push died of SIGBUS (exit 135)
    run = on_a_small_disk(tmp_path, f"""
        fill {free_kb}
        $RANKLENS push studio-alfa --to "qdrant:$DISK/q"; echo "status $?"
        listing""")
    assert "status 2\n" in run.stdout, (run.stdout, run.stderr)
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"ranklens: qdrant:{tmp_path / 'disk'}/q: not enough free space for the shard ("), line
    assert listed(run) == [".", "./filler"]


# A push of the corpus ARGV[1] into ARGV[2] (a folder of the small disk) during which something else fills the
# disk, after its first batch, up to 64 KB free.
FILLED_MIDWAY = """
import shutil, sys
from pathlib import Path
from ranklens.engine.backends.qdrant import push
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for

filler = Path(sys.argv[2]) / "filler"

def fill(done, total, label):
    if done and not filler.exists():
        filler.write_bytes(bytes(shutil.disk_usage(filler.parent).free - 64 * 1024))

corpus = load_corpus(sys.argv[1])
try:
    push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), f"qdrant:{sys.argv[2]}/q",
         progress=fill, batch=100)
except RanklensError as error:
    sys.exit(f"ranklens: {error}")
"""


def test_a_disk_filled_by_another_process_during_a_push_is_one_line(tmp_path) -> None:
    words = [f"w{i}" for i in range(500)]
    records = [(f"d{i}", "", " ".join(words[(i * 7 + j) % 500] for j in range(300))) for i in range(2000)]
    folder = write_corpus(tmp_path / "c", records)  # 2,000 chunks of 1.5 KB: pages the first batch never touched
    run = on_a_small_disk(tmp_path, f"""
        $PYTHON -c '{FILLED_MIDWAY}' {folder} "$DISK"; echo "status $?"
        listing""")
    assert "status 1\n" in run.stdout, (run.stdout, run.stderr)
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"ranklens: qdrant:{tmp_path / 'disk'}/q: not enough free space for the shard ("), line
    assert not any(".partial-" in name or "current.json" in name for name in listed(run))


def test_a_push_replacing_a_collection_on_a_full_disk_leaves_the_old_one_answering(tmp_path) -> None:
    run = on_a_small_disk(tmp_path, """
        $RANKLENS push studio-alfa --to "qdrant:$DISK/q" > /dev/null || exit 98
        fill 64
        $RANKLENS push studio-alfa --to "qdrant:$DISK/q" --replace; echo "status $?"
        $RANKLENS search studio-alfa "rimborso auto" --backend "qdrant:$DISK/q" > /dev/null; echo "search $?"
        listing""")
    assert "status 2\nsearch 0\n" in run.stdout, (run.stdout, run.stderr)
    assert "not enough free space for the shard" in run.stderr and "Traceback" not in run.stderr
    assert [name for name in listed(run) if name.count("/") <= 2] == [
        ".", "./filler", "./q", "./q/ranklens-edge.json", "./q/studio-alfa"]
    kept = [name.rsplit("/", 1)[1] for name in listed(run) if name.count("/") == 3]
    assert kept[:2] == [".push.lock", "current.json"] and len(kept) == 3 and kept[2].startswith("shard-")


def test_a_push_onto_a_read_only_disk_is_one_line(tmp_path) -> None:
    run = on_a_small_disk(tmp_path, """
        mount -o remount,ro "$DISK" || exit 97
        $RANKLENS push studio-alfa --to "qdrant:$DISK/q"; echo "status $?"
        listing""")
    assert "status 2\n" in run.stdout, (run.stdout, run.stderr)
    assert run.stderr.splitlines() == [f"ranklens: qdrant:{tmp_path / 'disk'}/q: cannot write "
                                       f"{tmp_path / 'disk'}/q: Read-only file system"]
    assert listed(run) == ["."]


def test_a_location_naming_a_regular_file_is_one_line(capsys, tmp_path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x", encoding="utf-8")
    for argv in (("push", "studio-alfa", "--to", f"qdrant:{file}"),
                 ("eval", "studio-alfa", "--backend", f"qdrant:{file}")):
        assert_error(run_cli(capsys, *argv), f"qdrant:{file}: {file} is a file, not a folder")
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", f"qdrant:{file / 'q'}"),
                 f"qdrant:{file / 'q'}: cannot write {file / 'q' / 'studio-alfa'}: Not a directory")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"] and file.read_text(encoding="utf-8") == "x"


@pytest.mark.parametrize("name", ["ranklens-edge.json", "studio-alfa/current.json"])
def test_deeply_nested_json_in_the_folder_is_one_line_naming_it(capsys, pushed: str, tmp_path, name: str) -> None:
    file = tmp_path / "q" / name
    file.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for argv in (("eval", "studio-alfa", "--backend", pushed), ("push", "studio-alfa", "--to", pushed, "--replace")):
        assert_error(run_cli(capsys, *argv), f"{pushed}: {file}: not usable JSON (nested too deeply)")
    assert file.read_text(encoding="utf-8") == "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name", ["edge_config.json", "segments/*/segment.json",
                                  "segments/*/payload_storage/config.json"])
def test_deeply_nested_json_in_edges_own_files_is_one_line(capsys, pushed: str, tmp_path, name: str) -> None:
    (file,) = (tmp_path / "q" / "studio-alfa").glob(f"shard-*/{name}")
    file.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    shard = next(folder for folder in file.parents if folder.name.startswith("shard-"))
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed), f"{pushed}: Qdrant Edge: ", str(shard))


def test_a_folder_of_qdrant_client_local_mode_says_what_it_is(capsys, tmp_path) -> None:
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(tmp_path / "old"))  # what qdrant:PATH held before Edge
    client.create_collection("studio-alfa", vectors_config={},
                             sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)})
    client.close()
    said = f"qdrant:{tmp_path / 'old'} is a folder of qdrant-client's local mode"
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", f"qdrant:{tmp_path / 'old'}"), said,
                 "push the corpus again into a new folder")
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", f"qdrant:{tmp_path / 'old'}"), said)


def test_a_folder_that_is_not_ranklens_edge_shards_is_one_line(capsys, pushed: str, tmp_path) -> None:
    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("x", encoding="utf-8")
    for argv in (("eval", "studio-alfa", "--backend", f"qdrant:{other}"),
                 ("push", "studio-alfa", "--to", f"qdrant:{other}")):
        assert_error(run_cli(capsys, *argv), f"qdrant:{other} is not a folder of ranklens' Qdrant Edge collections")
    assert [p.name for p in other.iterdir()] == ["todo.txt"]
    shard = next((tmp_path / "q" / "studio-alfa").glob("shard-*"))  # a bare shard, given as the folder
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", f"qdrant:{shard}"),
                 f"qdrant:{shard} is a bare Qdrant Edge shard, not a folder ranklens pushed to")


def test_a_folder_from_another_ranklens_version_is_one_line(capsys, pushed: str, tmp_path) -> None:
    marker = tmp_path / "q" / "ranklens-edge.json"
    marker.write_text('{"ranklens_edge": 99}', encoding="utf-8")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed),
                 f"{pushed} was written by another version of ranklens (Edge layout 99, this one reads 1)")
    marker.write_text('{"ranklens_edge": 1}', encoding="utf-8")
    current = tmp_path / "q" / "studio-alfa" / "current.json"
    data = json.loads(current.read_text(encoding="utf-8"))
    data["metadata"]["ranklens"] = 0  # a fingerprint of another format
    current.write_text(json.dumps(data), encoding="utf-8")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed),
                 "it was not pushed by this version of ranklens (format 0)")
