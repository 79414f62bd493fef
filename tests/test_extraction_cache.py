"""Slow formats' extracted text kept per file digest: an unchanged folder re-opens without its readers, a
changed file is read again alone, a damaged entry is read again, and nothing is kept without a cache."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ranklens.engine.corpus.cache import CorpusCache
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.corpus.loaders.formats import html_page, pdf, word
from tests.support.documents import HTML, docx_bytes, pdf_bytes
from tests.support.files import listing, text_folder


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each slow reader ran, by file name."""
    counted: Counter[str] = Counter()
    for module in (pdf, word, html_page):
        def counting(data: bytes, name: str, notes: list[str], read=module.read) -> list:  # noqa: ANN001
            counted[name] += 1
            return read(data, name, notes)
        monkeypatch.setattr(module, "read", counting)
    return counted


def folder_of_documents(folder: Path) -> Path:
    return text_folder(folder, {
        "a.pdf": pdf_bytes([["first page"], ["second page"]], [("Second", 2, 1)]),
        "b.pdf": pdf_bytes([["another file"]]),
        "c.docx": docx_bytes(),
        "d.html": HTML,
        "e.txt": "plain text, never kept",
    })


def test_an_unchanged_folder_reopens_without_reading_its_files_again(tmp_path: Path, reads: Counter[str]) -> None:
    folder = folder_of_documents(tmp_path / "docs")
    cache = CorpusCache(tmp_path / "cache")
    first = load_corpus(folder, cache=cache)
    assert reads == Counter({"a.pdf": 1, "b.pdf": 1, "c.docx": 1, "d.html": 1})
    again = load_corpus(folder, cache=cache)
    assert reads == Counter({"a.pdf": 1, "b.pdf": 1, "c.docx": 1, "d.html": 1})
    assert list(again.documents) == list(first.documents)  # text, title, pages, headings and file alike
    assert again.document("a.pdf").pages == (0, 12) and again.document("a.pdf").headings == ((12, 1, "Second"),)


def test_a_changed_file_is_read_again_alone(tmp_path: Path, reads: Counter[str]) -> None:
    folder = folder_of_documents(tmp_path / "docs")
    cache = CorpusCache(tmp_path / "cache")
    load_corpus(folder, cache=cache)
    (folder / "b.pdf").write_bytes(pdf_bytes([["changed words"]]))
    corpus = load_corpus(folder, cache=cache)
    assert reads == Counter({"a.pdf": 1, "b.pdf": 2, "c.docx": 1, "d.html": 1})
    assert corpus.document("b.pdf").text == "changed words"


def test_a_damaged_entry_is_read_again(tmp_path: Path, reads: Counter[str]) -> None:
    folder = folder_of_documents(tmp_path / "docs")
    cache = CorpusCache(tmp_path / "cache")
    first = load_corpus(folder, cache=cache)
    for entry in (tmp_path / "cache" / "extracted").rglob("pdf-*.json"):
        entry.write_text('{"documents": [["half', encoding="utf-8")
    again = load_corpus(folder, cache=cache)
    assert reads["a.pdf"] == 2 and reads["b.pdf"] == 2 and reads["c.docx"] == 1
    assert list(again.documents) == list(first.documents) and again.warnings == first.warnings


def test_the_notes_of_a_kept_file_are_said_again_with_its_name(tmp_path: Path) -> None:
    page = "<html><body><p>Caffè</p></body></html>".encode("latin-1")
    folder = text_folder(tmp_path / "docs", {"one.html": page, "copy/two.html": page})
    cache = CorpusCache(tmp_path / "cache")
    load_corpus(folder, cache=cache)
    assert list(load_corpus(folder, cache=cache).warnings) == [
        "one.html: not UTF-8, read as Latin-1 (ISO-8859-1)", "copy/two.html: not UTF-8, read as Latin-1 (ISO-8859-1)"]


def test_nothing_is_kept_without_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = folder_of_documents(tmp_path / "docs")
    monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / "cache"))
    before = listing(folder)
    load_corpus(folder, use_cache=False)
    assert not (tmp_path / "cache").exists()
    assert listing(folder) == before
