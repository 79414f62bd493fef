"""``--backend endpoint:FILE.toml``: the user's search service, asked over real HTTP (a server in this process).

Oracle: pytrec_eval (trec_eval) over the rankings the server answers with, turned into a run; the metrics
of ``ranklens eval --json`` through the endpoint must equal it. Errors: per question (a 500, bad JSON, no
hits, a timeout) the other questions are measured and the report counts the failures; a refused connection
or a 401 on the first request is one line, exit status 2.
"""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.support.cli import assert_error, run_cli
from tests.support.known_rankings import QUESTIONS, as_run, corpus, per_question, trec_metrics, trec_part
from tests.support.ranking_server import mapping, serving


def eval_json(capsys: pytest.CaptureFixture[str], folder: Path, toml: str, *more: str):  # noqa: ANN201
    (folder / "search.toml").write_text(toml, encoding="utf-8")
    return run_cli(capsys, "eval", str(folder / "c"), "--backend", f"endpoint:{folder / 'search.toml'}",
                   "--no-workspace", "--json", *more)


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_eval_through_an_endpoint_equals_trec_eval_on_its_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    _, qrels, rankings, texts = corpus(tmp_path)
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret-token")
    with serving(rankings, latency=0.005, token="s3cret-token") as server:
        run = eval_json(capsys, tmp_path, mapping(server.url, method, concurrency=4,
                                                  headers='{ Authorization = "Bearer ${SEARCH_TOKEN}" }'))
    assert run.status == 0, run.err
    assert trec_part(run.json["metrics"]) == pytest.approx(trec_metrics(qrels, as_run(rankings, texts)), abs=1e-9)
    assert 1 < server.most_in_flight <= 4  # concurrency requests at a time, never more
    assert "endpoint:search.toml" in run.json["scorer"]
    assert "s3cret-token" not in run.out + run.err


