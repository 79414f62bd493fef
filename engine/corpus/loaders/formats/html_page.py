"""HTML (.html, .htm): the visible text, its title and headings; scripts, styles and the head's other parts dropped.

Read with the standard library's ``html.parser`` (no dependency): it never raises
on broken markup, so a badly nested page still gives its text. Block elements
(paragraphs, list items, table rows, headings…) start blocks; character
references are decoded.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

from ranklens.engine.corpus.loaders.formats.building import Extracted, TextBuilder
from ranklens.engine.corpus.loaders.formats.encoding import decode, marked_encoding

_HIDDEN = frozenset({"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object"})
_BLOCKS = frozenset({
    "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote", "pre",
    "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "figure", "figcaption",
    "form", "fieldset", "address", "details", "summary", "hr", "br", "body", "html",
})
_CELLS = frozenset({"td", "th"})
_HEADING = re.compile(r"h[1-6]")
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source",
                   "track", "wbr"})
_DECLARED = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_-]+)", re.IGNORECASE)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.built = TextBuilder()
        self.run: list[str] = []  # the text of the block being read
        self.hidden: list[str] = []  # the hidden elements open, innermost last
        self.heading = 0  # the level of the heading being read, 0 outside one
        self.in_title = False
        self.title: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and set(self.hidden) <= {"head"}:  # not an SVG's title, say
            self.in_title = True
        elif tag in _HIDDEN and tag not in _VOID:
            self.hidden.append(tag)
        elif not self.hidden:
            if _HEADING.fullmatch(tag):
                self.flush()
                self.heading = int(tag[1])
            elif tag in _BLOCKS:
                self.flush()
            elif tag in _CELLS and self.run and not self.run[-1].endswith(" | "):
                self.run.append(" | ")
            elif tag == "img":
                self.run.append(dict(attrs).get("alt") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif self.hidden and tag in _HIDDEN:
            while self.hidden and self.hidden.pop() != tag:  # an unclosed inner one closes with it
                pass
        elif not self.hidden and (tag in _BLOCKS or _HEADING.fullmatch(tag)):
            self.flush()

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        elif not self.hidden:
            self.run.append(data)

    def flush(self) -> None:
        text = " ".join("".join(self.run).split()).strip(" |")
        self.run = []
        if self.heading:
            self.built.heading(self.heading, text)
            self.heading = 0
        else:
            self.built.block(text)


def _parsed(markup: str) -> _Page:
    page = _Page()
    page.feed(markup)
    page.close()
    page.flush()
    return page


def visible_text(markup: str) -> str:
    """The text a browser shows of ``markup`` (an HTML fragment), blocks one blank line apart."""
    return _parsed(markup).built.extracted("").text


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    page = _parsed(_decoded(data, name, notes))
    title = " ".join("".join(page.title).split())
    if not title:
        title = next((text for _, level, text in page.built.headings if level == 1), "")
    return [page.built.extracted(title)]


def _decoded(data: bytes, name: str, notes: list[str]) -> str:
    """The page's text: in the encoding its ``<meta charset>`` declares when Python knows it, else by the rule
    of plain text files."""
    declared = _DECLARED.search(data[:4096])
    if declared and marked_encoding(data[:4]) is None:  # a byte order mark wins over the declaration
        try:
            return data.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    return decode(data, name, notes)
