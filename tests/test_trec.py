"""TREC run and qrels files: round trips, the edge cases trec_eval and ranx meet, and bad lines."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.trec import Qrels, Run, count_unknown, decode_id, encode_id, read_qrels, read_run, \
    write_qrels, write_run


def test_a_run_round_trips_scores_and_order(tmp_path: Path) -> None:
    run = Run({"q1": [("d3", 2.5), ("d1", 1.0000000000000002), ("d2", -0.25)], "q2": [("d9", 7.0)]}, tag="bm25")
    write_run(tmp_path / "a.run", run)
    lines = (tmp_path / "a.run").read_text().splitlines()
    assert lines[0] == "q1 Q0 d3 1 2.5 bm25"
    assert [line.split()[3] for line in lines] == ["1", "2", "3", "1"]
    back = read_run(tmp_path / "a.run")
    assert back.rankings == run.rankings  # floats written with repr: exact
    assert back.tag == "bm25" and back.warnings == []


def test_ties_keep_the_rank_column_and_are_counted(tmp_path: Path) -> None:
    # written as ranklens ranks them (stable: corpus order among equal scores), lines shuffled
    (tmp_path / "t.run").write_text("q 0 b 2 1.0 x\nq Q0 c 3 1.0 x\nq Q0 a 1 1.0 x\nq Q0 z 4 0.5 x\n")
    run = read_run(tmp_path / "t.run")
    assert run.ids() == {"q": ["a", "b", "c", "z"]}
    assert len(run.warnings) == 1 and "2 line(s) tie" in run.warnings[0]


def test_score_wins_over_the_rank_column(tmp_path: Path) -> None:
    # trec_eval and ranx sort by score, whatever the rank column says
    (tmp_path / "r.run").write_text("q Q0 low 1 0.1 x\nq Q0 high 2 0.9 x\n")
    assert read_run(tmp_path / "r.run").ids() == {"q": ["high", "low"]}


def test_repeated_docids_keep_the_best_line(tmp_path: Path) -> None:
    (tmp_path / "r.run").write_text("q Q0 a 1 3 x\nq Q0 b 2 2 x\nq Q0 a 3 1 x\n")
    run = read_run(tmp_path / "r.run")
    assert run.rankings == {"q": [("a", 3.0), ("b", 2.0)]}
    assert any("1 repeated docid" in w for w in run.warnings)


@pytest.mark.parametrize(("line", "needle"), [
    ("q Q0 d 1 0.5", "expected 6 fields"),
    ("q Q0 d one 0.5 x", "rank 'one' is not a whole number"),
    ("q Q0 d 1 high x", "score 'high' is not a number"),
    ("q Q0 d 1 nan x", "score 'nan' is not a finite number"),
])
def test_a_malformed_run_line_names_file_and_line(tmp_path: Path, line: str, needle: str) -> None:
    (tmp_path / "bad.run").write_text(f"q Q0 ok 1 1.0 x\n\n{line}\n")
    with pytest.raises(RanklensError) as error:
        read_run(tmp_path / "bad.run")
    assert f"bad.run:3: {needle}" in str(error.value)


def test_qrels_round_trip_and_keep_the_highest_repeated_grade(tmp_path: Path) -> None:
    write_qrels(tmp_path / "qrels", Qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d 3": 1}}))
    assert (tmp_path / "qrels").read_text() == "q1 0 d1 2\nq1 0 d2 0\nq2 0 d%203 1\n"
    assert read_qrels(tmp_path / "qrels").judgments == {"q1": {"d1": 2, "d2": 0}, "q2": {"d 3": 1}}
    (tmp_path / "dup").write_text("q 0 d 2\nq 0 d 0\nq 0 e -1\n")
    qrels = read_qrels(tmp_path / "dup")
    assert qrels.judgments == {"q": {"d": 2, "e": -1}}
    assert "1 repeated" in qrels.warnings[0]


def test_beir_qrels_are_read_too(tmp_path: Path) -> None:
    (tmp_path / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t184\t3\n1\t29\t2\n")
    assert read_qrels(tmp_path / "test.tsv").judgments == {"1": {"184": 3, "29": 2}}


def test_a_malformed_qrels_line_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q 0 d 1\nq 0 d x\n")
    with pytest.raises(RanklensError, match=r"q:2: grade 'x' is not a whole number"):
        read_qrels(tmp_path / "q")
    (tmp_path / "q").write_text("q 0 d 1 extra more\n")
    with pytest.raises(RanklensError, match=r"q:1: expected 4 fields"):
        read_qrels(tmp_path / "q")


def test_unknown_questions_and_ids_are_counted() -> None:
    run = Run({"q1": [("a", 1.0), ("zz", 0.5)], "q9": [("a", 1.0)]})
    warnings = count_unknown(run, ["q1", "q2"], {"a", "b"})
    assert warnings == ["1 question(s) of the run are not the corpus' (ignored)",
                        "1 ranked id(s) are not chunks of the corpus (never relevant)"]


@given(st.text(min_size=1, max_size=12))
def test_any_id_survives_a_trec_field(ident: str) -> None:
    field = encode_id(ident)
    assert field.split() == [field]
    assert decode_id(field) == ident


# Ids that hold "%" next to what reads as an escape: the Hypothesis round trip above practically never
# draws "%20" or "%25". Each is written with "%" as "%25" and white space escaped (the module docstring).
PERCENT_IDS = {
    "report%20final.txt#0": "report%2520final.txt#0",
    "100%25": "100%2525",
    "50%": "50%25",
    "%": "%25",
    "%%": "%25%25",
    "%u0041": "%25u0041",
    "a%0Ab": "a%250Ab",
    "my report%20(1).txt#2": "my%20report%2520(1).txt#2",
    "tab\t%09": "tab%09%2509",
}


@pytest.mark.parametrize(("ident", "field"), PERCENT_IDS.items())
def test_an_id_holding_percent_escapes_is_written_as_documented(ident: str, field: str) -> None:
    assert encode_id(ident) == field
    assert decode_id(field) == ident


def test_ids_holding_percent_escapes_survive_run_and_qrels_files(tmp_path: Path) -> None:
    ids = list(PERCENT_IDS)
    run = Run({qid: [(doc, float(len(ids) - i)) for i, doc in enumerate(ids)] for qid in ids[:3]})
    write_run(tmp_path / "p.run", run)
    assert read_run(tmp_path / "p.run").rankings == run.rankings
    judgments = {qid: {doc: 1 for doc in ids} for qid in ids[:3]}
    write_qrels(tmp_path / "p.qrels", judgments)
    assert read_qrels(tmp_path / "p.qrels").judgments == judgments


@pytest.mark.parametrize("tag", ["a%20b", "my run"])
def test_a_tag_survives_a_run_file(tmp_path: Path, tag: str) -> None:
    write_run(tmp_path / "t.run", Run({"q": [("d", 1.0)]}, tag=tag))
    assert read_run(tmp_path / "t.run").tag == tag


def test_writing_is_atomic_and_leaves_no_temporary(tmp_path: Path) -> None:
    write_run(tmp_path / "a.run", {"q": [("d", 1.0)]})
    write_run(tmp_path / "a.run", {"q": [("e", 2.0)]})
    assert [p.name for p in tmp_path.iterdir()] == ["a.run"]
    assert read_run(tmp_path / "a.run").ids() == {"q": ["e"]}
