"""The TUI over a Qdrant collection (an Edge shard of a qdrant:PATH folder, for real): opened from the command line's
backend or the palette, searched and measured as ranklens' own BM25 lucene, let go, and refused.

The oracle is the local BM25 lucene of the same setup, scores up to float32.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("qdrant_edge", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]'; "
                    "make test-qdrant runs these tests)")

from ranklens.engine.backends.qdrant import push  # noqa: E402
from ranklens.engine.backends.registry import open_target  # noqa: E402
from ranklens.engine.experiments.scorers import compare_scorers  # noqa: E402
from ranklens.engine.corpus.loaders import load_corpus  # noqa: E402
from ranklens.engine.retriever import Workbench, setup_for  # noqa: E402
from ranklens.tui.app import make_app  # noqa: E402
from ranklens.tui.panes.metrics import MetricsPane  # noqa: E402
from ranklens.tui.widgets.fitted_line import FittedLine  # noqa: E402
from ranklens.tui.widgets.work_status import WorkStatus  # noqa: E402
from tests.support.cli import run_cli  # noqa: E402
from tests.support.app import (notifications, open_collection, opened, search, settle, setup_line,  # noqa: E402
                               until)

QUERY = "sottotitoli per i filmati"
SIZE = (100, 30)


@pytest.fixture(scope="module")
def alfa():
    """studio-alfa under BM25 lucene (its ranklens.toml says tfidf), locally: the oracle."""
    corpus = load_corpus("studio-alfa")
    return Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"}))


@pytest.fixture
def folder(alfa, tmp_path) -> str:
    """A local folder holding studio-alfa's collection, pushed by the engine."""
    target = f"qdrant:{tmp_path / 'q'}"
    push(alfa, target)
    return target


def hits(app) -> tuple[list[str], np.ndarray]:
    found = app.query_one("SearchPane")._found
    return [row.hit.chunk.id for row in found.rows], np.array([row.hit.score for row in found.rows])


def assert_local_ranking(app, alfa) -> None:
    local = alfa.search(QUERY)
    ids, scores = hits(app)
    assert ids == [h.chunk.id for h in local.hits] and len(ids) == 5
    np.testing.assert_allclose(scores, [h.score for h in local.hits], rtol=1e-5)


async def open_from_palette(pilot, target: str, collection: str | None = None) -> None:
    await open_collection(pilot, "Qdrant", target, collection)


async def test_the_command_lines_collection_ranks_search_and_metrics_as_local_bm25(alfa, folder) -> None:
    app = make_app("studio-alfa", {}, cursor_blink=False, backend=open_target(folder, "studio-alfa"))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert app.backend is not None
        assert f"ranking through {folder} collection studio-alfa" in notifications(app)
        line = setup_line(app)
        # the corpus' tfidf is what the collection cannot rank: BM25 lucene runs, and the line says so
        # the collection comes before the setup, so a narrow terminal cuts the setup's end, not it
        assert line.startswith(f"studio-alfa 18 chunks it · through {folder} collection studio-alfa · BM25 lucene "
                               "k1=1.2 b=0.75")
        await search(pilot, QUERY)
        assert_local_ranking(app, alfa)
        await pilot.press("escape", "2")
        await until(pilot, lambda: app.query_one(MetricsPane).result is not None)
        await settle(pilot)
        result = app.query_one(MetricsPane).result
        local = compare_scorers(Workbench(alfa.corpus), alfa.setup, ["bm25"])
        assert [r.scorer for r in result.scorers] == ["bm25"]
        assert result.scorers[0].evaluation.metrics == pytest.approx(local.scorers[0].evaluation.metrics, abs=1e-12)
        assert result.scorers[0].evaluation.metrics["mrr"] == pytest.approx(0.7744444444444445)
        assert result.notes == (f"through {folder} collection studio-alfa: TF-IDF, LSA, fusion left out "
                                "(the collection cannot rank by them)",)
        status = app.query_one(MetricsPane).query_one(WorkStatus).query_one("#work-message", FittedLine)
        assert result.notes[0] in status.text  # whole, as said (80 columns show it cut at a word)
    # the app let go of the folder on the way out: another client opens it
    open_target(folder, "studio-alfa").close()


