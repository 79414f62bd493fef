"""The readers of a text folder's files, one module per format, found by the file's suffix.

A reader is ``read(data, name, notes) -> list[Extracted]``: the file's bytes, its
name relative to the folder (for messages), and a list its notes go to (an
encoding guessed, rows left out). It returns one document for most formats and one
per row for a table file, or raises ``Unreadable`` with a few words saying why. Its
module is imported when a file of its format is first read, so the readers' packages
(pypdf; python-docx and python-pptx, the ``documents`` extra) load only for folders that
hold such files; without the extra, Word and PowerPoint files are skipped with a line
naming it.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ranklens.engine.corpus.loaders.formats.building import Extracted, Unreadable

__all__ = ["FORMATS", "Extracted", "Format", "Reader", "Unreadable", "format_of"]

Reader = Callable[[bytes, str, list[str]], list[Extracted]]
_PACKAGE = __name__


@dataclass(frozen=True)
class Format:
    """A kind of file a text folder's documents are read from."""

    name: str  # for messages: "PDF"
    suffixes: tuple[str, ...]  # lowercase, with the dot
    module: str  # the reader's module in this package
    requires: str = ""  # the package (as pip names it) its reader needs, when not a base dependency
    extra: str = ""  # the ranklens extra that installs it
    kept: bool = False  # extraction slow enough to keep in the cache, per file digest
    binary: bool = False  # a container format: a NUL byte does not mark the file as something else
    version: int = 1  # bumped when the reader's output changes: cached extractions of older ones are not used

    def reader(self) -> Reader:
        """The read function; ImportError when its package is missing."""
        return importlib.import_module(f"{_PACKAGE}.{self.module}").read


FORMATS = (
    Format("text", (".txt",), "plain"),
    Format("Markdown", (".md", ".markdown"), "markdown"),
    Format("HTML", (".html", ".htm"), "html_page", kept=True),
    Format("PDF", (".pdf",), "pdf", kept=True, binary=True),
    Format("Word", (".docx",), "word", requires="python-docx", extra="documents", kept=True, binary=True),
    Format("PowerPoint", (".pptx",), "slides", requires="python-pptx", extra="documents", kept=True, binary=True),
    Format("CSV", (".csv", ".tsv"), "table"),
)
_BY_SUFFIX = {suffix: spec for spec in FORMATS for suffix in spec.suffixes}


def format_of(name: str) -> Format | None:
    """The format of a file named ``name`` (by its suffix, any case); None for a kind no reader reads."""
    dot = name.rfind(".")
    return _BY_SUFFIX.get(name[dot:].lower()) if dot > 0 else None
