"""JSON output for scripts: a structured setup beside the scorer's label, and --json on every command
that prints something a script may read (corpora, prompt)."""
from __future__ import annotations

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import run_cli


def test_search_json_carries_the_setup_as_settings(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "search", "studio-alfa", "password", "--scorer", "bm25", "--k1", "0.9", "--json")
    assert run.status == 0
    data = run.json
    assert isinstance(data["scorer"], str)  # the label stays for people
    assert data["setup"]["scorer"] == "bm25" and data["setup"]["k1"] == 0.9 and data["setup"]["k"] == 5
    corpus = load_corpus("studio-alfa")
    assert data["setup"] == setup_for(corpus, {"scorer": "bm25", "k1": 0.9}).to_dict()


def test_eval_json_carries_the_setup_that_ran(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "lsa", "--json")
    assert run.status == 0
    corpus = load_corpus("studio-alfa")
    ran = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "lsa"})).setup
    assert run.json["setup"] == ran.to_dict() and run.json["setup"]["dims"] == 18  # clamped, as it ran


def test_corpora_json(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "corpora", "--json")
    assert run.status == 0
    names = [row["name"] for row in run.json["corpora"]]
    assert {"studio-alfa", "battery", "bateria"} <= set(names)
    assert all(row["description"] for row in run.json["corpora"])


def test_prompt_json(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "prompt", "studio-alfa", "ho cancellato un file per sbaglio", "-k", "2", "--json")
    assert run.status == 0
    text = run_cli(capsys, "prompt", "studio-alfa", "ho cancellato un file per sbaglio", "-k", "2").out
    assert run.json["prompt"] + "\n" == text
    assert run.json["query"] == "ho cancellato un file per sbaglio" and run.json["setup"]["k"] == 2
    corpus = load_corpus("studio-alfa")
    hits = Workbench(corpus).retriever(setup_for(corpus, {"k": 2})).search("ho cancellato un file per sbaglio").hits
    assert [row["id"] for row in run.json["chunks"]] == [hit.chunk.id for hit in hits]
