"""Bad settings: exit 2 with one line naming the option (or the toml key); odd but usable ones work with a note."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import assert_error, run_cli, run_on, stderr_lines
from tests.support.files import beir_folder, text_folder

FRUIT = {
    "apple.txt": "the red apple is sweet and the apple tree is old",
    "pear.txt": "a green pear and a yellow pear on the table",
    "plum.txt": "plum jam with apple and pear",
}


@pytest.fixture
def fruit(tmp_path: Path) -> Path:
    return text_folder(tmp_path / "fruit", FRUIT)


BAD_OPTIONS = {
    "overlap = size": (["search", "{c}", "q", "--size", "5", "--overlap", "5"], ["overlap", "size"]),
    "overlap > size (chunk)": (["chunk", "{f}", "--size", "5", "--overlap", "7"],
                               ["ranklens: --overlap: overlap 7 must be smaller than size 5"]),
    "overlap without size": (["search", "{c}", "q", "--overlap", "3"], ["--overlap needs --size"]),
    "negative overlap": (["chunk", "{f}", "--size", "5", "--overlap", "-1"], ["--overlap must be at least 0"]),
    "size 0": (["search", "{c}", "q", "--size", "0"], ["--size must be at least 1 (got 0)"]),
    "size 0 (chunk)": (["chunk", "{f}", "--size", "0"], ["--size must be at least 1 (got 0)"]),
    "size not a number": (["chunk", "{f}", "--size", "ten"], ["--size must be a whole number (got 'ten')"]),
    "k 0": (["search", "{c}", "q", "-k", "0"], ["-k must be at least 1 (got 0)"]),
    "k negative (eval)": (["eval", "{c}", "-k", "-2"], ["-k must be at least 1 (got -2)"]),
    "negative k1": (["search", "{c}", "q", "--k1", "-0.5"], ["--k1 must be 0 or more (got -0.5)"]),
    "nan k1": (["search", "{c}", "q", "--k1", "nan"], ["--k1 must be a finite number (got 'nan')"]),
    "infinite k1": (["search", "{c}", "q", "--k1", "inf"], ["--k1 must be a finite number (got 'inf')"]),
    "negative b": (["search", "{c}", "q", "--b", "-1"], ["--b must be between 0 and 1 (got -1)"]),
    "b above 1": (["search", "{c}", "q", "--b", "1.5"], ["--b must be between 0 and 1 (got 1.5)"]),
    "negative delta": (["search", "{c}", "q", "--delta", "-3"], ["--delta must be 0 or more"]),
    "unknown scorer": (["search", "{c}", "q", "--scorer", "magic"], ["--scorer", "invalid choice: 'magic'"]),
    "unknown variant": (["search", "{c}", "q", "--bm25-variant", "bm26"], ["--bm25-variant", "'bm26'"]),
    "unknown fused scorer": (["search", "{c}", "q", "--scorer", "fusion", "--fuse", "bm25,magic"],
                             ["fuse takes tfidf, bm25, lsa, dense (got 'magic')"]),
    "unknown stop words": (["search", "{c}", "q", "--stopwords", "klingon"], ["--stopwords: 'klingon' is neither"]),
    "unknown stemmer": (["search", "{c}", "q", "--stem", "klingon"], ["--stem", "invalid choice: 'klingon'"]),
    "dims 0": (["search", "{c}", "q", "--scorer", "lsa", "--dims", "0"], ["--dims must be at least 1 (got 0)"]),
    "cells 0": (["ivf", "{c}", "--cells", "0"], ["--cells must be at least 1 (got 0)"]),
    "probes 0": (["ivf", "{c}", "--probes", "0,1"], ["--probes values must be at least 1"]),
    "n_probe above cells": (["ivf", "{c}", "--cells", "2", "--probes", "1,3"],
                            ["--probes: 3 is not between 1 and the number of cells (2)"]),
    "unknown option": (["search", "{c}", "q", "--colour", "red"], ["unrecognized arguments: --colour red"]),
}


@pytest.mark.parametrize("case", BAD_OPTIONS, ids=list(BAD_OPTIONS))
def test_bad_option_is_named(capsys, fruit: Path, case: str) -> None:
    argv, needles = BAD_OPTIONS[case]
    argv = [a.format(c=fruit, f=fruit / "apple.txt") for a in argv]
    assert_error(run_on(capsys, fruit, *argv), *needles)


BAD_TOML = {
    "overlap = size": ("size = 5\noverlap = 5\n", "overlap 5 must be smaller than size 5"),
    "size 0": ("size = 0\n", "size must be at least 1 (got 0)"),
    "k 0": ("k = 0\n", "k must be at least 1 (got 0)"),
    "negative k1": ("k1 = -1.0\n", "k1 must be a finite number >= 0 (got -1.0)"),
    "b above 1": ("b = 2\n", "b must be between 0 and 1 (got 2.0)"),
    "dims 0": ("dims = 0\n", "dims must be at least 1 (got 0)"),
    "unknown scorer": ('scorer = "magic"\n', "unknown scorer 'magic' (choose from tfidf, bm25, lsa, fusion, dense)"),
    "unknown stop words": ('stopwords = "klingon"\n', "stopwords 'klingon' is neither none, a language"),
}


@pytest.mark.parametrize("case", BAD_TOML, ids=list(BAD_TOML))
def test_bad_toml_setting_names_the_file_and_key(capsys, tmp_path: Path, case: str) -> None:
    text, needle = BAD_TOML[case]
    folder = beir_folder(tmp_path / "beir", [{"_id": "a", "text": "red apple"}], toml=text)
    assert_error(run_on(capsys, folder, "search", str(folder), "apple"), f"{folder / 'ranklens.toml'}: {needle}")


def test_command_line_clashing_with_the_toml_names_both_settings(capsys, tmp_path: Path) -> None:
    folder = beir_folder(tmp_path / "beir", [{"_id": "a", "text": "red apple"}], toml="size = 10\noverlap = 5\n")
    assert_error(run_on(capsys, folder, "search", str(folder), "apple", "--size", "3"),
                  "ranklens: --overlap: overlap 5 must be smaller than size 3")


@pytest.mark.parametrize("scorer", ["tfidf", "bm25", "lsa", "fusion"])
def test_k_larger_than_the_corpus_ranks_every_chunk_with_a_note(capsys, fruit: Path, scorer: str) -> None:
    run = run_on(capsys, fruit, "search", str(fruit), "apple pear", "-k", "50", "--scorer", scorer, "--json")
    assert run.status == 0
    ids = [r["id"] for r in run.json["results"]]
    assert sorted(ids) == ["apple.txt#0", "pear.txt#0", "plum.txt#0"]  # every chunk shares a term with the query
    assert "ranklens: note: k = 50 is more than the 3 chunk(s) of the corpus: all are ranked" in run.err


def test_k_larger_than_the_corpus_keeps_non_matching_chunks_out_of_sparse_results(capsys, fruit: Path) -> None:
    run = run_on(capsys, fruit, "search", str(fruit), "yellow", "-k", "50")
    assert run.status == 0 and "pear.txt#0" in run.out and "apple.txt" not in run.out
    assert stderr_lines(run, "note") == [
        "ranklens: note: k = 50 is more than the 3 chunk(s) of the corpus: all are ranked"]


def test_default_k_on_a_tiny_corpus_draws_no_note(capsys, fruit: Path) -> None:
    run = run_on(capsys, fruit, "search", str(fruit), "apple")
    assert run.status == 0 and run.err == ""


def test_lsa_dims_beyond_the_chunks_are_clamped_with_a_note(capsys, fruit: Path) -> None:
    run = run_on(capsys, fruit, "search", str(fruit), "apple", "--scorer", "lsa", "--dims", "50")
    assert run.status == 0 and len(run.out.splitlines()) == 4  # header and the three chunks
    assert stderr_lines(run, "note") == ["ranklens: note: LSA dims clamped from 50 to 3 (3 chunks, 16 terms)"]


def test_lsa_dims_beyond_the_terms_are_clamped_with_a_note(capsys, tmp_path: Path) -> None:
    texts = {f"d{i}.txt": ("red apple " * (i + 1)) + "green pear" for i in range(8)}
    folder = text_folder(tmp_path / "few-terms", texts)
    run = run_on(capsys, folder, "search", str(folder), "apple", "--scorer", "lsa", "--dims", "8")
    assert run.status == 0
    assert stderr_lines(run, "note") == ["ranklens: note: LSA dims clamped from 8 to 3 (8 chunks, 4 terms)"]


def test_lsa_dims_equal_to_the_chunks_is_the_full_rank_and_runs_as_asked(capsys, fruit: Path) -> None:
    run = run_on(capsys, fruit, "search", str(fruit), "apple", "--scorer", "lsa", "--dims", "3")
    assert run.status == 0 and "LSA 3 dims" in run.out and run.err == ""


def test_more_ivf_cells_than_vectors_is_an_error(capsys, fruit: Path) -> None:
    run = run_on(capsys, fruit, "ivf", str(fruit), "--cells", "5", "--dims", "2")
    assert_error(run, "--cells (5) is larger than the number of vectors (3)")


def test_few_vectors_per_ivf_cell_is_a_warning_as_in_faiss(capsys, fruit: Path) -> None:
    run = run_on(capsys, fruit, "ivf", str(fruit), "--cells", "2", "--json")
    assert run.status == 0 and [r["n_probe"] for r in run.json["rows"]] == [1, 2]
    assert stderr_lines(run, "warning") == [
        "ranklens: warning: --cells (2) leaves fewer than 39 vectors per cell (3 vectors): "
        "the k-means centroids are poorly trained"]


def test_boundary_values_are_accepted(capsys, fruit: Path) -> None:
    for argv in (["--k1", "0", "--b", "0"], ["--b", "1"], ["--size", "1", "--overlap", "0"], ["-k", "1"]):
        run = run_on(capsys, fruit, "search", str(fruit), "apple", *argv)
        assert run.status == 0 and "apple.txt" in run.out, argv
    chunk = run_cli(capsys, "chunk", str(fruit / "apple.txt"), "--size", "2", "--overlap", "1", "--json")
    assert chunk.status == 0 and chunk.json["words"] == 11 and len(chunk.json["chunks"]) == 10


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("variant", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_bm25_edges_give_finite_scores_and_explanations(capsys, tmp_path: Path, variant: str) -> None:
    folder = text_folder(tmp_path / "edges", {**FRUIT, "empty.txt": "... !!!"})  # a chunk without terms
    for k1, b, delta in (("0", "0", "0"), ("0", "1", "0"), ("0", "1", "0.5"), ("3", "1", "0")):
        run = run_on(capsys, folder, "search", str(folder), "apple zebra", "--bm25-variant", variant, "--k1", k1,
                     "--b", b, "--delta", delta, "--explain", "-k", "4", "--json")
        assert run.status == 0 and run.err == ""  # no RuntimeWarning from a division by zero
        data = json.loads(run.out, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
        for row in data["results"]:
            assert row["score"] > 0 and abs(row["explain"]["score"] - row["score"]) < 1e-9


def test_lsa_on_a_single_chunk_prints_notes_only(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "one", {"a.txt": "apple pie tart"})
    run = run_on(capsys, folder, "search", str(folder), "apple", "--scorer", "lsa")
    assert run.status == 0 and "a.txt#0" in run.out
    assert run.err.splitlines() == ["ranklens: note: LSA dims clamped from 100 to 1 (1 chunks, 3 terms)"]
