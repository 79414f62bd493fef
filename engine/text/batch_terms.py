"""A batch of texts as per-text term counts: the term index build's unit of work.

Each distinct token is analysed once per build. Texts are cut into surface tokens; a
token seen for the first time gets its term from the analyzer (none for a stop word) and
keeps it by id, so every later occurrence costs one dictionary lookup, and a stemmer runs
once per distinct word, not once per occurrence.

A batch of ASCII texts under the default token pattern is cut with numpy, all at once:
joined with a separator, lowercased, its non-word bytes made spaces, its words found at the
edges between spaces and the rest. That pattern (runs of two or more word characters)
matches exactly those words of two bytes or more, so one-byte words are dropped like stop
words. A word of up to eight bytes is those bytes read as one integer, and a batch's
distinct integers are looked up once each (a batch's words repeat: Zipf); longer words are
looked up as bytes. Any other batch (non-ASCII text, a NUL inside a text, another pattern)
is cut by the pattern, text by text, and gives the same terms: ``Analyzer.terms`` of each
text is the oracle (tests/test_batch_terms.py).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import chain
from typing import Generic, NamedTuple, TypeVar

import numpy as np

from ranklens.engine.text.analysis import Analyzer, cut_by_runs

Token = TypeVar("Token", bound=Hashable)

_DROPPED = -1  # a token with no term: a stop word, or a one-byte word of the ASCII cut
_BOUNDARY = -2  # the separator between two texts of the ASCII cut
_SEPARATOR = " \x00 "  # NUL: kept by the translation below, and checked to occur in no text of the batch
# ASCII bytes the token pattern's \w matches stay, NUL stays (the separator), every other byte becomes a space
_KEY_BYTES = 8
_KEY_MASKS = np.array([(1 << 8 * n) - 1 for n in range(_KEY_BYTES + 1)], dtype=np.uint64)
_ASCII_WORDS = bytes(c if c == 0 or re.fullmatch(r"(?u)\w", chr(c)) else 0x20 for c in range(256))


class Vocabulary(dict[Token, int], Generic[Token]):
    """Token -> id, ids given in order of first sight; ``words[i]`` is the token of id ``i``."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[Token] = []

    def __missing__(self, token: Token) -> int:
        # called by dict lookups for new tokens only: the per-token path stays in C
        self[token] = new = len(self.words)
        self.words.append(token)
        return new


class AnalysedBatch(NamedTuple):
    """One batch of texts after analysis, term ids from the vocabulary it was analysed with."""

    new_words: list[str]  # terms that vocabulary first saw in this batch, in id order
    lengths: np.ndarray  # int32, analysed terms per text, repeats counted
    sizes: np.ndarray  # int32, distinct terms per text
    terms: np.ndarray  # int32 term ids, text by text, ascending within a text
    counts: np.ndarray  # int32, occurrences of each of ``terms`` in its text


class _Surfaces(Generic[Token]):
    """The surface tokens of one kind (str or bytes) seen so far, and the term id of each."""

    def __init__(self, terms_of: Callable[[list[Token]], np.ndarray]) -> None:
        self.ids: Vocabulary[Token] = Vocabulary()
        self.terms_of = terms_of
        self.terms = np.zeros(1024, dtype=np.int32)  # surface id -> term id, or _DROPPED / _BOUNDARY

    def term_ids(self, tokens: Iterable[Token], count: int) -> np.ndarray:
        """The term id of each of ``tokens`` (``count`` of them), new tokens analysed once."""
        known = len(self.ids.words)
        ids = np.fromiter(map(self.ids.__getitem__, tokens), dtype=np.int64, count=count)
        new = self.ids.words[known:]
        if new:
            if len(self.ids.words) > len(self.terms):
                self.terms = np.resize(self.terms, 2 * len(self.ids.words))
            self.terms[known:len(self.ids.words)] = self.terms_of(new)
        return self.terms[ids]


