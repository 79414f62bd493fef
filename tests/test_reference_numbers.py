"""Every line of DESIGN.md's "Reference numbers", out of the command line."""
from __future__ import annotations

import math

import pytest

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.tfidf import TfidfScorer
from ranklens.engine.setup import Setup
from ranklens.engine.text.termindex import TermIndex
from tests.support.cli import run_cli
from tests.support.seeds import SEED_PROMPT, seed_chunk
from tests.support.shared_builds import SHARED, shared_builds  # noqa: F401

SEED_TFIDF_RANKS = [1, 4, 1, 3, 2, 1, 1, 1, 1, 1, 5, 1, 2, 1, 1]
FATTURE_51_WORDS = (
    "Le fatture emesse ai clienti vengono trasmesse al sistema di interscambio entro dodici giorni dalla data "
    "dell'operazione. L'ufficio amministrativo controlla il codice destinatario prima dell'invio. Una fattura "
    "scartata dal sistema di interscambio va corretta e rinviata entro cinque giorni dalla notifica di scarto, "
    "mantenendo lo stesso numero e la stessa data."
)
ANSWER_SENTENCE = "entro cinque giorni dalla notifica di scarto"


def test_studio_alfa_tfidf_vocabulary_and_passages() -> None:
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus))
    assert retriever.index.vocabulary.size == 265
    assert retriever.index.n_docs == 18


def test_studio_alfa_tfidf_eval(capsys) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--json")
    assert run.status == 0
    data = run.json
    assert data["scorer"].startswith("TF-IDF")
    assert [q["rank"] for q in data["per_question"]] == SEED_TFIDF_RANKS
    assert data["questions"] == 15
    assert round(data["metrics"]["hit@1"] * 15) == 10
    assert round(data["metrics"]["hit@3"] * 15) == 13
    assert f"{data['metrics']['mrr']:.3f}" == "0.786"
    assert set(data["timing"]) >= {"index_s", "queries_per_s", "p50_ms", "p99_ms"}


def test_studio_alfa_tfidf_eval_human_table(capsys) -> None:
    run = run_cli(capsys, "eval", "studio-alfa")
    assert run.status == 0
    assert "10/15     13/15  0.786" in run.out
    assert "rank   4  tetto massimo per l'albergo in una grande città" in run.out


@pytest.mark.parametrize(
    ("dims", "hit1", "hit3", "mrr"),
    [(4, 4, 11, "0.521"), (8, 10, 13, "0.750"), (12, 10, 14, "0.789"), (16, 10, 14, "0.789")],
)
def test_studio_alfa_lsa_table(capsys, dims: int, hit1: int, hit3: int, mrr: str) -> None:
    data = run_cli(capsys, "eval", "studio-alfa", "--scorer", "lsa", "--dims", str(dims), "--json").json
    assert round(data["metrics"]["hit@1"] * 15) == hit1
    assert round(data["metrics"]["hit@3"] * 15) == hit3
    assert f"{data['metrics']['mrr']:.3f}" == mrr


@pytest.mark.parametrize(
    ("size", "overlap", "chunks", "whole"),
    [(20, 0, 3, False), (20, 8, 4, True), (40, 0, 2, False), (40, 10, 2, True)],
)
def test_fatture_chunk_table(capsys, tmp_path, size: int, overlap: int, chunks: int, whole: bool) -> None:
    text_file = tmp_path / "fatture.txt"
    text_file.write_text(FATTURE_51_WORDS, encoding="utf-8")
    data = run_cli(capsys, "chunk", str(text_file), "--size", str(size), "--overlap", str(overlap),
                   "--find", ANSWER_SENTENCE, "--json").json
    assert data["words"] == 51
    assert len(data["chunks"]) == chunks
    assert data["found"] is whole
    assert [" ".join(c["text"].split()) for c in data["chunks"]] == seed_chunk(FATTURE_51_WORDS, size, overlap)
    assert [c["start_word"] for c in data["chunks"]] == [i * (size - overlap) for i in range(chunks)]