def test_failed_questions_are_reported_and_the_others_measured(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, qrels, rankings, texts = corpus(tmp_path)
    faults = {texts["q03"]: ["500"], texts["q05"]: ["badjson"], texts["q07"]: ["nohits"], texts["q09"]: ["sleep"]}
    with serving(rankings, faults=faults, sleep=2.5) as server:
        run = eval_json(capsys, tmp_path, mapping(server.url, timeout=1, concurrency=8))
    assert run.status == 0, run.err
    failed = {"q03", "q05", "q07", "q09"}
    # every other question measured as trec_eval measures it (a failed one ranks nothing: which chunks that
    # leaves it is the ranking rule's, tested with it)
    theirs = per_question(qrels, as_run(rankings, texts, failed))
    ours = {q["id"]: {"recip_rank": 1 / q["full_rank"] if q["full_rank"] else 0.0, "ndcg_cut_10": q["ndcg@10"],
                      "recall_10": q["recall@10"]} for q in run.json["per_question"] if q["id"] not in failed}
    assert ours == {qid: pytest.approx({name: values[name] for name in ("recip_rank", "ndcg_cut_10", "recall_10")},
                                       abs=1e-9) for qid, values in theirs.items() if qid not in failed}
    warning = [line for line in run.err.splitlines() if "failed at endpoint:search.toml" in line]
    assert len(warning) == 1 and warning[0].startswith("ranklens: warning: 4 question(s) failed"), run.err
    assert "HTTP 500" in warning[0] and "the index is rebuilding" in warning[0]
    assert run.json["failed"] == {"q03": 'HTTP 500: {"error": "the index is rebuilding"}',
                                  "q05": "not JSON: <html>oops</html>",
                                  "q07": "hits 'data.results' found nothing: {\"data\": {}}",
                                  "q09": "timeout after 1 s"}


def test_429_and_503_are_retried_with_backoff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, qrels, rankings, texts = corpus(tmp_path)
    faults = {texts["q02"]: ["503", "429"], texts["q04"]: ["429"]}
    with serving(rankings, faults=faults) as server:
        run = eval_json(capsys, tmp_path, mapping(server.url, backoff=0.01))
    assert run.status == 0, run.err
    assert trec_part(run.json["metrics"]) == pytest.approx(trec_metrics(qrels, as_run(rankings, texts)), abs=1e-9)
    assert sum(1 for text, _ in server.requests if text == texts["q02"]) == 3
    assert "failed" not in run.err


def test_retries_run_out_into_a_failed_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, rankings, texts = corpus(tmp_path)
    with serving(rankings, faults={texts["q02"]: ["503"] * 5}) as server:
        run = eval_json(capsys, tmp_path, mapping(server.url, backoff=0.0, retries=2))
    assert run.status == 0, run.err
    assert sum(1 for text, _ in server.requests if text == texts["q02"]) == 3  # the first try and 2 retries
    assert "1 question(s) failed" in run.err and "HTTP 503" in run.err


def test_a_refused_connection_stops_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nobody listens there
    run = eval_json(capsys, tmp_path, mapping(f"http://127.0.0.1:{port}/search"))
    assert_error(run, "endpoint:search.toml", "the first request failed", "no connection")


def test_a_401_on_the_first_request_stops_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, rankings, _ = corpus(tmp_path)
    with serving(rankings, token="right") as server:
        run = eval_json(capsys, tmp_path, mapping(server.url, headers='{ Authorization = "Bearer wrong" }'))
    assert_error(run, "the first request failed", "HTTP 401", "unauthorized")
    assert len(server.requests) == 1


@pytest.mark.parametrize(("toml", "needles"), [
    ("[request\n", ("search.toml", "not TOML")),
    ('[request]\nurl = "http://x/s"\nmethod = "PUT"\n[response]\nhits="a"\nid="b"\nscore="c"\n',
     ("search.toml", "method 'PUT'")),
    ('[request]\nurl = "http://x/s"\nspeed = 1\n[response]\nhits="a"\nid="b"\nscore="c"\n',
     ("search.toml", "no key 'speed'")),
    ('[request]\nurl = "http://x/s"\n[response]\nhits="a[["\nid="b"\nscore="c"\n',
     ("search.toml", "hits 'a[['", "not JMESPath")),
    ('[request]\nurl = "http://x/s"\nheaders = { X = "${RANKLENS_NOT_SET_ANYWHERE}" }\n'
     '[response]\nhits="a"\nid="b"\nscore="c"\n', ("search.toml", "${RANKLENS_NOT_SET_ANYWHERE} is not set")),
    ('[request]\nurl = "http://x/s"\nmethod = "POST"\nbody = \'{"q": {query}\'\n'
     '[response]\nhits="a"\nid="b"\nscore="c"\n', ("search.toml", "body is not JSON")),
    ('[request]\nurl = "http://x/s"\nconcurrency = 0\n[response]\nhits="a"\nid="b"\nscore="c"\n',
     ("search.toml", "concurrency")),
])
def test_a_bad_mapping_is_one_line_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   toml: str, needles: tuple[str, ...]) -> None:
    corpus(tmp_path)
    assert_error(eval_json(capsys, tmp_path, toml), *needles)


def test_a_missing_mapping_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, *_ = corpus(tmp_path)
    run = run_cli(capsys, "search", str(path), "alpha1", "--backend", f"endpoint:{tmp_path / 'none.toml'}")
    assert_error(run, "none.toml", "cannot read it")


def test_hits_the_corpus_cannot_place_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, rankings, texts = corpus(tmp_path)
    strangers = {text: [("elsewhere-1", 99.0, "words no document holds"), ("elsewhere-2", 98.0, None), *ranking]
                 for text, ranking in rankings.items()}
    with serving(strangers) as server:
        run = eval_json(capsys, tmp_path, mapping(server.url))
    assert run.status == 0, run.err
    assert f"{2 * QUESTIONS} hits of endpoint:search.toml are not in the corpus" in run.err


def test_search_shows_the_endpoints_hits_and_a_failure_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, texts = corpus(tmp_path)
    (tmp_path / "search.toml").write_text(mapping("http://127.0.0.1:1/none"), encoding="utf-8")
    with serving(rankings, faults={texts["q01"]: ["500"]}) as server:
        (tmp_path / "search.toml").write_text(mapping(server.url), encoding="utf-8")
        backend = ["--backend", f"endpoint:{tmp_path / 'search.toml'}"]
        found = run_cli(capsys, "search", str(path), texts["q00"], "-k", "3", "--json", *backend)
        failed = run_cli(capsys, "search", str(path), texts["q01"], *backend)
    assert found.status == 0, found.err
    assert [(hit["id"], hit["score"]) for hit in found.json["results"]] == \
        [(ident, score) for ident, score, _ in rankings[texts["q00"]][:3]]
    assert_error(failed, "endpoint:search.toml", "HTTP 500")


