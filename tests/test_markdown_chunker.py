"""The markdown chunker against LangChain's MarkdownHeaderTextSplitter (#, ##, ###) then its recursive splitter.

LangChain rebuilds a section's content (lines stripped, blank lines dropped, paragraphs joined by
"  \\n"); ours is the span of the document the chunk comes from. So the oracle's chunks are compared
with white space normalised, on Markdown without tabs or no-break spaces inside a line (LangChain
deletes those), and each of ours must be a span of the document that starts and ends where
LangChain's does.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.engine.chunking.cutting import chunk_documents, markdown_windows
from ranklens.engine.corpus import Document, normalise_space
from tests.support.examples import examples

splitters = pytest.importorskip("langchain_text_splitters")

HEADING = re.compile(r"\s*#{1,3}(\s|$)")
HEADERS = [("#", "Header 1"), ("##", "Header 2"), ("###", "Header 3")]

HANDBOOK = """# Employee handbook

Welcome to the company. This handbook describes how we work and what we expect.

## Leave

Every employee receives 25 days of paid annual leave per year.
Unused days carry over to the next year, up to five days.

### Requests

Ask your manager at least two weeks ahead. Use the HR portal.
   Indented continuation line.

```
# not a heading, code
leave --request 5d

done
```

#### A deeper heading stays in the content
Sick leave needs a certificate after three days.

## Expenses
- travel: economy class
- meals: up to 40 EUR a day
#NoSpaceIsNoHeading

# Employee handbook
Same path again: one section with the first.
~~~
## fenced with tildes
~~~
"""


def langchain(text: str, size: int, overlap: int) -> list[str]:
    sections = splitters.MarkdownHeaderTextSplitter(HEADERS).split_text(text)
    recursive = splitters.RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    return [d.page_content for d in recursive.split_documents(sections)]


def ours(text: str, size: int, overlap: int) -> list[str]:
    return [text[s.start_char:s.end_char] for s in markdown_windows(text, size, overlap)]


def without_headings(chunk: str) -> str:
    """The chunk's words less its heading lines: two sections in a row under the same headings are one, and
    the span of a chunk across both holds the second heading's line (and in code, LangChain's keeps one)."""
    return normalise_space(" ".join(line for line in chunk.split("\n") if not HEADING.match(line)))


def same(text: str, size: int, overlap: int) -> None:
    theirs, mine = langchain(text, size, overlap), ours(text, size, overlap)
    assert [without_headings(t) for t in mine] == [without_headings(t) for t in theirs], (size, overlap)
    for chunk, their in zip(mine, theirs):  # the same first and last characters: the span LangChain's comes from
        if their.strip():  # at size 1, LangChain's joining "  \n" gives chunks of a space: ours are its line break
            assert (chunk[:1], chunk[-1:]) == (their[:1], their[-1:])


@pytest.mark.parametrize(("size", "overlap"), [(1, 0), (3, 1), (10, 0), (25, 5), (60, 20), (120, 30), (1000, 200)])
def test_a_handbook_is_cut_as_langchain_cuts_it(size: int, overlap: int) -> None:
    same(HANDBOOK, size, overlap)


def test_headings_are_not_content_and_code_fences_hide_headings() -> None:
    chunks = ours(HANDBOOK, 1000, 0)
    assert not any(c.startswith("# Employee") or c.startswith("## Leave") for c in chunks)
    assert any("# not a heading, code" in c for c in chunks)
    assert any("#### A deeper heading" in c for c in chunks)


LINES = st.sampled_from(["# One", "## Two", "### Three", "#### Four", "#", "##NoSpace", "", "", "text line",
                         "another line of words", "  indented words  ", "```", "~~~", "x" * 40, "a b c d e f",
                         "# One"])


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(1, 80))
    return size, draw(st.integers(0, size - 1))


@settings(max_examples=examples(300), deadline=None)
@given(lines=st.lists(LINES, max_size=25), window=windows(), ending=st.sampled_from(["", "\n", "\r\n"]))
def test_any_markdown_of_headings_fences_and_lines_is_cut_as_langchain_cuts_it(
        lines: list[str], window: tuple[int, int], ending: str) -> None:
    same("\n".join(lines) + ending, *window)


def test_the_readers_headings_cut_a_document_whose_markup_was_stripped() -> None:
    text = "Leave\n\nEvery employee receives 25 days.\n\nRequests\n\nAsk your manager.\n\nDetails\n\nSmall print."
    headings = ((0, 1, "Leave"), (text.index("Requests"), 2, "Requests"), (text.index("Details"), 4, "Details"))
    doc = Document("handbook.md", "Leave", text, headings=headings)
    chunks = chunk_documents([doc], 1000, 0, "markdown")
    # sections at levels 1-2, the headings' lines left out; a level-4 heading is content
    assert [c.text for c in chunks] == ["Every employee receives 25 days.",
                                        "Ask your manager.\n\nDetails\n\nSmall print."]
    assert all(text[c.start:c.end] == c.text for c in chunks)