def test_fatture_chunk_from_stdin_prints_the_seed_lines(capsys, monkeypatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FATTURE_51_WORDS.encode())))
    run = run_cli(capsys, "chunk", "-", "--size", "20", "--overlap", "8", "--find", ANSWER_SENTENCE)
    assert "words in the text: 51" in run.out
    assert "size 20, overlap  8: 4 chunks, answer sentence whole in one chunk: True" in run.out
    assert ("dell'invio. Una fattura scartata dal sistema di interscambio va corretta e rinviata entro cinque "
            "giorni dalla notifica di scarto, mantenendo") in run.out


def test_threshold_numbers(capsys) -> None:
    data = run_cli(capsys, "threshold", "studio-alfa", "--json").json
    answerable = data["answerable"]
    assert [f"{answerable[key]:.3f}" for key in ("min", "median", "max")] == ["0.172", "0.320", "0.506"]
    assert [f"{q['top_score']:.3f}" for q in data["unanswerable"]] == ["0.302", "0.157", "0.295", "0.183"]
    assert 0 < data["best_accuracy"] < 1  # the lesson's point: no threshold separates the groups


def test_hotel_question_top_two(capsys) -> None:
    data = run_cli(capsys, "search", "studio-alfa", "tetto massimo per l'albergo in una grande città",
                   "-k", "2", "--json").json
    assert [(r["id"], r["document"], f"{r['score']:.3f}") for r in data["results"]] == [
        ("copie-2", "copie", "0.172"), ("copie-0", "copie", "0.133")]


def test_prompt_character_for_character(capsys) -> None:
    run = run_cli(capsys, "prompt", "studio-alfa", "ho cancellato un file per sbaglio", "-k", "2")
    assert run.status == 0
    assert run.out == SEED_PROMPT + "\n"


@pytest.mark.parametrize(
    ("corpus", "query", "expected"),
    [("battery", "how long is the battery warranty", ["0.51", "0.27"]),
     ("bateria", "cuanto dura la garantia de la bateria", ["0.47", "0.27"])],
)
def test_battery_examples(capsys, corpus: str, query: str, expected: list[str]) -> None:
    run = run_cli(capsys, "search", corpus, query, "-k", "2")
    scores = [line.split()[1] for line in run.out.splitlines() if not line.startswith("#")]
    assert scores == expected


def test_idf_with_25_chunks() -> None:
    # one chunk holds "cycles", six hold "warranty": N = 25
    texts = ["cycles warranty"] + ["warranty"] * 5 + ["other"] * 19
    index = TermIndex.build(texts, Analyzer.from_setup(Setup()))
    scorer = TfidfScorer.fit(index)
    idf = {term: scorer.idf[i] for term, i in index.term_ids.items()}
    assert f"{idf['cycles']:.2f}" == "3.56"
    assert f"{idf['warranty']:.2f}" == "2.31"
    assert math.isclose(idf["cycles"], math.log(26 / 2) + 1)


@SHARED
@pytest.mark.usefixtures("shared_builds")
def test_ivf_on_the_synthetic_set(capsys) -> None:
    data = run_cli(capsys, "ivf", "--synthetic", "--cells", "100", "--probes", "1,2,4,8,16,32,100", "--json").json
    rows = data["rows"]
    assert [row["n_probe"] for row in rows] == [1, 2, 4, 8, 16, 32, 100]
    assert [f"{row['compared_mean']:.0f}" for row in rows] == ["360", "536", "925", "1727", "3314", "6454", "20100"]
    assert [f"{row['recall@10']:.3f}" for row in rows] == ["0.505", "0.655", "0.750", "0.828", "0.902", "0.965",
                                                           "1.000"]
    assert all(row["ms_per_query"] > 0 for row in rows)