def test_compare_runs_the_paired_tests_against_bm25(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, _ = corpus(tmp_path)
    with serving(rankings) as server:
        (tmp_path / "search.toml").write_text(mapping(server.url), encoding="utf-8")
        run = run_cli(capsys, "compare", str(path), "bm25", f"endpoint:{tmp_path / 'search.toml'}",
                      "--no-workspace", "--permutations", "1000", "--json")
    assert run.status == 0, run.err
    assert json.dumps(run.json).count("endpoint:") >= 1
    assert "p" in json.dumps(run.json)


def test_a_saved_run_keeps_the_url_and_the_mapping_digest_never_a_secret(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, _, rankings, _ = corpus(tmp_path)
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret-token")
    with serving(rankings, token="s3cret-token") as server:
        (tmp_path / "search.toml").write_text(
            mapping(server.url, headers='{ Authorization = "Bearer ${SEARCH_TOKEN}" }'), encoding="utf-8")
        run = run_cli(capsys, "run", str(path), "--backend", f"endpoint:{tmp_path / 'search.toml'}",
                      "--save", "mine", "--workspace", str(tmp_path / "ws"))
    assert run.status == 0, run.err
    # the run searches question by question; reading ahead asks each once, several at a time
    assert sorted(text for text, _ in server.requests) == sorted(rankings) and server.most_in_flight > 1
    sidecars = [p for p in (tmp_path / "ws").rglob("*") if p.is_file() and p.suffix == ".json"]
    written = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "ws").rglob("*") if p.is_file())
    meta = [json.loads(p.read_text(encoding="utf-8")) for p in sidecars]
    assert any(server.url in str(m.get("backend")) and "mapping" in str(m.get("backend")) for m in meta), meta
    assert "s3cret-token" not in written and "SEARCH_TOKEN" not in written


def test_why_gives_the_endpoints_score_beside_the_local_terms(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, texts = corpus(tmp_path)
    ident, score, _ = rankings[texts["q00"]][1]
    with serving(rankings) as server:
        (tmp_path / "search.toml").write_text(mapping(server.url), encoding="utf-8")
        run = run_cli(capsys, "why", str(path), texts["q00"], ident, "--backend",
                      f"endpoint:{tmp_path / 'search.toml'}")
    assert run.status == 0, run.err
    assert f"scores it {score:.6g} by its own means" in run.out + run.err
    assert "beyond float32" not in run.out + run.err


def test_a_timeout_on_the_first_request_stops_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, rankings, texts = corpus(tmp_path)
    with serving(rankings, faults={texts["q00"]: ["sleep"]}, sleep=1.5) as server:
        run = eval_json(capsys, tmp_path, mapping(server.url, timeout=0.3))
    assert_error(run, "the first request failed", "timeout after 0.3 s")
    assert len(server.requests) == 1


def test_prompt_json_asks_the_endpoint_once_and_lists_what_the_prompt_quotes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, rankings, texts = corpus(tmp_path)
    with serving(rankings) as server:
        (tmp_path / "search.toml").write_text(mapping(server.url), encoding="utf-8")
        run = run_cli(capsys, "prompt", str(path), texts["q00"], "-k", "3", "--json",
                      "--backend", f"endpoint:{tmp_path / 'search.toml'}")
        asked = [text for text, _ in server.requests]
    assert run.status == 0, run.err
    assert asked == [texts["q00"]]
    top = [ident for ident, *_ in rankings[texts["q00"]][:3]]
    assert [chunk["id"] for chunk in run.json["chunks"]] == top
    assert [line.split(")")[0] for line in run.json["prompt"].splitlines() if line.startswith("[")] == \
        [f"[{n}] ({ident}" for n, ident in enumerate(top, 1)]  # the corpus' documents have no title: their ids
