"""Where a chunk came from: file, page and heading path, by hand on a small document, then through
search --json, the prompt's citations and the Search tab's detail on the handbook folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.corpus import Chunk, Document
from ranklens.engine.corpus.source import chunk_source, citation, headings_at, page_at
from tests.support.cli import run_cli
from tests.support.documents import handbook

# pages start at 0, 10 and 30; headings: A (level 1) at 0, A.1 (2) at 5, A.1.a (3) at 12, B (1) at 30
DOC = Document("d", "Doc", "x" * 40, headings=((0, 1, "A"), (5, 2, "A.1"), (12, 3, "A.1.a"), (30, 1, "B")),
               pages=(0, 10, 30), file="folder/doc.pdf")


@pytest.mark.parametrize(("offset", "page", "path"), [
    (0, 1, ["A"]), (4, 1, ["A"]), (5, 1, ["A", "A.1"]), (10, 2, ["A", "A.1"]), (12, 2, ["A", "A.1", "A.1.a"]),
    (29, 2, ["A", "A.1", "A.1.a"]), (30, 3, ["B"]), (39, 3, ["B"]),
])
def test_page_and_heading_path_at_an_offset(offset: int, page: int, path: list[str]) -> None:
    assert page_at(DOC, offset) == page
    assert headings_at(DOC, offset) == path


def test_a_source_has_only_the_keys_known() -> None:
    chunk = Chunk("d#1", "d", 1, 12, 20, "x" * 8)
    assert chunk_source(DOC, chunk) == {"file": "folder/doc.pdf", "page": 2, "headings": ["A", "A.1", "A.1.a"],
                                        "start": 12, "end": 20}
    assert citation(DOC, chunk) == "doc.pdf p. 2 › A › A.1 › A.1.a"
    plain = Document("n", "Notes", "x" * 40)
    assert chunk_source(plain, chunk) == {"start": 12, "end": 20}
    assert citation(plain, chunk) == "Notes"


SMALL = ("--size", "9", "--overlap", "0")  # small chunks, so the PDF's pages and sections fall apart


def test_search_json_gives_each_hit_its_source(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = handbook(tmp_path / "handbook")
    run = run_cli(capsys, "search", str(folder), "team lead two weeks ahead", "--json", "-k", "1", *SMALL)
    assert run.status == 0
    (hit,) = run.json["results"]
    # page 2 of the PDF, under "Leave" then "Requests" (tests/support/documents.py writes them so)
    assert hit["source"]["file"] == "handbook.pdf" and hit["source"]["page"] == 2
    assert hit["source"]["headings"] == ["Leave", "Requests"]
    assert hit["text"] == "requests go to the team lead two weeks ahead."
    for query, file, headings in (("lunch canteen noon", "onboarding.md", ["Onboarding", "First day"]),
                                  ("nearest stairs lift", "safety/fire.html", ["Fire safety", "Evacuation"]),
                                  ("hotel cap Zurich francs", "expenses.docx", ["Travel", "Meals"]),  # Travel: level 1
                                  ("coffee machine Fridays", "faq.csv", None),
                                  ("escalier alarme", "reglement.txt", None),
                                  ("boxing day calendar", "notes-windows.txt", None)):
        run = run_cli(capsys, "search", str(folder), query, "--json", "-k", "1", *SMALL)
        (hit,) = run.json["results"]
        assert hit["source"]["file"] == file, query
        assert hit["source"].get("headings") == headings, query
        assert "page" not in hit["source"]
    run = run_cli(capsys, "search", str(folder), "guest network password Monday", "--json", "-k", "1", *SMALL)
    assert run.json["results"][0]["source"] | {"start": 0, "end": 0} == {
        "file": "onboarding-deck.pptx", "page": 3, "headings": ["Wifi"], "start": 0, "end": 0}


def test_source_offsets_are_the_chunks_span_of_its_document(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    from ranklens.engine.corpus.loaders import load_corpus

    folder = handbook(tmp_path / "handbook")
    run = run_cli(capsys, "search", str(folder), "visitors register reception", "--json", *SMALL)
    documents = {d.id: d for d in load_corpus(folder).documents}
    for hit in run.json["results"]:
        source = hit["source"]
        assert documents[hit["doc_id"]].text[source["start"]:source["end"]] == hit["text"]


def test_search_json_of_a_jsonl_corpus_has_offsets_only(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "search", "studio-alfa", "password", "--json", "-k", "3")
    assert run.json["results"]
    assert all(set(hit["source"]) == {"start", "end"} for hit in run.json["results"])


def test_the_prompt_cites_file_page_and_headings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = handbook(tmp_path / "handbook")
    run = run_cli(capsys, "prompt", str(folder), "visitors sign the register", "-k", "1", *SMALL)
    assert run.status == 0
    assert "[1] (handbook.pdf p. 3 › Security) Security\nVisitors sign the register" in run.out


async def test_the_search_tabs_detail_says_where_the_chunk_came_from(tmp_path: Path) -> None:
    from tests.support.app import notifications, running, search
    from tests.test_tui_search import detail_text

    folder = handbook(tmp_path / "handbook")
    (folder / "ranklens.toml").write_text("size = 9\noverlap = 0\n", encoding="utf-8")
    async with running(str(folder), size=(100, 30)) as pilot:
        pane = await search(pilot, "visitors sign the register reception")
        assert pane._rows[0].hit.chunk.doc_id == "handbook.pdf"
        assert "handbook.pdf p. 3 › Security" in detail_text(pilot.app)
        # the files not read are said on opening, as on the command line
        assert "skipped 3 files of kinds no reader reads: 2 .xlsx, 1 .zip" in notifications(pilot.app)
