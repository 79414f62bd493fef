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

from collections import deque

SEPARATORS = ("\n\n", "\n", " ", "")

Span = tuple[int, int]  # [start, end) in characters


def recursive_spans(text: str, size: int, overlap: int, start: int = 0, end: int | None = None) -> list[Span]:
    """The chunks of ``text[start:end]`` (the whole text by default) as offsets into ``text``."""
    spans: list[Span] = []
    _split(text, start, len(text) if end is None else end, SEPARATORS, size, overlap, spans)
    return spans


def _split(text: str, start: int, end: int, separators: tuple[str, ...], size: int, overlap: int,
           out: list[Span]) -> None:
    separator, finer = _separator(text, start, end, separators)
    gathered: list[Span] = []
    for piece in _pieces(text, start, end, separator):
        if piece[1] - piece[0] < size:
            gathered.append(piece)
            continue
        if gathered:
            _merge(text, gathered, size, overlap, out)
            gathered = []
        if finer:
            _split(text, piece[0], piece[1], finer, size, overlap, out)
        else:
            out.append(piece)
    if gathered:
        _merge(text, gathered, size, overlap, out)


def _separator(text: str, start: int, end: int, separators: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The first separator found in the span, and the finer ones to cut its long pieces with."""
    for i, separator in enumerate(separators):
        if separator == "":
            return "", ()
        if text.find(separator, start, end) != -1:
            return separator, separators[i + 1:]
    return separators[-1], ()


def _pieces(text: str, start: int, end: int, separator: str) -> list[Span]:
    """The span cut before each occurrence of ``separator`` (non-overlapping, left to right); no empty piece."""
    if separator == "":
        return [(i, i + 1) for i in range(start, end)]
    cuts = []
    at = text.find(separator, start, end)
    while at != -1:
        cuts.append(at)
        at = text.find(separator, at + len(separator), end)
    bounds = [start, *cuts, end]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def _merge(text: str, pieces: list[Span], size: int, overlap: int, out: list[Span]) -> None:
    """Consecutive pieces merged into chunks of at most ``size`` characters, overlapping by up to ``overlap``."""
    window: deque[Span] = deque()
    total = 0
    for piece in pieces:
        length = piece[1] - piece[0]
        if total + length > size and window:
            _emit(text, window[0][0], window[-1][1], out)
            while total > overlap or (total + length > size and total > 0):
                first = window.popleft()
                total -= first[1] - first[0]
        window.append(piece)
        total += length
    if window:
        _emit(text, window[0][0], window[-1][1], out)


def _emit(text: str, start: int, end: int, out: list[Span]) -> None:
    """The chunk ``[start, end)`` less white space at both ends, unless nothing is left."""
    piece = text[start:end]
    kept = piece.lstrip()
    if not kept:
        return
    start += len(piece) - len(kept)
    out.append((start, start + len(kept.rstrip())))
