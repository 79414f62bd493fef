"""Markdown (.md, .markdown): the text a reader sees, markup stripped, headings kept with their levels.

Parsed by markdown-it-py (CommonMark and its tables; Rich installs it): emphasis,
link and image syntax, list markers and code fences leave the text, so
``**25 days** of paid leave`` is indexed, matched and shown as "25 days of paid
leave". Code keeps its text; inline HTML tags are dropped, an HTML block keeps
its visible text.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ranklens.engine.corpus.loaders.formats.building import Extracted, TextBuilder
from ranklens.engine.corpus.loaders.formats.encoding import decode

if TYPE_CHECKING:
    from markdown_it.token import Token

_TITLE = re.compile(r"^# (.*)$", re.MULTILINE)  # a markdown level-1 heading, found without splitting lines
_INLINE_TEXT = {"text": "content", "code_inline": "content", "image": "content"}  # the alt text of an image
_BREAKS = ("softbreak", "hardbreak")


def first_title(text: str) -> str:
    """The first markdown level-1 heading ("# Title") of raw text, if any."""
    match = _TITLE.search(text)
    return match.group(1).strip().rstrip("#").strip() if match else ""


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(decode(data, name, notes))
    built = TextBuilder()
    title = ""
    row: list[str] = []
    table: list[str] = []
    for at, token in enumerate(tokens):
        kind = token.type
        if kind == "inline" and tokens[at - 1].type == "heading_open":
            level = int(tokens[at - 1].tag[1:])
            text = inline_text(token.children or ())
            title = title or (text if level == 1 else "")
            built.heading(level, text)
        elif kind == "inline" and tokens[at - 1].type in ("th_open", "td_open"):
            row.append(" ".join(inline_text(token.children or ()).split()))
        elif kind == "inline":
            built.block(inline_text(token.children or ()))
        elif kind == "tr_close":
            table.append(" | ".join(row))
            row = []
        elif kind == "table_close":
            built.block("\n".join(table))
            table = []
        elif kind in ("fence", "code_block"):
            built.block(token.content)
        elif kind == "html_block":
            from ranklens.engine.corpus.loaders.formats.html_page import visible_text

            built.block(visible_text(token.content))
    return [built.extracted(title)]


def inline_text(children: Sequence[Token]) -> str:
    """The text of an inline run: words, code and images' alt text, without the markup around them."""
    parts = []
    for child in children:
        field = _INLINE_TEXT.get(child.type)
        if field is not None:
            parts.append(getattr(child, field))
        elif child.type in _BREAKS:
            parts.append("\n")
    return "".join(parts)
