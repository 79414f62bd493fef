"""``search --rerank`` with a reranker that cannot load is bad input, as for ``eval``: one line naming the model
and why, exit status 2 and nothing on standard output (the first stage's results, printed before, read as the
reranked ranking a script asked for; DESIGN.md's contract: status 0 is success, 2 one line for bad input). It
names only what exists: e5-small is a bi-encoder, and a name without an owner is no repository to download
(issue 32, section 5)."""
from __future__ import annotations

import pytest

from tests.support.cli import assert_error, run_cli

QUERY = "rimborso delle spese di trasferta"


@pytest.mark.parametrize("json", [(), ("--json",)])
def test_search_refuses_in_one_line_and_prints_no_results(capsys: pytest.CaptureFixture[str],
                                                          json: tuple[str, ...]) -> None:
    run = run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", "e5-small", *json)
    assert_error(run, "reranker 'e5-small' is a bi-encoder", "--scorer dense --model e5-small",
                 "hf download cross-encoder/mmarco")
    assert "hf download e5-small" not in run.err
    assert_error(run_cli(capsys, "search", "studio-alfa", QUERY, "--rerank", "wordllama", *json),
                 "'wordllama' is a bi-encoder")
    assert run_cli(capsys, "search", "studio-alfa", QUERY, *json).status == 0  # without --rerank: results


def test_eval_with_a_bi_encoder_as_reranker_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--rerank", "intfloat/multilingual-e5-small")
    assert_error(run, "is a bi-encoder (multilingual-e5-small), not a cross-encoder")


def test_a_name_without_an_owner_is_no_download_command(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sentence_transformers", reason="the neural extra is not installed")
    run = run_cli(capsys, "eval", "studio-alfa", "--rerank", "no-such-reranker")
    assert_error(run, "reranker 'no-such-reranker' is not a folder and not in the local model cache",
                 "owner/model")
    assert "hf download" not in run.err
