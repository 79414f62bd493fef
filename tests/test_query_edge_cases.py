"""Queries that cannot match: no results and a note saying why, exit 0, never a ranking of zeros."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.corpora import bundled_path
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import run_on
from tests.support.files import text_folder

STUDIO = bundled_path("studio-alfa")
NO_TERMS = "no query terms after analysis"
NOT_IN_CORPUS = "none of the query's terms occurs in the corpus"
ALL_ZERO = "every chunk scores 0 for the query's terms"
SCORERS = ["tfidf", "bm25", "lsa", "fusion"]
QUERIES = {
    "empty": ("", [], NO_TERMS),
    "blank": (" \t\n ", [], NO_TERMS),
    "only stop words": ("il la di", ["--stopwords", "it"], NO_TERMS),
    "only punctuation": ("?! ... --- «»", [], NO_TERMS),
    "one-letter words": ("a e i o", [], NO_TERMS),
    "absent terms": ("zanzibar quokka", [], NOT_IN_CORPUS),
    "100 KB of absent terms": (" ".join(f"zz{i}" for i in range(20_000)), [], NOT_IN_CORPUS),
}


def test_the_long_query_is_100_kb() -> None:
    assert len(QUERIES["100 KB of absent terms"][0]) > 100_000


@pytest.mark.parametrize("scorer", SCORERS)
@pytest.mark.parametrize("case", QUERIES, ids=list(QUERIES))
def test_query_that_cannot_match_gets_a_note_not_a_ranking(capsys, case: str, scorer: str) -> None:
    query, options, note = QUERIES[case]
    run = run_on(capsys, STUDIO, "search", "studio-alfa", query, "--scorer", scorer, *options, "--json")
    assert run.status == 0
    assert run.json["results"] == [] and run.json["note"] == note
    human = run_on(capsys, STUDIO, "search", "studio-alfa", query, "--scorer", scorer, *options)
    assert human.status == 0 and human.out.splitlines()[1:] == [f"no results: {note}"]


@pytest.mark.parametrize("scorer", ["lsa", "fusion"])
def test_dense_and_fused_retrievers_refuse_out_of_vocabulary_queries(scorer: str) -> None:
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": scorer, "dims": 8}))
    for query, note in (("quokka", NOT_IN_CORPUS), ("!!", NO_TERMS)):
        result = retriever.search(query)
        assert result.hits == [] and result.note == note


def test_a_100_kb_query_of_known_words_is_answered(capsys) -> None:
    query = " ".join(["ferie", "richiesta", "responsabile", "giorni"] * 2_800)
    assert len(query) > 100_000
    run = run_on(capsys, STUDIO, "search", "studio-alfa", query, "--json")
    assert run.status == 0 and run.json["results"][0]["id"] == "ferie-0"
    prompt = run_on(capsys, STUDIO, "prompt", "studio-alfa", query, "-k", "2")
    assert prompt.status == 0 and prompt.out.rstrip("\n").endswith(query)


def test_terms_too_common_to_score_get_a_note(capsys, tmp_path: Path) -> None:
    # Robertson's idf is 0 for a term in half the chunks or more, ATIRE's for one in all of them.
    folder = text_folder(tmp_path / "same", {"a.txt": "apple pie", "b.txt": "apple tart"})
    for variant in ("robertson", "atire"):
        run = run_on(capsys, folder, "search", str(folder), "apple", "--bm25-variant", variant)
        assert run.status == 0 and run.out.splitlines()[1:] == [f"no results: {ALL_ZERO}"]
        fused = run_on(capsys, folder, "search", str(folder), "apple", "--bm25-variant", variant,
                       "--scorer", "fusion", "--fuse", "bm25,tfidf", "--json")
        assert [r["id"] for r in fused.json["results"]] == ["a.txt#0", "b.txt#0"]  # BM25 adds nothing: TF-IDF ranks


def test_lsa_without_a_direction_for_the_query_gets_a_note(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "one-term", {"a.txt": "apple", "b.txt": "apple apple"})  # SVD needs 2 terms
    run = run_on(capsys, folder, "search", str(folder), "apple", "--scorer", "lsa", "--json")
    assert run.status == 0 and run.json["results"] == [] and run.json["note"] == ALL_ZERO


def test_fusion_leaves_out_chunks_no_scorer_ranks(capsys, tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "fruit", {"a.txt": "apple pie", "b.txt": "pear tart", "c.txt": "plum jam"})
    run = run_on(capsys, folder, "search", str(folder), "apple", "--scorer", "fusion", "--fuse", "bm25,tfidf",
                 "--json")
    assert [r["id"] for r in run.json["results"]] == ["a.txt#0"]


def test_partly_known_query_lists_the_unknown_terms(capsys) -> None:
    run = run_on(capsys, STUDIO, "search", "studio-alfa", "ferie quokka")
    assert run.status == 0 and "ferie-0" in run.out and run.out.endswith("(not in the corpus: quokka)\n")


def test_prompt_without_results_has_an_empty_context(capsys) -> None:
    run = run_on(capsys, STUDIO, "prompt", "studio-alfa", "quokka")
    assert run.status == 0 and run.out.splitlines()[-4:] == ["<context>", "", "</context>", "Question: quokka"]
