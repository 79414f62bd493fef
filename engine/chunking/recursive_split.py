"""LangChain's recursive character splitter, as character offsets into the text it cuts.

``recursive_spans(text, size, overlap)`` returns where each chunk of
``RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)`` lies,
with that class' defaults: separators ``["\\n\\n", "\\n", " ", ""]``,
``keep_separator=True`` (a separator starts the piece after it), lengths by
``len`` (code points), and ``strip_whitespace=True``. Its rule, which the code
below follows step for step:

1. Take the first separator that occurs in the text ("" always does: one piece
   per character) and cut the text before each occurrence.
2. Pieces shorter than ``size`` are gathered; a longer one is cut again with the
   separators after the one used (or kept whole past the last separator).
3. Gathered pieces are merged greedily while the chunk stays within ``size``;
   the next chunk starts by keeping the previous chunk's last pieces while they
   add up to at most ``overlap`` and still leave room for the next piece.
4. A merged chunk is stripped of white space at both ends (``str.strip``) and
   dropped if nothing is left; a piece kept whole past the last separator is not.

Since every piece keeps its separator, a chunk is always one span of the text:
LangChain's chunk is ``text[start:end]``.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from operator import sub

SEPARATORS = ("\n\n", "\n", " ", "")

Span = tuple[int, int]  # [start, end) in characters


def recursive_spans(text: str, size: int, overlap: int) -> list[Span]:
    """The chunks of ``text`` as offsets into it."""
    spans: list[Span] = []
    _split(text, 0, len(text), SEPARATORS, size, overlap, spans)
    return spans


def _split(text: str, start: int, end: int, separators: tuple[str, ...], size: int, overlap: int,
           out: list[Span]) -> None:
    separator, finer = _separator(text, start, end, separators)
    bounds = _bounds(text, start, end, separator)  # piece k is [bounds[k], bounds[k + 1])
    run = 0  # the first piece of the run of short pieces being gathered
    for k in [k for k, length in enumerate(map(sub, bounds[1:], bounds)) if length >= size]:
        if run < k:
            _merge(text, bounds[run:k + 1], size, overlap, out)
        if finer:
            _split(text, bounds[k], bounds[k + 1], finer, size, overlap, out)
        else:
            out.append((bounds[k], bounds[k + 1]))
        run = k + 1
    if run < len(bounds) - 1:
        _merge(text, bounds[run:], size, overlap, out)


def _separator(text: str, start: int, end: int, separators: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The first separator found in the span, and the finer ones to cut its long pieces with."""
    for i, separator in enumerate(separators):
        if separator == "":
            return "", ()
        if text.find(separator, start, end) != -1:
            return separator, separators[i + 1:]
    return separators[-1], ()


def _bounds(text: str, start: int, end: int, separator: str) -> list[int]:
    """Where the pieces of the span begin, then its end: cut before each occurrence of ``separator``
    (non-overlapping, left to right), no empty piece."""
    if separator == "":
        return list(range(start, end + 1))
    parts = text[start:end].split(separator)
    after_first = list(accumulate([len(separator) + len(part) for part in parts[1:]], initial=start + len(parts[0])))
    return [start, *after_first] if parts[0] else after_first  # an empty first piece is no piece


def _merge(text: str, bounds: list[int], size: int, overlap: int, out: list[Span]) -> None:
    """Consecutive pieces (each shorter than ``size``; piece k is [bounds[k], bounds[k + 1])) merged into
    chunks of at most ``size`` characters, each next one keeping the last pieces of the one before that add
    up to at most ``overlap`` and leave room for the piece that did not fit."""
    last = len(bounds) - 1
    first = 0
    while True:
        # as many pieces as fit: bounds[stop] - bounds[first] <= size
        stop = bisect_right(bounds, bounds[first] + size, first + 1) - 1
        _emit(text, bounds[first], bounds[stop], out)
        if stop == last:
            return
        kept = max(bisect_left(bounds, bounds[stop] - overlap, first), bisect_left(bounds, bounds[stop + 1] - size,
                                                                                   first))
        first = min(kept, stop)


def _emit(text: str, start: int, end: int, out: list[Span]) -> None:
    """The chunk ``[start, end)`` less white space at both ends, unless nothing is left."""
    piece = text[start:end]
    kept = piece.lstrip()
    if not kept:
        return
    start += len(piece) - len(kept)
    out.append((start, start + len(kept.rstrip())))