async def test_the_palette_opens_a_collection_and_goes_back_to_the_local_index(alfa, folder) -> None:
    app = make_app("studio-alfa", {"scorer": "bm25"}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await search(pilot, QUERY)
        local_ids, local_scores = hits(app)
        await open_from_palette(pilot, folder)
        assert app.backend is not None and app.backend.label == f"{folder} collection studio-alfa"
        assert "ranking through" in " ".join(notifications(app))
        assert "· through" in setup_line(app)
        ids, scores = hits(app)  # the search ran again, through the collection
        assert ids == local_ids
        np.testing.assert_allclose(scores, local_scores, rtol=1e-5)
        assert not np.array_equal(scores, local_scores)  # float32 sums: another computation, not the local one
        back = next(c for c in app.palette_commands() if c.name == "Use the local index")
        back.run()
        await settle(pilot)
        assert app.backend is None and "through" not in setup_line(app)
        ids, scores = hits(app)
        assert ids == local_ids and np.array_equal(scores, local_scores)  # ranklens' own numbers again
        # let go: the folder opens again, from the palette too
        await open_from_palette(pilot, folder, "studio-alfa")
        assert app.backend is not None
        assert_local_ranking(app, alfa)


# every registered backend's location, Qdrant's first
NOT_A_LOCATION = ("'db:somewhere' is not a Qdrant or Python function or HTTP endpoint location: give qdrant:PATH "
                  "(a local folder of Qdrant Edge shards) or http(s)://HOST:PORT (a server) or python:MODULE:FUNCTION "
                  "(your retriever as FUNCTION(query, k) of a module or a path/to/file.py) or endpoint:FILE.toml "
                  "(your retriever's HTTP service, and how to ask it and read its answers)")


@pytest.mark.parametrize("where, collection, said", [
    ("qdrant:{tmp}/nowhere", None, "qdrant:{tmp}/nowhere: no such folder (ranklens push CORPUS --to "
                                   "qdrant:{tmp}/nowhere makes one)"),
    ("{folder}", "other", "{folder}: no collection 'other' (it has studio-alfa); ranklens push CORPUS --to ... "
                          "makes one"),
    ("db:somewhere", None, NOT_A_LOCATION),
])
async def test_a_refused_collection_is_a_notification_and_the_app_ranks_locally(alfa, folder, tmp_path, where,
                                                                                 collection, said) -> None:
    where, said = (text.replace("{tmp}", str(tmp_path)).replace("{folder}", folder) for text in (where, said))
    app = make_app("studio-alfa", {"scorer": "bm25"}, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await open_from_palette(pilot, where, collection)
        assert said in notifications(app)
        assert app.backend is None and "through" not in setup_line(app)
        await search(pilot, QUERY)
        assert_local_ranking(app, alfa)


async def test_a_collection_of_other_settings_is_refused_at_start_and_the_corpus_ranked_locally(alfa, folder):
    app = make_app("studio-alfa", {"scorer": "bm25", "k1": 1.5}, cursor_blink=False,
                   backend=open_target(folder, "studio-alfa"))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert app.backend is None
        assert ("ranked locally: collection 'studio-alfa' was pushed with other settings: k1=1.2 there, 1.5 here"
                in notifications(app))
        assert "k1=1.5" in setup_line(app)
    open_target(folder, "studio-alfa").close()  # closed when refused


@pytest.mark.parametrize("argv, said", [
    (["--backend", "db:somewhere"], f"ranklens: {NOT_A_LOCATION}"),
    (["--backend", "{folder}", "--collection", "other"],
     "ranklens: {folder}: no collection 'other' (it has studio-alfa); ranklens push CORPUS --to ... makes one"),
    (["--collection", "studio-alfa"], "ranklens: --collection needs --backend"),
    (["--backend", "{folder}", "--scorer", "tfidf"],
     "ranklens: --scorer tfidf: a collection ranks by BM25 lucene, its dense vectors or their fusion; give "
     "--scorer bm25 or dense or fusion, or none"),
])
def test_bad_backend_input_on_the_tuis_command_line_is_one_line_and_status_2_before_the_tui(
        capsys, monkeypatch, folder, argv, said) -> None:
    import ranklens.tui.app

    monkeypatch.setattr(ranklens.tui.app, "run_app", lambda *args: pytest.fail("the TUI opened"))
    run = run_cli(capsys, "studio-alfa", *(arg.replace("{folder}", folder) for arg in argv))
    assert (run.status, run.err) == (2, said.replace("{folder}", folder) + "\n")


@pytest.mark.parametrize("command", [["eval"], ["threshold"], ["search", QUERY]])
def test_the_text_header_names_the_collection_ranking(capsys, folder, command) -> None:
    run = run_cli(capsys, command[0], "studio-alfa", *command[1:], "--backend", folder)
    assert run.status == 0, run.err
    assert run.out.splitlines()[0] == ("# studio-alfa · 18 chunks · BM25 lucene k1=1.2 b=0.75 · stop=none · stem=none"
                                       f" · k=5 · through {folder} collection studio-alfa")


async def test_another_corpus_opened_is_ranked_locally_and_the_collection_let_go(folder) -> None:
    app = make_app("studio-alfa", {"scorer": "bm25"}, cursor_blink=False,
                   backend=open_target(folder, "studio-alfa"))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert app.backend is not None
        app.switch_corpus("battery")
        await until(pilot, lambda: app.context.corpus.name == "battery")
        await settle(pilot)
        assert app.backend is None and "through" not in setup_line(app)
        assert not any(c.name == "Use the local index" for c in app.palette_commands())
        open_target(folder, "studio-alfa").close()  # let go while the app runs on


async def test_s_under_a_collection_steps_the_scorer_asked_and_says_what_the_collection_ranks_by(folder) -> None:
    # The scorer steps from the one asked for (not from BM25, which the collection runs whatever is asked):
    # else s went bm25 -> lsa, silently ranked BM25, then answered 'stays bm25' for ever.
    app = make_app("studio-alfa", {}, cursor_blink=False, backend=open_target(folder, "studio-alfa"))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await settle(pilot)
        await pilot.press("escape", "s")  # tfidf (the corpus' own) -> bm25: the collection ranks it
        await settle(pilot)
        assert app.context.setup.scorer == "bm25"
        assert not any("not BM25" in n for n in notifications(app))
        await pilot.press("s")  # bm25 -> lsa: the collection still ranks by BM25 lucene, and says so
        await settle(pilot)
        assert app.context.setup.scorer == "lsa"
        assert ("the collection ranks by BM25, not LSA: the palette's 'Use the local index' ranks by LSA"
                in notifications(app))
        await pilot.press("s")  # lsa -> fusion: the step goes on, no 'stays bm25'
        await settle(pilot)
        assert app.context.setup.scorer == "fusion"
        assert not any("stays" in n for n in notifications(app))
