"""Text analysis: text -> terms (tokenise, lowercase, fold accents, stop words, stem).

The default is scikit-learn's: token pattern ``(?u)\\b\\w\\w+\\b``, lowercase,
nothing else, so TF-IDF agrees with ``TfidfVectorizer`` to the last digit.
"""
from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache, cache
from pathlib import Path
from collections.abc import Iterable

from ranklens.engine.errors import RanklensError
from ranklens.engine.settings import SKLEARN_TOKEN_PATTERN
from ranklens.engine.setup import LANGUAGES, Setup

_STEMMER_NAMES = {"it": "italian", "en": "english", "es": "spanish"}


@dataclass(frozen=True)
class Analyzer:
    token_pattern: str
    lowercase: bool = True
    fold_accents: bool = False
    stopwords: frozenset[str] = frozenset()
    stem: str | None = None

    @classmethod
    def from_setup(cls, setup: Setup) -> Analyzer:
        stop = load_stopwords(setup.stopwords)
        if setup.lowercase:
            stop = frozenset(w.lower() for w in stop)
        if setup.fold_accents:
            stop = frozenset(fold_accents(w) for w in stop)
        try:
            re.compile(setup.token_pattern)
        except re.error as error:
            raise RanklensError(
                f"token_pattern {setup.token_pattern!r} is not a valid regular expression: {error}") from None
        return cls(
            token_pattern=setup.token_pattern,
            lowercase=setup.lowercase,
            fold_accents=setup.fold_accents,
            stopwords=stop,
            stem=None if setup.stem == "none" else setup.stem,
        )

    @property
    def key(self) -> tuple:
        """What identifies the analysis, for caches: equal keys give equal terms."""
        return (self.token_pattern, self.lowercase, self.fold_accents,
                tuple(sorted(self.stopwords)), self.stem)

    def normalise(self, text: str) -> str:
        if self.lowercase:
            text = text.lower()
        if self.fold_accents:
            text = fold_accents(text)
        return text

    def tokens(self, text: str) -> list[str]:
        """Surface tokens after normalisation, before stop words and stemming."""
        return _compiled(self.token_pattern).findall(self.normalise(text))

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text``, in order, repeats kept."""
        return self.terms_of_tokens(self.tokens(text))

    def terms_of_tokens(self, tokens: list[str]) -> list[str]:
        if self.stopwords:
            stop = self.stopwords
            tokens = [t for t in tokens if t not in stop]
        if self.stem is not None and tokens:
            tokens = _stemmer(self.stem).stemWords(tokens)
        return tokens

    def terms_many(self, texts: Iterable[str]) -> list[list[str]]:
        return [self.terms(t) for t in texts]

    def term_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, term) for every token of ``text`` that survives analysis.

        Offsets index the original text: used to highlight matched terms.
        Lowercasing and folding keep string lengths for most scripts, so a
        match in the normalised text maps back 1:1; when they do not ("İ"
        lowercases to two characters, "ﬁ" folds to "fi"), each character is
        normalised on its own and matches map back through its origin.
        """
        normalised = self.normalise(text)
        origin = None
        if len(normalised) != len(text):
            pieces = [self.normalise(ch) for ch in text]
            normalised = "".join(pieces)
            origin = [i for i, piece in enumerate(pieces) for _ in piece]
        spans = []
        for match in _compiled(self.token_pattern).finditer(normalised):
            token = match.group(0)
            if token in self.stopwords:
                continue
            term = _stemmer(self.stem).stemWord(token) if self.stem else token
            start, end = match.span()
            if origin is not None:
                start, end = origin[start], origin[end - 1] + 1
            spans.append((start, end, term))
        return spans


def fold_accents(text: str) -> str:
    """Strip combining marks, as scikit-learn's ``strip_accents='unicode'``."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def load_stopwords(spec: str) -> frozenset[str]:
    """``none``, a language code (it, en, es) or a file with one word per line."""
    if spec == "none":
        return frozenset()
    if spec in LANGUAGES:
        return _language_stopwords(spec)
    path = Path(spec)
    if not path.is_file():
        raise RanklensError(
            f"stopwords: {spec!r} is neither none, a language ({', '.join(LANGUAGES)}) nor a readable file"
        )
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as error:
        raise RanklensError(f"stopwords: cannot read {spec}: {error.strerror}") from None
    return frozenset(w for line in lines if (w := line.split("#", 1)[0].strip()))


@cache
def _language_stopwords(language: str) -> frozenset[str]:
    from stop_words import get_stop_words

    # The maintained lists include numerals ("10", "39"); numbers carry answers
    # in RAG ("18 months", "500 cycles"), so they are never stop words here.
    return frozenset(w for w in get_stop_words(language) if not any(c.isdigit() for c in w))


# Patterns that match exactly what another, cheaper one does. scikit-learn's: greedy \w+ ends a match only
# at the end of a run of word characters, and a search only starts inside a run when the run is one
# character long, so both match the runs of two or more word characters; the \b tests cost a third.
_RUNS = r"(?u)\w\w+"
_SAME_MATCHES = {SKLEARN_TOKEN_PATTERN: _RUNS}


def cut_by_runs(pattern: str) -> bool:
    """Whether ``pattern`` matches exactly the runs of two or more word characters (the default's tokens)."""
    return _compiled(pattern).pattern == _RUNS


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(_SAME_MATCHES.get(pattern, pattern))


_local = threading.local()


def _stemmer(language: str):
    # PyStemmer objects are not thread-safe and the TUI analyses in workers.
    stemmers = _local.__dict__.setdefault("stemmers", {})
    stemmer = stemmers.get(language)
    if stemmer is None:
        import Stemmer

        if language not in _STEMMER_NAMES:
            raise RanklensError(f"stem: unknown language {language!r} (choose from none, {', '.join(LANGUAGES)})")
        stemmer = stemmers[language] = Stemmer.Stemmer(_STEMMER_NAMES[language])
    return stemmer
