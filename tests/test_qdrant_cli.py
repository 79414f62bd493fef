"""`ranklens push` and `--backend` on the command line: over a folder of Qdrant Edge shards (qdrant:PATH), and
through qdrant-client against tiny HTTP servers (its errors).

The oracle is the same command run locally with --scorer bm25 (BM25 lucene).
Servers that refuse a key or never answer are real sockets, not mocks of the client.
"""
from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")
pytest.importorskip("qdrant_edge", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")

from ranklens.engine.backends.qdrant import QdrantBackend  # noqa: E402
from ranklens.engine.errors import RanklensError  # noqa: E402
from tests.support.cli import assert_error, run_cli, stderr_lines  # noqa: E402
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
    assert_error(run_cli(capsys, *argv), "is not a Qdrant location: give qdrant:PATH")


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
    thread = threading.Thread(target=server.serve_forever, daemon=True)
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
from ranklens.engine.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for

def die(done, total, label):
    if done >= 8:
        os.kill(os.getpid(), signal.SIGKILL)

corpus = load_corpus("studio-alfa")
push(Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})), sys.argv[1], replace=True, progress=die,
     batch=4)
"""


def test_a_push_killed_midway_leaves_the_previous_shard_answering(capsys, pushed: str, tmp_path) -> None:
    import subprocess
    import sys

    before = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json").json
    killed = subprocess.run([sys.executable, "-c", KILLED_PUSH, pushed], capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    folder = tmp_path / "q" / "studio-alfa"
    assert any(p.name.startswith(".partial-") for p in folder.iterdir())  # the half-written shard, never named
    after = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json")
    assert after.status == 0 and after.json["results"] == before["results"]
    # the next push removes what the killed one left
    assert run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--replace").status == 0
    assert not any(p.name.startswith(".partial-") for p in folder.iterdir())


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
