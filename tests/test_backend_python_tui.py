"""A pool of your own retriever's saved run and BM25's, judged in the TUI's queue at 80x24: the python:
retriever's run (one of its hits not in the corpus) and BM25's are picked, the pool made, two pairs graded,
and the workspace's judgment log holds the grades."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.cli.main import main
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.judging.pool import load_pool, pool_names
from tests.support.app import running, settle
from tests.support.judging_queue import open_queue, shown
from tests.support.python_retriever import module


async def test_a_pool_of_your_retriever_and_bm25_is_judged_in_the_queue(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    corpus = load_corpus("studio-alfa")
    # the retriever answers every question with the corpus' last three chunks (not BM25's order), then a hit
    # the corpus cannot place
    last = [chunk.id for chunk in corpus.chunks[-3:]]
    rankings = {q.text: [*[(ident, 3.0 - rank, None) for rank, ident in enumerate(last)], ("faq-9", 0.5, None)]
                for q in corpus.questions}
    retriever = module(tmp_path, rankings)
    assert main(["run", "studio-alfa", "--save", "mine", "--backend", f"python:{retriever}:search"]) == 0
    assert main(["run", "studio-alfa", "--save", "bm25", "--scorer", "bm25"]) == 0
    capsys.readouterr()
    async with running(size=(80, 24)) as pilot:
        app = pilot.app
        await open_queue(pilot)
        await pilot.press("down", "space", "down", "space", "m")  # bm25 and mine, not the current setup
        await settle(pilot)
        workspace = app.context.workspace
        pool = load_pool(workspace, pool_names(workspace)[0])
        assert pool.runs == ["bm25", "mine"]
        assert "faq-9" not in {pair.id for pair in pool.pairs}  # not in the corpus: nothing to judge
        first, second = pool.pairs[:2]
        assert {"bm25", "mine"} <= {*first.runs, *second.runs}
        await pilot.press("2", "1")
        await settle(pilot)
        assert f"2 of {len(pool.pairs)} judged" in shown(app, "progress")
    judged = workspace.judgments()  # read back from the log
    assert judged[first.question][first.id] == 2 and judged[second.question][second.id] == 1
