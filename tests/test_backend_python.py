"""``--backend python:MODULE:FUNCTION``: the user's retriever as a Python function.

The function under test wraps a LangChain-style vector store (``similarity_search_with_score`` returning
``(Document(page_content, metadata), score)`` pairs) that answers from rankings the test knows. Oracle:
pytrec_eval on those rankings equals ``eval --json``. Hits naming no id the corpus knows are placed by
their text, and then the answer span decides their relevance (a hand-made case); a bad module, function
or answer is one line, exit 2.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from tests.support.cli import assert_error, run_cli
from tests.support.files import text_folder
from tests.support.known_rankings import as_run, corpus, trec_metrics, trec_part
from tests.support.python_retriever import module

@pytest.mark.parametrize("function", ["search", "pairs", "negative"])
def test_eval_through_a_function_equals_trec_eval_on_its_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], function: str) -> None:
    path, qrels, rankings, texts = corpus(tmp_path)
    retriever = module(tmp_path, rankings)
    run = run_cli(capsys, "eval", str(path), "--backend", f"python:{retriever}:{function}", "--no-workspace",
                  "--json")
    assert run.status == 0, run.err
    assert trec_part(run.json["metrics"]) == pytest.approx(trec_metrics(qrels, as_run(rankings, texts)), abs=1e-9)


def test_a_question_the_function_fails_on_is_reported_and_the_others_measured(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, qrels, rankings, texts = corpus(tmp_path)
    retriever = module(tmp_path, rankings)
    run = run_cli(capsys, "eval", str(path), "--backend", f"python:{retriever}:flaky", "--no-workspace", "--json")
    assert run.status == 0, run.err
    theirs = trec_metrics({qid: judged for qid, judged in qrels.items() if qid != "q04"},
                          as_run(rankings, texts, {"q04"}))
    ours = [q for q in run.json["per_question"] if q["id"] != "q04"]
    assert statistics.mean(q["ndcg@10"] for q in ours) == pytest.approx(theirs["ndcg@10"], abs=1e-9)
    assert "1 question(s) failed at python:my_retriever.py:flaky" in run.err
    assert "TimeoutError: the store took too long" in run.err


def test_a_module_on_the_import_path_by_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path, qrels, rankings, texts = corpus(tmp_path)
    module(tmp_path, rankings)
    monkeypatch.chdir(tmp_path)  # `ranklens` as a console script: the current folder is looked in too
    monkeypatch.delitem(__import__("sys").modules, "my_retriever", raising=False)
    run = run_cli(capsys, "eval", str(path), "--backend", "python:my_retriever:search", "--no-workspace", "--json")
    assert run.status == 0, run.err
    assert trec_part(run.json["metrics"]) == pytest.approx(trec_metrics(qrels, as_run(rankings, texts)), abs=1e-9)


# Raw documents chunked by ranklens (12 words, no overlap); the user's retriever knows other passages: its
# hits carry ids ranklens never made, and their text, white space changed.
DOCUMENT = ("The first part talks about ferries and harbours in the north. "
            "Refunds are paid within thirty days of the request by bank transfer. "
            "The last part lists the opening hours of every office in the region.")
QUESTIONS = [{"_id": "q1", "text": "how fast are refunds paid", "answer": "within thirty days of the request"}]


def test_hits_placed_by_their_text_are_judged_by_the_answer_span(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = text_folder(tmp_path / "docs", {"guide.txt": DOCUMENT})
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    passages = [("lc-7", 0.9, "The last part lists the opening\n hours"),  # third chunk: not relevant
                ("lc-3", 0.8, "Refunds are   paid within thirty days of\tthe request"),  # the answer's chunk
                ("lc-9", 0.7, "text that is nowhere in the corpus")]
    retriever = module(tmp_path, {QUESTIONS[0]["text"]: passages})
    run = run_cli(capsys, "eval", str(folder), "--size", "12", "--overlap", "0", "--backend",
                  f"python:{retriever}:search", "--no-workspace", "--json")
    assert run.status == 0, run.err
    # by hand: the placed passages rank the third chunk 1st and the answer's chunk 2nd
    assert run.json["per_question"][0]["full_rank"] == 2
    assert run.json["metrics"]["mrr"] == pytest.approx(0.5)
    assert "1 hits of python:" in run.err and "are not in the corpus" in run.err


@pytest.mark.parametrize(("target", "needles"), [
    ("python:{path}:nowhere", ("has no 'nowhere'",)),
    ("python:{path}:NOT_CALLABLE", ("'NOT_CALLABLE' is int, not a function",)),
    ("python:{path}:not_a_list", ("returned dict, not a list of hits",)),
    ("python:{path}:bad_score", ("its score is str 'high', not a finite number",)),
    ("python:{path}:raises", ("the first request failed", "ConnectionError", "the vector store is down")),
    ("python:no_such_module_anywhere:search", ("no module named 'no_such_module_anywhere'",)),
    ("python:{folder}/missing.py:search", ("no file",)),
    ("python:search", ("give python:MODULE:FUNCTION",)),
])
def test_a_bad_function_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str,
                                              needles: tuple[str, ...]) -> None:
    path, _, rankings, _ = corpus(tmp_path)
    retriever = module(tmp_path, rankings)
    run = run_cli(capsys, "eval", str(path), "--no-workspace", "--backend",
                  target.format(path=retriever, folder=tmp_path))
    assert_error(run, *needles)


def test_a_module_that_fails_to_import_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, *_ = corpus(tmp_path)
    broken = tmp_path / "broken.py"
    broken.write_text("import json\nraise RuntimeError('no index configured')\n", encoding="utf-8")
    run = run_cli(capsys, "search", str(path), "alpha1", "--backend", f"python:{broken}:search")
    assert_error(run, "importing", "RuntimeError", "no index configured")


def test_the_function_is_never_called_from_two_threads_at_once() -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from ranklens.engine.backends.python_function import PythonFunction

    inside, most, lock = [0], [0], threading.Lock()

    def search(query: str, k: int) -> list[tuple[str, float]]:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)
        with lock:
            inside[0] -= 1
        return [("d01", 1.0)]

    function = PythonFunction("python:test:search", search, "test")
    with ThreadPoolExecutor(4) as pool:  # as the TUI's workers search at the same time
        answers = list(pool.map(lambda text: function.ask([text], 5), [f"q{i}" for i in range(8)]))
    assert most[0] == 1 and all(answer[0][0].id == "d01" for answer in answers)


def test_the_local_scorer_only_explains_and_is_bm25_or_tfidf(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path, qrels, rankings, texts = corpus(tmp_path)
    retriever = module(tmp_path, rankings)
    backend = ["--backend", f"python:{retriever}:search", "--no-workspace"]
    assert_error(run_cli(capsys, "eval", str(path), "--scorer", "lsa", *backend),
                 "--scorer lsa: your function ranks by itself", "give --scorer bm25 or tfidf")
    run = run_cli(capsys, "eval", str(path), "--scorer", "tfidf", "--json", *backend)
    assert run.status == 0, run.err
    assert trec_part(run.json["metrics"]) == pytest.approx(trec_metrics(qrels, as_run(rankings, texts)), abs=1e-9)
