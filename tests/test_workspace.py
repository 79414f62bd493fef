"""The workspace (engine/workspace/store): where it lives, the judgment log and undo, locking, runs."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.trec import Run, read_qrels
from ranklens.engine.workspace.store import Workspace, corpus_key
from tests.support.files import beir_folder, listing

ROOT = Path(__file__).resolve().parents[1]


def test_a_bundled_corpus_lives_under_the_xdg_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    workspace = Workspace.for_corpus(load_corpus("studio-alfa"))
    assert workspace.root == tmp_path / "data" / "ranklens" / "workspaces" / "studio-alfa"
    assert not workspace.root.exists()  # nothing until something is written


def test_a_folder_is_keyed_by_name_and_place(tmp_path: Path) -> None:
    one = load_corpus(beir_folder(tmp_path / "a" / "docs", [{"_id": "c", "text": "x"}]))
    two = load_corpus(beir_folder(tmp_path / "b" / "docs", [{"_id": "c", "text": "x"}]))
    assert corpus_key(one).startswith("docs-") and corpus_key(one) != corpus_key(two)
    assert Workspace.for_corpus(one, tmp_path / "mine").root == tmp_path / "mine"


def test_judgments_replay_into_qrels_and_undo_appends_a_reversal(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.judge("q1", "c1", 2)
    workspace.judge("q1", "c2", 0)
    workspace.judge("q1", "c1", 3)
    assert workspace.judgments() == {"q1": {"c1": 3, "c2": 0}}
    assert read_qrels(workspace.qrels_path).judgments == {"q1": {"c1": 3, "c2": 0}}
    undone = workspace.undo()
    assert (undone.question, undone.id, undone.grade, undone.undoes) == ("q1", "c1", 2, 3)
    assert workspace.judgments() == {"q1": {"c1": 2, "c2": 0}}
    workspace.undo()
    workspace.undo()
    assert workspace.judgments() == {}
    assert workspace.undo() is None
    assert read_qrels(workspace.qrels_path).judgments == {}
    ops = [json.loads(line)["op"] for line in workspace.log_path.read_text().splitlines()]
    assert ops == ["judge", "judge", "judge", "undo", "undo", "undo"]  # nothing rewritten in place


def test_a_torn_last_line_is_ignored_then_cut(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.judge("q", "a", 1)
    with open(workspace.log_path, "a") as handle:
        handle.write('{"op": "judge", "quest')  # a writer died mid-line
    assert workspace.judgments() == {"q": {"a": 1}}
    workspace.judge("q", "b", 2)
    assert workspace.judgments() == {"q": {"a": 1, "b": 2}}
    assert [e.line for e in workspace.log()] == [1, 2]


def test_a_corrupt_log_line_names_file_and_line(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.root.mkdir()
    workspace.log_path.write_text('{"op": "judge", "question": "q", "id": "a", "grade": 1}\nnot json\n')
    with pytest.raises(RanklensError, match=r"judgments.jsonl:2: not valid JSON"):
        workspace.judgments()


_WRITER = """
import sys
from ranklens.engine.workspace.store import Workspace
workspace = Workspace(sys.argv[1])
for i in range(int(sys.argv[3])):
    workspace.judge(f"q{i % 7}", f"{sys.argv[2]}-{i}", i % 4)
