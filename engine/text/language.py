"""Which language a corpus is written in, when its ranklens.toml does not say: a stop-word-ratio guess.

Stop words are the most frequent words of a language, so the list that covers
the largest share of a text's words names its language. Over it/en/es (the
languages ranklens has stop lists and stemmers for) a few sentences are
enough; a text that no list covers to ``MIN_SHARE`` gets no guess. Only the
first ``SAMPLE_CHARS`` characters are read, so a large corpus costs no more
than a small one.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from ranklens.engine.settings import LANGUAGES

SAMPLE_CHARS = 200_000  # characters read, documents in order
MIN_SHARE = 0.1  # below this share of stop words in every list, no guess
_WORD = re.compile(r"[^\W\d_]+")


def detect_language(texts: Iterable[str], sample_chars: int = SAMPLE_CHARS) -> str | None:
    """The language (``it``, ``en`` or ``es``) whose stop list covers the largest share of the words
    of ``texts`` (their first ``sample_chars`` characters), or None when none covers ``MIN_SHARE``."""
    from ranklens.engine.text.analysis import load_stopwords

    words: list[str] = []
    left = sample_chars
    for text in texts:
        if left <= 0:
            break
        words.extend(_WORD.findall(text[:left].lower()))
        left -= len(text)
    if not words:
        return None
    shares = {language: sum(word in stop for word in words) / len(words)
              for language in LANGUAGES for stop in [load_stopwords(language)]}
    best = max(shares, key=lambda language: shares[language])
    return best if shares[best] >= MIN_SHARE else None
