"""``ranklens pool`` and engine/judging/pool.py against a direct computation from the run and qrels files.

The corpus, two TREC runs and a qrels file (grade 0 rows among them) are written here; the oracle
reads those files with plain string splitting: the union of each run's top N by score, less the pairs
the qrels or the workspace judge (grade 0 is a judgment), in the documented order.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranklens.engine.judging.pool import Pool, load_pool, queue_state
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import assert_error, run_cli, run_on
from tests.support.files import beir_folder

WORDS = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "grape", "melon", "peach"]
DOCS = [{"_id": f"d{i}", "title": "", "text": f"{w} fruit number {i}"} for i, w in enumerate(WORDS)]
QUERIES = [{"_id": "q1", "text": "apple or pear"}, {"_id": "q2", "text": "plum and fig"},
           {"_id": "q3", "text": "melon"}]
QRELS = "q1\td0\t1\nq1\td3\t0\nq2\td2\t2\nq3\td9\t0\n"
# Two runs: scores fall with the list order; some chunks in both, some in one, some below depth 3.
RUN_A = {"q1": ["d0", "d1", "d5", "d3", "d7"], "q2": ["d4", "d2", "d6"], "q3": ["d8", "d9"]}
RUN_B = {"q1": ["d5", "d6", "d1", "d0"], "q2": ["d2", "d3", "d4", "d1"]}
DEPTH = 3


def trec(path: Path, rankings: dict[str, list[str]], tag: str) -> Path:
    lines = [f"{q} Q0 {d} {i} {10 - i:.1f} {tag}" for q, ids in rankings.items() for i, d in enumerate(ids, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def direct_pool(runs: dict[Path, str], qrels_file: Path, questions: list[str], depth: int,
                judged_more: set[tuple[str, str]] = frozenset()) -> list[tuple[str, str, dict[str, int]]]:
    """The pool read from the files themselves: (question, chunk, {run label: rank}) in the documented order."""
    judged = {tuple(line.split("\t")[:2]) for line in qrels_file.read_text().splitlines()[1:]} | set(judged_more)
    found: dict[tuple[str, str], dict[str, int]] = {}
    for path, label in runs.items():
        by_question: dict[str, list[tuple[float, str]]] = {}
        for line in path.read_text().splitlines():
            qid, _, doc, _, score, _ = line.split()
            by_question.setdefault(qid, []).append((-float(score), doc))
        for qid, rows in by_question.items():
            for rank, (_, doc) in enumerate(sorted(rows)[:depth], 1):
                found.setdefault((qid, doc), {})[label] = rank
    pairs = [(q, d, ranks) for (q, d), ranks in found.items() if (q, d) not in judged]
    return sorted(pairs, key=lambda p: (questions.index(p[0]), min(p[2].values()), -len(p[2]), p[1]))


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    corpus = beir_folder(tmp_path / "fruit", DOCS, QUERIES, QRELS)
    return {"corpus": corpus, "a": trec(tmp_path / "a.run", RUN_A, "a"), "b": trec(tmp_path / "b.run", RUN_B, "b"),
            "ws": tmp_path / "ws"}


def pool_json(capsys, files, *more: str) -> dict:  # noqa: ANN001
    run = run_on(capsys, files["corpus"], "pool", str(files["corpus"]), str(files["a"]), str(files["b"]),
                 "--depth", str(DEPTH), "--workspace", str(files["ws"]), "--json", *more)
    assert run.status == 0, run.err
    return run.json


def test_the_pool_is_the_runs_top_n_less_what_is_judged(capsys, files) -> None:
    data = pool_json(capsys, files)
    assert {"pairs", "depth", "runs", "size", "judged", "judgments"} <= data.keys()
    labels = {files["a"]: str(files["a"]), files["b"]: str(files["b"])}
    expected = direct_pool(labels, files["corpus"] / "qrels" / "test.tsv", ["q1", "q2", "q3"], DEPTH)
    assert [(p["question"], p["id"], p["runs"]) for p in data["pairs"]] == expected
    assert data["depth"] == DEPTH and data["runs"] == [str(files["a"]), str(files["b"])]
    # the union: q1 d0 d1 d5 d6, q2 d4 d2 d6 d3, q3 d8 d9 = 10 pairs; judged: q1 d0, q2 d2, q3 d9 (grade 0)
    assert (data["size"], data["judged"], data["unjudged"]) == (10, 3, 7)
    a, b = labels.values()
    assert data["contributed"] == {a: sum(a in e[2] for e in expected), b: sum(b in e[2] for e in expected)}
    assert data["only"] == {a: sum(list(e[2]) == [a] for e in expected), b: sum(list(e[2]) == [b] for e in expected)}
    assert data["pairs"][0]["text"] == "apple or pear"


def test_a_workspace_judgment_grade_0_included_takes_a_pair_out(capsys, files) -> None:
    for qid, ident, grade in (("q1", "d5", "0"), ("q2", "d4", "2")):
        judged = run_cli(capsys, "judgments", str(files["corpus"]), "--judge", qid, ident, grade,
                         "--workspace", str(files["ws"]))
        assert judged.status == 0, judged.err
    data = pool_json(capsys, files)
    labels = {files["a"]: str(files["a"]), files["b"]: str(files["b"])}
    expected = direct_pool(labels, files["corpus"] / "qrels" / "test.tsv", ["q1", "q2", "q3"], DEPTH,
                           {("q1", "d5"), ("q2", "d4")})
    assert [(p["question"], p["id"]) for p in data["pairs"]] == [(e[0], e[1]) for e in expected]
    assert (data["size"], data["judged"]) == (10, 5)


def test_the_table_names_the_runs_and_the_counts(capsys, files) -> None:
    run = run_on(capsys, files["corpus"], "pool", str(files["corpus"]), str(files["a"]), str(files["b"]),
                 "--depth", str(DEPTH), "--workspace", str(files["ws"]))
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert lines[1].startswith("R1   " + str(files["a"])) and lines[2].startswith("R2   " + str(files["b"]))
    assert "10 pairs in the pool · 3 judged already · 7 to judge" in run.out
    assert lines[4].split() == ["question", "chunk", "R1", "R2", "text"]
    # q1's unjudged chunks by best rank: d5 (A 3, B 1), d1 (A 2, B 3), d6 (B 2 alone)
    assert [line.split()[:4] for line in lines[5:7]] == [["q1", "d5", "3", "1"], ["q1", "d1", "2", "3"]]
    assert lines[7].split()[:3] == ["q1", "d6", "2"]


def test_save_keeps_the_pool_for_the_queue_and_never_replaces_it_unasked(capsys, files) -> None:
    data = pool_json(capsys, files, "--save", "fruit-pool")
    workspace = Workspace(files["ws"])
    pool = load_pool(workspace, "fruit-pool")
    assert pool.to_dict() == Pool.from_dict(data, "json").to_dict()
    assert data["saved"] == str(files["ws"] / "pools" / "fruit-pool.json")
    state = queue_state(pool, workspace.judgments())
    assert state.progress() == "0 of 7 judged"
    workspace.judge(pool.pairs[0].question, pool.pairs[0].id, 1)
    state = queue_state(pool, workspace.judgments())
    assert (state.progress(), state.left) == ("1 of 7 judged", pool.pairs[1:])
    before = (files["ws"] / "pools" / "fruit-pool.json").read_bytes()
    again = run_cli(capsys, "pool", str(files["corpus"]), str(files["a"]), str(files["b"]), "--workspace",
                    str(files["ws"]), "--save", "fruit-pool")
    assert_error(again, "fruit-pool", "--replace")
    assert (files["ws"] / "pools" / "fruit-pool.json").read_bytes() == before
    replaced = run_cli(capsys, "pool", str(files["corpus"]), str(files["a"]), str(files["b"]), "--workspace",
                       str(files["ws"]), "--save", "fruit-pool", "--replace", "--depth", "1", "--json")
    assert replaced.status == 0 and load_pool(workspace, "fruit-pool").depth == 1


def test_runs_of_two_chunkings_are_refused_naming_both(capsys, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    run = run_cli(capsys, "pool", "studio-alfa", "bm25", "tfidf --size 20 --overlap 5", "--workspace", str(ws),
                  "--save", "p")
    assert_error(run, "'bm25'", "'tfidf --size 20 --overlap 5'", "chunk the corpus differently")
    assert not (ws / "pools").exists()


def test_a_run_of_another_corpus_is_refused(capsys, files, tmp_path: Path) -> None:
    other = tmp_path / "other.run"
    made = run_cli(capsys, "run", "studio-alfa", "--output", str(other), "--workspace", str(tmp_path / "ws2"))
    assert made.status == 0, made.err
    run = run_on(capsys, files["corpus"], "pool", str(files["corpus"]), str(files["a"]), str(other),
                 "--workspace", str(files["ws"]), "--save", "p")
    assert_error(run, str(other), "studio-alfa", "different corpora")
    assert not (files["ws"] / "pools").exists()


@pytest.mark.parametrize("argv, needle", [
    (["only-one"], "two runs or more"),
    (["-", "-"], "standard input"),
    (["a", "b", "--depth", "0"], "--depth"),
    (["a", "b", "--replace"], "--save"),
    (["a", "b", "--save", "../x"], "pool name"),
])
def test_bad_arguments_are_one_line(capsys, files, argv: list[str], needle: str) -> None:
    run = run_on(capsys, files["corpus"], "pool", str(files["corpus"]), *argv, "--workspace", str(files["ws"]))
    assert_error(run, needle)
    assert not files["ws"].exists() or not (files["ws"] / "pools").exists()


def test_a_saved_pool_that_is_not_one_is_said(tmp_path: Path) -> None:
    from ranklens.engine.errors import RanklensError

    (tmp_path / "pools").mkdir()
    (tmp_path / "pools" / "bad.json").write_text(json.dumps({"depth": 3}), encoding="utf-8")
    with pytest.raises(RanklensError, match="bad.json: not a pool"):
        load_pool(Workspace(tmp_path), "bad")
