"""Messages said once and in words: JSON errors without a doubled word, option errors without a doubled
option name, judgments' report in sentences, p-values never 0e+00, IVF's centroid comparisons said,
and why's rank of a chunk tied with others at its score, or that it is not retrieved."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ranklens.engine.comparing.p_text import format_p
from tests.support.cli import assert_error, run_cli


def test_a_control_character_in_a_jsonl_line_is_said_once(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"_id": "a", "text": "x\x01y"}\n')
    run = run_cli(capsys, "eval", str(bad))
    assert_error(run, "bad.jsonl:1: not valid JSON (Invalid control character at column 24)")
    assert " at at " not in run.err


def test_a_bad_workspace_line_says_its_column(capsys, tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "queries.jsonl").write_bytes(b'{"_id": "w1", "text": "a\tb"}\n')
    run = run_cli(capsys, "eval", "studio-alfa", "--workspace", str(tmp_path / "ws"))
    assert_error(run, "queries.jsonl:1: not valid JSON (Invalid control character at column 25)")


@pytest.mark.parametrize("argv, said", [
    (["search", "studio-alfa", "x", "--stopwords", "nope"],
     "ranklens search: --stopwords: 'nope' is neither none, a language (it, en, es) nor a file"),
    (["search", "studio-alfa", "x", "-k", "0"], "ranklens search: -k must be at least 1 (got 0)"),
    (["ivf", "studio-alfa", "--probes", "0"], "ranklens ivf: --probes values must be at least 1 (got '0')"),
])
def test_an_option_is_named_once(capsys, argv: list[str], said: str) -> None:
    run = run_cli(capsys, *argv)
    assert_error(run)
    assert run.err == said + "\n"


def test_an_option_whose_message_does_not_name_it_keeps_argparses_prefix(capsys) -> None:
    run = run_cli(capsys, "search", "studio-alfa", "x", "--scorer", "bm99")
    assert_error(run, "argument --scorer: invalid choice: 'bm99'")


def test_judgments_reports_in_sentences_not_python_reprs(capsys, tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    judged = run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--judge", "q01", "copie-0", "2",
                     "--rater", "ann")
    assert judged.status == 0 and "judged copie-0 for q01: grade 2 by ann (was unjudged)" in judged.out
    undone = run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--undo", "--rater", "ann")
    assert "undone: copie-0 for q01 is unjudged again for ann" in undone.out
    nothing = run_cli(capsys, "judgments", "studio-alfa", "--workspace", ws, "--undo", "--rater", "ann")
    assert nothing.status == 0 and nothing.err == "ranklens: note: nothing of ann's to undo\n"
    for run in (judged, undone, nothing):
        assert not re.search(r"[{}]|None|'question'", run.out), run.out


def test_p_values_below_the_shown_digits_say_so() -> None:
    assert [format_p(p) for p in (0.0, 3e-9, 0.0001, 0.04321, float("nan"))] == \
        ["< 0.0001", "< 0.0001", "0.0001", "0.0432", "—"]


def test_compare_never_prints_a_p_value_of_zero(capsys, tmp_path: Path) -> None:
    # TF-IDF against a setup whose token pattern finds no term: nDCG 0 everywhere, a t-test p far below 0.0001
    run = run_cli(capsys, "compare", "studio-alfa", "tfidf", "bm25 --token-pattern zzz",
                  "--metrics", "nDCG@10", "--permutations", "1000", "--workspace", str(tmp_path))
    assert run.status == 0, run.err
    row = next(line for line in run.out.splitlines() if line.startswith("nDCG@10"))
    assert "e+" not in row and "e-" not in row and "< 0.0001" in row


def test_ivf_says_its_comparisons_count_the_centroids_within_80_columns(capsys) -> None:
    run = run_cli(capsys, "ivf", "studio-alfa", "--cells", "4")
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert "compared + centroids" in lines[1]
    assert "122.2%" in run.out  # the seed's count: 18 vectors + 4 centroids at full probe
    assert lines[-1] == "compared includes 4 centroids, as the seed counts: share may pass 100%"
    assert max(map(len, lines)) <= 80


def test_why_says_a_chunk_is_tied_with_the_others_at_its_score(capsys, tmp_path: Path) -> None:
    corpus = tmp_path / "ties.jsonl"
    texts = ["cat dog", "cat", "cat", "cat", "bird"]
    corpus.write_text("".join(json.dumps({"_id": f"c{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    run = run_cli(capsys, "why", str(corpus), "cat", "c3", "--workspace", str(tmp_path / "ws"))
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert lines[1].startswith("c3 ranks 3 of 5 with score")
    # c1, c2 and c3 are the same text: tied, in the corpus' order, above the longer c0
    assert lines[2] == "tied with 2 other chunks at that score (ranks 1-3): its rank among them is the corpus' order"
    data = run_cli(capsys, "why", str(corpus), "cat", "c3", "--workspace", str(tmp_path / "ws"), "--json").json
    assert data["chunk"]["tied"] == 2


def test_why_says_a_chunk_that_matches_nothing_is_not_retrieved(capsys, tmp_path: Path) -> None:
    # "giorni" is in 7 of the 18 chunks: copie-2 is not among them, so no rank among the zeros
    run = run_cli(capsys, "why", "studio-alfa", "giorni", "copie-2", "--workspace", str(tmp_path))
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert lines[1].startswith("copie-2 is not retrieved (it matches nothing of the query), score 0.000")
    assert not lines[2].startswith("tied")
    data = run_cli(capsys, "why", "studio-alfa", "giorni", "copie-2", "--workspace", str(tmp_path), "--json").json
    assert data["chunk"]["rank"] is None and data["chunk"]["tied"] == 0