"""


def test_two_processes_judging_at_once_keep_every_line(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(root), name, "150"], cwd=ROOT)
               for name in ("left", "right")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    workspace = Workspace(root)
    log = workspace.log()
    assert len(log) == 300 and [e.line for e in log] == list(range(1, 301))
    judged = workspace.judgments()
    assert sum(len(g) for g in judged.values()) == 300
    assert read_qrels(workspace.qrels_path).judgments == judged


def test_questions_are_added_with_fresh_ids(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    stored = workspace.add_questions([Question("", "first"), Question("", "second", answer="span")], taken=["w1"])
    assert [q.id for q in stored] == ["w2", "w3"]
    workspace.add_questions([Question("w2", "first, reworded")])
    assert [(q.id, q.text, q.answer) for q in workspace.questions()] == [
        ("w2", "first, reworded", None), ("w3", "second", "span")]


def test_the_workspace_applies_over_the_corpus(tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "c", [{"_id": f"c{i}", "text": f"text {i}"} for i in range(4)],
                         [{"_id": "q1", "text": "one"}], "q1\tc0\t1\n")
    corpus = load_corpus(folder)
    before = listing(folder)
    workspace = Workspace(tmp_path / "ws")
    workspace.add_questions([Question("mine", "my own question")])
    workspace.judge("q1", "c0", 0)  # overrides the corpus' qrels
    workspace.judge("q1", "c2", 3)
    workspace.judge("mine", "c1", 1)
    workspace.judge("mine", "nowhere", 1)
    workspace.judge("ghost", "c1", 1)
    applied, warnings = workspace.apply(corpus)
    assert {q.id: dict(q.relevant) for q in applied.questions} == {"q1": {"c2": 3}, "mine": {"c1": 1, "nowhere": 1}}
    assert len(warnings) == 2
    assert "1 judgment(s) of questions" in warnings[0] and "1 judgment(s) name ids" in warnings[1]
    assert listing(folder) == before  # the corpus folder is only read


def test_runs_are_saved_with_their_sidecar(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    run = Run({"q": [("a", 2.0), ("b", 1.0)]})
    workspace.save_run("bm25-k1.2", run, {"setup": {"scorer": "bm25"}, "k": 2})
    assert workspace.run_names() == ["bm25-k1.2"]
    saved = workspace.load_run("bm25-k1.2")
    digest = hashlib.sha256(saved.path.read_bytes()).hexdigest()  # the sidecar names the run it describes
    assert saved.run.rankings == run.rankings and saved.meta == {"setup": {"scorer": "bm25"}, "k": 2,
                                                                 "run_sha256": digest}
    assert saved.run.tag == "bm25-k1.2"
    with pytest.raises(RanklensError, match="run name '../x'"):
        workspace.save_run("../x", run, {})
    with pytest.raises(RanklensError, match="no saved run 'nope'"):
        workspace.load_run("nope")


def test_a_query_becomes_a_question_once(tmp_path: Path) -> None:
    corpus = load_corpus("studio-alfa")
    workspace = Workspace(tmp_path / "ws")
    own, added = workspace.question_for("  come cambio la password ", corpus)
    assert (own.id, added) == ("q03", False)  # the corpus' own, spaces aside
    new, added = workspace.question_for("rimborso taxi", corpus)
    assert (new.id, new.text, added) == ("w1", "rimborso taxi", True)
    assert workspace.question_for("rimborso taxi", corpus) == (new, False)
    assert [q.id for q in workspace.questions()] == ["w1"]
    with pytest.raises(RanklensError, match="empty query"):
        workspace.question_for("   ", corpus)


def test_a_workbench_with_the_workspace_applied_shares_its_indexes(tmp_path: Path) -> None:
    from ranklens.engine.retriever import Workbench, setup_for

    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    setup = setup_for(corpus)
    before = workbench.retriever(setup)
    workspace = Workspace(tmp_path / "ws")
    workspace.judge("u1", "accessi-1", 3)
    applied, _ = workspace.apply(corpus)
    judged = workbench.with_questions(applied)
    after = judged.retriever(setup)
    assert after.index is before.index and after.scorer is before.scorer and after.chunks is before.chunks
    assert len(after.corpus.answerable) == len(before.corpus.answerable) + 1
    assert workbench.corpus is corpus  # the first workbench keeps its questions
    with pytest.raises(ValueError, match="share this workbench's documents"):
        workbench.with_questions(load_corpus("battery"))


CRANFIELD_1 = "what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft ."


@pytest.mark.parametrize("typed", [CRANFIELD_1, CRANFIELD_1.removesuffix(" ."), CRANFIELD_1.removesuffix("."),
                                   "  What similarity laws  must be obeyed when constructing aeroelastic models of "
                                   "heated high speed aircraft?  "])
def test_a_known_question_is_matched_case_spaces_and_end_punctuation_aside(tmp_path: Path, typed: str) -> None:
    from ranklens.engine.workspace.store import known_question

    corpus = load_corpus(beir_folder(tmp_path / "cran", [{"_id": "184", "text": "similarity laws for heated models"}],
                                     [{"_id": "1", "text": CRANFIELD_1}], "1\t184\t2\n"))
    workspace = Workspace(tmp_path / "ws")
    found = known_question(typed, corpus.questions)
    assert found is not None and found.id == "1"
    assert workspace.question_for(typed, corpus) == (found, False)  # its judgments stay: nothing added
    assert workspace.questions() == []
    assert known_question("what similarity laws", corpus.questions) is None
    assert known_question(" ?! ", corpus.questions) is None


def test_a_log_read_once_is_read_again_after_any_write(tmp_path: Path) -> None:
    reader, writer = Workspace(tmp_path / "ws"), Workspace(tmp_path / "ws")
    writer.judge("q", "a", 1)
    assert [e.grade for e in reader.log()] == [1]
    writer.judge("q", "a", 2)  # appended
    assert [e.grade for e in reader.log()] == [1, 2]
    writer.judge_many([("q", "b", 0), ("q", "c", 3)])  # the log renamed over: another file, maybe as long
    assert reader.judgments() == {"q": {"a": 2, "b": 0, "c": 3}}
    writer.log_path.unlink()
    assert reader.log() == []
