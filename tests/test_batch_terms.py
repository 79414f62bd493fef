"""A batch's term counts are each text's ``Analyzer.terms``, counted, whichever way the batch is cut.

Oracle: ``collections.Counter`` over ``Analyzer.terms`` of each text (the query-time analysis),
mapped through the batch's vocabulary. The ASCII cut is made to be taken (the pattern's cut
refuses to run), and the pattern's cut to be taken (a NUL, a non-ASCII character, another pattern).
"""
from __future__ import annotations

import string
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.text.batch_terms import TermCounter
from tests.support.examples import examples

DEFAULT = r"(?u)\b\w\w+\b"
ANALYZERS = {
    "default": Analyzer(DEFAULT),
    "as written": Analyzer(DEFAULT, lowercase=False),
    "stop words and stems": Analyzer(DEFAULT, stopwords=frozenset({"the", "of", "a", "caffè"}), stem="en"),
    "folded": Analyzer(DEFAULT, fold_accents=True, stopwords=frozenset({"perche"}), stem="it"),
    "one letter too": Analyzer(r"(?u)\b\w+\b"),
    "runs, written plainly": Analyzer(r"(?u)\w\w+"),
}
ASCII_TEXT = st.text(alphabet=string.printable + "\x00\x01\x1c", max_size=60)
ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("the of a Running RUNS x_y 42 ß İ ﬁ é"),
                   max_size=40)


def counted(counter: TermCounter, texts: list[str]) -> list[Counter[str]]:
    """Each text's terms and counts as the counter's batch says, through its vocabulary."""
    batch = counter.count(texts)
    words = counter.vocabulary.words
    bounds = np.concatenate([[0], np.cumsum(batch.sizes)])
    out = []
    for i in range(len(texts)):
        rows = slice(bounds[i], bounds[i + 1])
        assert np.all(np.diff(batch.terms[rows]) > 0)  # ascending, no repeat
        out.append(Counter({words[t]: int(c) for t, c in zip(batch.terms[rows], batch.counts[rows])}))
    assert batch.lengths.tolist() == [sum(c.values()) for c in out]
    return out


def expected(analyzer: Analyzer, texts: list[str]) -> list[Counter[str]]:
    return [Counter(analyzer.terms(text)) for text in texts]


@pytest.mark.parametrize("name", ANALYZERS)
@settings(max_examples=examples(60), deadline=None)
@given(batches=st.lists(st.lists(ASCII_TEXT | ANY_TEXT, max_size=8), min_size=1, max_size=4))
def test_every_batch_counts_each_texts_terms(name: str, batches: list[list[str]]) -> None:
    analyzer = ANALYZERS[name]
    counter = TermCounter(analyzer)  # one counter for every batch: tokens seen before keep their terms
    seen: list[str] = []
    for texts in batches:
        known = len(counter.vocabulary.words)
        assert counted(counter, texts) == expected(analyzer, texts)
        seen.extend(counter.vocabulary.words[known:])
    assert seen == counter.vocabulary.words and len(set(seen)) == len(seen)


@pytest.mark.parametrize("name", ["default", "as written", "stop words and stems", "folded"])
@settings(max_examples=examples(40), deadline=None)
@given(texts=st.lists(st.text(alphabet=string.printable, max_size=60), min_size=1, max_size=8))
def test_an_ascii_batch_is_cut_without_the_pattern(name: str, texts: list[str]) -> None:
    analyzer = ANALYZERS[name]
    truth = expected(analyzer, texts)

    def refused(self, text):  # noqa: ANN001, ANN202
        raise AssertionError("cut by the pattern")

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(Analyzer, "tokens", refused)
        assert counted(TermCounter(analyzer), texts) == truth


@pytest.mark.parametrize("texts", [["plain", "a\x00b and more"], ["plain", "caffè latte"]],
                         ids=["a NUL in a text", "non-ASCII"])
def test_other_batches_are_cut_by_the_pattern(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    analyzer = ANALYZERS["default"]
    truth = expected(analyzer, texts)
    calls = []
    original = Analyzer.tokens

    def observed(self, text):  # noqa: ANN001, ANN202
        calls.append(text)
        return original(self, text)

    monkeypatch.setattr(Analyzer, "tokens", observed)
    assert counted(TermCounter(analyzer), texts) == truth
    assert calls == texts


def test_markup_and_escapes_are_plain_terms() -> None:
    texts = ["[/] [bold]x [TODO] a", "\x1b[31mred\x1b[0m", "", "   ", "ab"]
    analyzer = ANALYZERS["default"]
    assert counted(TermCounter(analyzer), texts) == expected(analyzer, texts)


def test_words_around_eight_bytes_and_at_the_edges() -> None:
    # a word is read as an integer up to eight bytes, as bytes beyond: both sides of the line, and the ends
    texts = ["abcdefgh abcdefghi ABCDEFGH", "abcdefghi", "x", "abcdefgh", "", "12345678_ 1234567_ a_b",
             "ends with a long word abcdefghijklmnopqrstuvwxyz", "abcdefgh" * 9]
    for analyzer in (ANALYZERS["default"], ANALYZERS["as written"], ANALYZERS["stop words and stems"]):
        for batch in (texts, texts[::-1], texts[:1], texts[-1:]):
            assert counted(TermCounter(analyzer), batch) == expected(analyzer, batch)
