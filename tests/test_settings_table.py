"""One declaration per setting: checking, command-line options and TUI steps all derive from it."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ranklens.cli.main import build_parser
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import setup_for
from ranklens.engine.settings import SettingError
from ranklens.engine.setup import Setup, setup_settings
from ranklens.tui.app import make_app
from ranklens.tui.setting_steps import SETTING_STEPS, STEPS_BY_ID
from tests.support.app import opened, settle
from tests.support.cli import run_cli

WORDS = " ".join(f"word{i}" for i in range(300))


@pytest.fixture()
def text_folder(tmp_path: Path) -> Path:
    """A folder of .txt files: raw documents, chunked by the engine."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text(WORDS, encoding="utf-8")
    (folder / "b.txt").write_text("rimborso spese " * 40, encoding="utf-8")
    return folder


def test_every_setup_field_is_a_declared_setting() -> None:
    # but the one holding the values of the settings scorers declare on their specs
    assert list(setup_settings()) == [f.name for f in dataclasses.fields(Setup) if f.name != "declared"]
    for spec in setup_settings().values():
        assert spec.help and spec.default == getattr(Setup(), spec.name)


def test_every_option_of_the_command_line_reaches_the_setup(capsys: pytest.CaptureFixture[str]) -> None:
    search = build_parser()._subparsers._group_actions[0].choices["search"]  # noqa: SLF001
    flags = {flag for action in search._actions for flag in action.option_strings}  # noqa: SLF001
    for spec in setup_settings().values():
        if spec.name != "decimals":  # how scores are printed is the corpus' ranklens.toml's business
            assert spec.option in flags, spec.name
    run = run_cli(capsys, "search", "studio-alfa", "rimborso", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                  "--rrf-k", "7", "--no-lowercase", "--json")
    assert run.status == 0, run.err
    assert "fusion bm25+tfidf rrf rrf_k=7" in run.json["scorer"]


def test_a_bad_value_is_named_in_the_engines_words_by_the_setting() -> None:
    with pytest.raises(SettingError) as refused:
        Setup.from_mapping({"overlap": 25, "size": 20}, source="ranklens.toml")
    assert refused.value.setting == "overlap"
    assert "--" not in refused.value.message  # a flag is the command line's word, not the engine's
    assert str(refused.value).startswith("ranklens.toml: overlap")
    with pytest.raises(RanklensError, match=r"^setup: k must be at least 1 \(got 0\)$"):
        Setup().replace(k=0)


def test_raw_documents_name_the_chunking_that_runs(text_folder: Path) -> None:
    corpus = load_corpus(text_folder)
    setup = setup_for(corpus)
    assert (setup.size, setup.overlap) == (100, 20)
    # a corpus' own size without an overlap keeps the default overlap out of its way
    assert (setup_for(corpus, {"size": 10}).size, setup_for(corpus, {"size": 10}).overlap) == (10, 0)


def test_chunk_steps_start_from_the_chunking_that_runs(text_folder: Path) -> None:
    # The bug this pins: raw documents run 100/20, but "overlap +" gave 5 and "size +" gave 110/0.
    setup = setup_for(load_corpus(text_folder))
    assert STEPS_BY_ID["overlap_up"].change(setup, {}) == {"size": 100, "overlap": 25}
    assert STEPS_BY_ID["overlap_down"].change(setup, {}) == {"size": 100, "overlap": 15}
    assert STEPS_BY_ID["size_up"].change(setup, {}) == {"size": 120, "overlap": 20}
    # shrinking below the overlap pulls it down rather than being refused
    assert STEPS_BY_ID["size_down"].change(setup.replace(size=20, overlap=15), {}) == {"size": 10, "overlap": 9}


def test_steps_come_from_the_declarations() -> None:
    by_setting = {step.setting for step in SETTING_STEPS}
    declared = {name for name, spec in setup_settings().items() if spec.step is not None}
    assert declared <= by_setting
    assert STEPS_BY_ID["k1_up"].change(Setup(k1=1.2), {}) == {"k1": 1.3}
    assert STEPS_BY_ID["b_down"].change(Setup(b=0.75), {}) == {"b": 0.7}
    # the lesson's LSA dimensions are rungs of the ladder
    assert STEPS_BY_ID["dims_down"].change(Setup(dims=12), {}) == {"dims": 8}
    assert STEPS_BY_ID["dims_up"].change(Setup(dims=12), {}) == {"dims": 16}


async def test_the_apps_chunk_steps_on_raw_documents(text_folder: Path) -> None:
    app = make_app(str(text_folder), cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        assert (app.context.setup.size, app.context.setup.overlap) == (100, 20)
        app.action_setting("overlap_up")
        await settle(pilot)
        assert (app.context.setup.size, app.context.setup.overlap) == (100, 25)
        app.action_setting("size_up")
        await settle(pilot)
        assert (app.context.setup.size, app.context.setup.overlap) == (120, 25)


def test_replace_with_none_clears_an_optional_setting() -> None:
    # A layer's None means "not given"; replace's None is a value (reranker off, language unknown).
    setup = Setup.from_mapping({"rerank": "some-model", "language": "it", "size": 40})
    cleared = setup.replace(rerank=None, language=None, size=None)
    assert (cleared.rerank, cleared.language, cleared.size) == (None, None, None)
    with pytest.raises(SettingError, match=r"^setup: k needs a value$"):
        setup.replace(k=None)
