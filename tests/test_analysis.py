"""Text analysis: a stop list applies to tokens as the analyzer normalises them (case, accents)."""
from __future__ import annotations

import random
import re
from pathlib import Path

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.settings import SKLEARN_TOKEN_PATTERN
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


def test_the_default_tokens_and_spans_are_scikit_learns() -> None:
    # the analyzer matches scikit-learn's pattern with a cheaper one: same matches, same places
    from sklearn.feature_extraction.text import CountVectorizer

    rng = random.Random(7)
    alphabet = "ab_9 \t\n.,-'é\u0301ñßİﬁ日本語\u200b\U0001f600\u0663x"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(400)]
    texts += ["", "a", "ab", "_a_", "a b", "9 99 999", "é\u0301é", "x日y", "İstanbul ﬁne"]
    tokenize = CountVectorizer(lowercase=False).build_tokenizer()
    oracle = re.compile(SKLEARN_TOKEN_PATTERN)
    analyzer = Analyzer.from_setup(Setup(lowercase=False))
    for text in texts:
        assert analyzer.terms(text) == tokenize(text)
        assert analyzer.term_spans(text) == [(m.start(), m.end(), m.group()) for m in oracle.finditer(text)]
