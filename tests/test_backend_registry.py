"""A backend added in one module plus one registration line is everywhere: --backend, push, eval, open_target.

The toy backend (tests/support/toy_backend.py) keeps a collection as a JSON file and ranks it with an index of
its own; the oracle is ranklens' local BM25 on the same corpus, whose numbers the toy must give back.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ranklens.engine.backends.registry import (backend_specs, open_target, registered, spec_for,
                                               targets_metavar)
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import assert_error, run_cli
from tests.support.toy_backend import SPEC, ToyBackend


@pytest.fixture()
def toy():
    with registered(SPEC) as spec_:
        yield spec_


@pytest.fixture()
def pushed(capsys, toy, tmp_path: Path) -> str:
    target = f"toy:{tmp_path / 'toy'}"
    run = run_cli(capsys, "push", "studio-alfa", "--to", target, "--json")
    assert run.status == 0, run.err
    assert (run.json["target"], run.json["collection"], run.json["chunks"]) == (target, "studio-alfa", 18)
    return target


def test_qdrant_is_the_built_in_backend_found_by_its_schemes() -> None:
    assert [s.name for s in backend_specs()] == ["qdrant", "python", "endpoint"]  # and the user's own retriever
    assert {spec_for(t).name for t in ("qdrant:/some/folder", "http://localhost:6333", "https://q:6333")} == {"qdrant"}
    assert targets_metavar() == "qdrant:PATH|URL|python:MODULE:FUNCTION|endpoint:FILE.toml"
    for target in ("ftp://host", "qdrant:", "toy:folder", "python:", "endpoint:"):
        with pytest.raises(RanklensError, match="is not a Qdrant or Python function or HTTP endpoint location: "
                                                "give qdrant:PATH"):
            spec_for(target)


def test_a_registered_backend_is_in_the_help_and_in_the_location_message(capsys, toy) -> None:
    assert spec_for("toy:folder") is toy
    assert targets_metavar() == "qdrant:PATH|URL|python:MODULE:FUNCTION|endpoint:FILE.toml|toy:FOLDER"
    for argv in (("eval", "--help"), ("push", "--help")):
        with pytest.raises(SystemExit):
            run_cli(capsys, *argv)
        assert "endpoint:FILE.toml|toy:FOLDER" in capsys.readouterr().out
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", "ftp://host"),
                 "'ftp://host' is not a Qdrant or Python function or HTTP endpoint or toy location: give qdrant:PATH",
                 "endpoint:FILE.toml (your retriever's HTTP service", "or toy:FOLDER (a folder of JSON collections)")


def test_eval_through_the_toy_collection_gives_the_local_bm25_numbers(capsys, pushed: str) -> None:
    local = run_cli(capsys, "eval", "studio-alfa", "--scorer", "bm25", "--json").json
    through = run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--json").json
    assert through["metrics"] == local["metrics"] and through["per_question"] == local["per_question"]
    # the corpus' own TF-IDF replaced by what the toy ranks by, and said to rank there
    assert through["scorer"] == f"{local['scorer']} · through {pushed} collection studio-alfa"


def test_search_through_the_toy_ranks_there_and_explains_here(capsys, pushed: str) -> None:
    local = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--scorer", "bm25", "--json").json
    through = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--json").json
    assert [r["id"] for r in through["results"]] == [r["id"] for r in local["results"]]
    explained = run_cli(capsys, "search", "studio-alfa", "rimborso auto", "--backend", pushed, "--explain", "-k", "1")
    assert f"{pushed} collection studio-alfa scores it 2.06185: equal to the local 2.06185" in explained.out


def test_a_push_refuses_what_the_backend_cannot_hold(capsys, pushed: str) -> None:
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", pushed), "collection 'studio-alfa' exists")
    assert run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--replace", "--json").json["replaced"] \
        == "studio-alfa.json"
    assert_error(run_cli(capsys, "push", "studio-alfa", "--to", pushed, "--dense"),
                 "--dense: a toy collection holds BM25's texts, no dense ones")
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--scorer", "lsa"),
                 "--scorer lsa: a toy collection ranks by BM25; give --scorer bm25, or none")


def test_other_settings_than_the_pushed_ones_are_refused(capsys, pushed: str) -> None:
    assert_error(run_cli(capsys, "eval", "studio-alfa", "--backend", pushed, "--k1", "2"),
                 "collection 'studio-alfa' was pushed with other settings: k1=1.2 there, 2.0 here")


def test_a_backend_without_its_extra_is_one_line_naming_the_pip_command(capsys, tmp_path: Path) -> None:
    missing = dataclasses.replace(SPEC, name="toy-extra", schemes=("toyx:",), extra="toy",
                                  requires=("ranklens_toy_extra_is_not_installed",))
    with registered(missing):
        for argv in (("eval", "studio-alfa", "--backend", f"toyx:{tmp_path}"),
                     ("push", "studio-alfa", "--to", f"toyx:{tmp_path}")):
            assert_error(run_cli(capsys, *argv), "the toy backend needs the toy extra: pip install 'ranklens[toy]'")
    assert list(tmp_path.iterdir()) == []


def test_open_target_is_what_a_front_end_calls_to_rank_through_a_collection(pushed: str) -> None:
    corpus = load_corpus("studio-alfa")
    setup = setup_for(corpus, {"scorer": "bm25"})
    backend = open_target(pushed, "studio-alfa")
    assert isinstance(backend, ToyBackend) and backend.label == f"{pushed} collection studio-alfa"
    workbench = Workbench(corpus)
    through, local = workbench.with_backend(backend).retriever(setup), workbench.retriever(setup)
    assert through.source == backend.label and not local.source
    query = "ho cancellato un file per sbaglio"
    assert [h.chunk.id for h in through.search(query).hits] == [h.chunk.id for h in local.search(query).hits]
    # BM25's spec needs terms: a question with none of the corpus' ranks nothing, and the toy is not asked
    backend.search = lambda *args: pytest.fail("the backend was asked")
    ids, scores = through.scorer.top_k(through.query("zzz qqq"), 5)
    assert ids.size == scores.size == 0


async def test_the_tui_palette_offers_the_toy_backend_and_ranks_through_it(capsys, pushed: str) -> None:
    from ranklens.tui.app import make_app
    from tests.support.app import notifications, open_collection, opened, search, setup_line

    app = make_app("studio-alfa", {"scorer": "bm25"}, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        row = next(c for c in app.palette_commands() if c.name == "Open a toy collection…")
        assert "made by ranklens push" in row.help
        await open_collection(pilot, "toy", pushed)
        assert isinstance(app.backend, ToyBackend)
        assert f"ranking through {pushed} collection studio-alfa" in notifications(app)
        assert f"through {pushed} collection studio-alfa" in setup_line(app)
        corpus = load_corpus("studio-alfa")
        local = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "bm25"})).search("rimborso auto")
        pane = await search(pilot, "rimborso auto")
        assert [row.hit.chunk.id for row in pane._found.rows] == [h.chunk.id for h in local.hits]