class TermCounter:
    """Batches of texts analysed by ``analyzer`` into term counts; ``vocabulary`` holds every term seen."""

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self.vocabulary: Vocabulary[str] = Vocabulary()
        self._tokens: _Surfaces[str] = _Surfaces(self._terms_of_tokens)
        self._keys: _Surfaces[int] = _Surfaces(self._terms_of_keys)  # ASCII words of up to _KEY_BYTES bytes
        self._words: _Surfaces[bytes] = _Surfaces(self._terms_of_words)  # the longer ones
        self._cuts_ascii = cut_by_runs(analyzer.token_pattern)

    def count(self, texts: Sequence[str]) -> AnalysedBatch:
        """``texts`` as per-text term counts; the terms first seen here are added to ``vocabulary``."""
        known = len(self.vocabulary.words)
        cut = self._cut_ascii(texts) if self._cuts_ascii else None
        terms, text_of = cut if cut is not None else self._cut_by_pattern(texts)
        kept = terms >= 0
        text_of, terms = text_of[kept], terms[kept].astype(np.int64)
        # counting per batch keeps what is held (and sent) at one int per (text, term), not per token
        keys, counts = np.unique(text_of << 32 | terms, return_counts=True)
        return AnalysedBatch(
            new_words=self.vocabulary.words[known:],
            lengths=np.bincount(text_of, minlength=len(texts)).astype(np.int32),
            sizes=np.bincount(keys >> 32, minlength=len(texts)).astype(np.int32),
            terms=(keys & 0xFFFFFFFF).astype(np.int32),
            counts=counts.astype(np.int32),
        )

    def _cut_ascii(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
        """(term id of each word, its text's index), the separators' words included; None: not ASCII."""
        joined = _SEPARATOR.join(texts)
        if not joined.isascii() or joined.count("\x00") != len(texts) - 1:
            return None
        data = joined.encode("ascii")
        if self.analyzer.lowercase:
            data = data.lower()
        data = data.translate(_ASCII_WORDS) + b" " * _KEY_BYTES  # padded: a key reads 8 bytes, past a last word too
        codes = np.frombuffer(data, dtype=np.uint8)
        edges = np.flatnonzero(np.diff(codes != 0x20, prepend=False))
        starts, ends = edges[0::2], edges[1::2]
        lengths = ends - starts
        short = lengths <= _KEY_BYTES
        terms = np.empty(starts.size, dtype=np.int32)
        # a short word is its bytes read as one little-endian integer, its first byte lowest, the rest masked off
        eight = np.ndarray((codes.size - _KEY_BYTES + 1,), dtype="<u8", buffer=data, strides=(1,))
        keys = eight[starts[short]] & _KEY_MASKS[lengths[short]]
        distinct, inverse = np.unique(keys, return_inverse=True)
        terms[short] = self._keys.term_ids(distinct.tolist(), distinct.size)[inverse]
        long = np.flatnonzero(~short)
        if long.size:
            words = [data[a:b] for a, b in zip(starts[long].tolist(), ends[long].tolist())]
            terms[long] = self._words.term_ids(words, len(words))
        return terms, np.cumsum(terms == _BOUNDARY)

    def _cut_by_pattern(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(term id of each token, its text's index)."""
        lists = list(map(self.analyzer.tokens, texts))
        sizes = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        terms = self._tokens.term_ids(chain.from_iterable(lists), int(sizes.sum()))
        return terms, np.repeat(np.arange(len(lists), dtype=np.int64), sizes)

    def _terms_of_tokens(self, tokens: list[str]) -> np.ndarray:
        """The term id of each of ``tokens``, _DROPPED for a stop word."""
        ids = np.full(len(tokens), _DROPPED, dtype=np.int32)
        stop = self.analyzer.stopwords
        kept = [i for i, token in enumerate(tokens) if token not in stop] if stop else range(len(tokens))
        terms = self.analyzer.terms_of_tokens([tokens[i] for i in kept])  # a term per token kept
        ids[kept] = np.fromiter(map(self.vocabulary.__getitem__, terms), dtype=np.int32, count=len(terms))
        return ids

    def _terms_of_keys(self, keys: list[int]) -> np.ndarray:
        # no word holds a NUL but the separator, whose key is 0
        return self._terms_of_words([key.to_bytes(_KEY_BYTES, "little").rstrip(b"\x00") or b"\x00" for key in keys])

    def _terms_of_words(self, words: list[bytes]) -> np.ndarray:
        """The term id of each ASCII word: _BOUNDARY for the separator, _DROPPED for a one-byte word."""
        ids = np.full(len(words), _DROPPED, dtype=np.int32)
        ids[[i for i, word in enumerate(words) if word == b"\x00"]] = _BOUNDARY
        long = [i for i, word in enumerate(words) if len(word) > 1]
        ids[long] = self._terms_of_tokens([words[i].decode("ascii") for i in long])
        return ids
