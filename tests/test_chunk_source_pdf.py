"""Where a PDF's chunks came from, end to end: the prompt cites the issue's two-level path on the handbook
folder, and on a real PDF (pdfTeX, with an outline: the shared sample files) search --json gives each chunk
the page pypdf reads its first words on and the outline's entry it falls under, and the prompt cites them."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.documents import SHARED_PDFS, handbook

OUTLINED = "pdflatex-outline.pdf"
# its outline, read by hand: (title, page) in document order
OUTLINE = [("Foo", 2), ("Bar", 2), ("Baz", 2), ("Foo", 2), ("Bar", 3), ("Baz", 3), ("Foo", 3), ("Bar", 4),
           ("Baz", 4)]
CHUNKS = ("--size", "40", "--overlap", "0")


def test_the_prompt_cites_the_heading_path_under_its_page(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    folder = handbook(tmp_path / "handbook")
    run = run_cli(capsys, "prompt", str(folder), "team lead two weeks ahead", "-k", "1", "--size", "9",
                  "--overlap", "0")
    assert run.status == 0, run.err
    assert "[1] (handbook.pdf p. 2 › Leave › Requests) requests go to the team lead two weeks ahead." in run.out


@pytest.mark.skipif(not SHARED_PDFS.is_dir(), reason="the shared PDFs are not on this machine")
def test_a_real_pdfs_chunks_know_their_page_and_outline_entry(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    from pypdf import PdfReader

    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(SHARED_PDFS / OUTLINED, folder / OUTLINED)
    pages = [" ".join(page.extract_text().split()) for page in PdfReader(folder / OUTLINED).pages]
    run = run_cli(capsys, "search", str(folder), "text", "-k", "100", "--json", *CHUNKS)
    assert run.status == 0, run.err
    hits = sorted(run.json["results"], key=lambda hit: hit["source"]["start"])
    assert len(hits) > 20 and all(hit["source"]["file"] == OUTLINED for hit in hits)
    for hit in hits:  # a chunk's page is where it starts: its first words are on that page as pypdf reads it
        words, page = hit["text"].split(), pages[hit["source"]["page"] - 1]
        assert " ".join(words[:4]) in page or any(page.endswith(" ".join(words[:n])) for n in (1, 2, 3)), hit
    # along the document, the heading in force changes as the outline's entries follow each other (every
    # section is longer than a chunk), and a section's first chunk is on the entry's page or after it
    sections: list[tuple[str, int]] = []
    for hit in hits:
        headings = hit["source"].get("headings")
        if headings and (not sections or sections[-1][0] != headings[-1]):
            sections.append((headings[-1], hit["source"]["page"]))
    assert [title for title, _ in sections] == [title for title, _ in OUTLINE]
    assert all(page >= entry_page for (_, page), (_, entry_page) in zip(sections, OUTLINE, strict=True))
    top = run_cli(capsys, "prompt", str(folder), "Huardest gefburn Kjift", "-k", "1", *CHUNKS)
    best = run_cli(capsys, "search", str(folder), "Huardest gefburn Kjift", "-k", "1", "--json", *CHUNKS)
    source = best.json["results"][0]["source"]
    assert f"[1] ({OUTLINED} p. {source['page']} › {source['headings'][0]})" in top.out
