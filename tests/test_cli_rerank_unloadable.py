"""``search --rerank`` with a reranker that cannot load prints the first stage's results with a warning (exit
status 2: the option asked for what could not run), and names only what exists: e5-small is a bi-encoder, and
a name without an owner is no repository to download (issue 32, section 5)."""
from __future__ import annotations

import pytest

from tests.support.cli import assert_error, run_cli, stderr_lines

QUERY = "rimborso delle spese di trasferta"


def test_search_keeps_the_first_stage_and_warns(capsys: pytest.CaptureFixture[str]) -> None:
    plain = run_cli(capsys, "search", "studio-alfa", QUERY, "--json")
    run = run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", "e5-small", "--json")
    assert run.status == 2
    assert [r["id"] for r in run.json["results"]] == [r["id"] for r in plain.json["results"]]
    assert [r["score"] for r in run.json["results"]] == [r["score"] for r in plain.json["results"]]
    warning, = stderr_lines(run, "warning")
    assert run.json["rerank_error"] in warning and "Traceback" not in run.err
    assert "'e5-small' is a bi-encoder" in warning and "--scorer dense --model e5-small" in warning
    assert "hf download e5-small" not in warning and "hf download cross-encoder/mmarco" in warning

    human = run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", "wordllama")
    assert human.status == 2 and "'wordllama' is a bi-encoder" in human.err
    assert [line.split()[2] for line in human.out.splitlines()[1:]] == [r["id"] for r in plain.json["results"]]


def test_eval_with_a_bi_encoder_as_reranker_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--rerank", "intfloat/multilingual-e5-small")
    assert_error(run, "is a bi-encoder (multilingual-e5-small), not a cross-encoder")


def test_a_name_without_an_owner_is_no_download_command(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sentence_transformers", reason="the neural extra is not installed")
    run = run_cli(capsys, "eval", "studio-alfa", "--rerank", "no-such-reranker")
    assert_error(run, "reranker 'no-such-reranker' is not a folder and not in the local model cache",
                 "owner/model")
    assert "hf download" not in run.err
