"""Text analysis: a stop list applies to tokens as the analyzer normalises them (case, accents)."""
from __future__ import annotations

from pathlib import Path

from ranklens.engine.analysis import Analyzer
from ranklens.engine.setup import Setup


def stop_file(tmp_path: Path, *words: str) -> str:
    path = tmp_path / "stop.txt"
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    return str(path)


def test_capitalised_stop_words_stop_lowercased_tokens(tmp_path: Path) -> None:
    analyzer = Analyzer.from_setup(Setup(stopwords=stop_file(tmp_path, "The", "AND", "# a comment", "of")))
    assert analyzer.terms("The cat AND the dog of Rome") == ["cat", "dog", "rome"]


def test_accented_stop_words_stop_folded_tokens(tmp_path: Path) -> None:
    analyzer = Analyzer.from_setup(Setup(stopwords=stop_file(tmp_path, "Perché", "è"), fold_accents=True))
    assert analyzer.terms("perché il gatto è nero, PERCHE no") == ["il", "gatto", "nero", "no"]


def test_without_lowercasing_the_stop_list_keeps_its_case(tmp_path: Path) -> None:
    analyzer = Analyzer.from_setup(Setup(stopwords=stop_file(tmp_path, "The"), lowercase=False))
    assert analyzer.terms("The cat the dog") == ["cat", "the", "dog"]
