"""The corpus' language: from its ranklens.toml, else guessed from its text by stop-word ratio (it/en/es)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.text.language import detect_language
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import setup_for

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def test_guesses_each_language_from_a_few_sentences() -> None:
    assert detect_language(["Il contratto di lavoro prevede che le ferie siano richieste con anticipo."]) == "it"
    assert detect_language(["The battery warranty lasts two years from the date of purchase."]) == "en"
    assert detect_language(["La garantía de la batería dura dos años desde la fecha de compra."]) == "es"


def test_no_guess_without_words_of_any_list() -> None:
    assert detect_language(["1234 5678", "xq zzv"]) is None
    assert detect_language([]) is None


@pytest.mark.parametrize(("name", "language"), [("studio-alfa", "it"), ("battery", "en"), ("bateria", "es")])
def test_bundled_corpora_say_their_language_and_the_guess_agrees(name: str, language: str) -> None:
    corpus = load_corpus(name)
    assert corpus.settings["language"] == language and not corpus.language_detected
    assert detect_language(d.text for d in corpus.documents) == language


def test_a_folder_without_toml_gets_the_guess(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("La garantía de la batería dura dos años y cubre los defectos de fábrica.")
    (tmp_path / "b.txt").write_text("Para pedir una reparación hay que llamar al servicio técnico de la tienda.")
    corpus = load_corpus(tmp_path)
    assert corpus.settings["language"] == "es" and corpus.language_detected
    assert setup_for(corpus).language == "es"


def test_a_toml_language_wins_over_the_guess(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("The battery warranty lasts two years from the date of purchase.")
    (tmp_path / "ranklens.toml").write_text('language = "it"\n')
    corpus = load_corpus(tmp_path)
    assert corpus.settings["language"] == "it" and not corpus.language_detected


@pytest.mark.parametrize(("name", "language"), [("cranfield", "en"), ("xquad_es", "es"), ("squad_it", "it")])
def test_the_shared_collections_are_guessed_right(name: str, language: str) -> None:
    if not (DATA / name / "corpus.jsonl").exists():
        pytest.skip(f"{name} is not here")
    corpus = load_corpus(DATA / name)
    assert corpus.settings["language"] == language and corpus.language_detected
