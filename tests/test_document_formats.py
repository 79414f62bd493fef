"""A folder of documents: each format's reader (Markdown, HTML, PDF, Word, PowerPoint, CSV, encodings), the
files skipped and why, on real files (the shared PDFs of pypdf's maintainers, Word and PowerPoint files
written by python-docx and python-pptx) with the expected text written out by hand."""
from __future__ import annotations

from collections.abc import Callable

import shutil
import sys
from pathlib import Path

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.corpus.loaders.formats import format_of
from ranklens.engine.corpus.loaders.formats.building import Unreadable
from tests.support.documents import SHARED_PDFS, docx_bytes, handbook, pdf_bytes, pptx_bytes
from tests.support.files import listing, text_folder

shared = pytest.mark.skipif(not SHARED_PDFS.is_dir(), reason="the shared PDFs are not on this machine")


def read(name: str, data: bytes) -> tuple[list, list[str]]:
    notes: list[str] = []
    spec = format_of(name)
    assert spec is not None
    return spec.reader()(data, name, notes), notes


def test_markdown_is_indexed_without_its_markup() -> None:
    (doc,), notes = read("leave.md", b"# Leave\n\n## Requests\n\nYou get **25 days** of *paid* annual leave.\n\n"
                                     b"- Ask [your lead](https://x.org) first.\n\n```\nform A-12\n```\n\n"
                                     b"| Days | Who |\n|---|---|\n| 25 | staff |\n")
    assert doc.text == ("Leave\n\nRequests\n\nYou get 25 days of paid annual leave.\n\nAsk your lead first.\n\n"
                        "form A-12\n\nDays | Who\n25 | staff")
    assert doc.title == "Leave" and notes == []
    assert doc.headings == ((0, 1, "Leave"), (7, 2, "Requests"))


def test_html_keeps_visible_text_title_and_headings() -> None:
    page = (b"<html><head><title>Fire  safety</title><style>p{}</style></head><body>"
            b"<script>var hidden = 1;</script><h1>Fire</h1><p>Use the <b>stairs</b>&nbsp;&amp; exits.</p>"
            b"<h2>Drills</h2><ul><li>Monthly</li><li>Logged</li></ul><noscript>enable js</noscript></body></html>")
    (doc,), _ = read("fire.html", page)
    assert doc.title == "Fire safety"
    assert doc.text == "Fire\n\nUse the stairs & exits.\n\nDrills\n\nMonthly\n\nLogged"
    assert doc.headings == ((0, 1, "Fire"), (31, 2, "Drills"))
    assert doc.text[31:].startswith("Drills")


@shared
def test_pdf_pages_start_where_pypdf_reads_each_page() -> None:
    from pypdf import PdfReader

    path = SHARED_PDFS / "pdflatex-4-pages.pdf"
    (doc,), notes = read(path.name, path.read_bytes())
    pages = [page.extract_text() for page in PdfReader(path).pages]
    assert len(doc.pages) == 4 and doc.pages[0] == 0 and notes == []
    for number, own in enumerate(pages):
        end = doc.pages[number + 1] if number + 1 < len(pages) else len(doc.text)
        # the same words, page by page (spaces tidied)
        assert doc.text[doc.pages[number]:end].split() == own.split()


@shared
def test_pdf_outline_entries_are_headings_found_on_their_pages() -> None:
    path = SHARED_PDFS / "pdflatex-outline.pdf"
    (doc,), _ = read(path.name, path.read_bytes())
    # the outline (hand-read): Foo Bar Baz Foo on page 2, Bar Baz Foo on page 3, Bar Baz on page 4
    assert [title for _, _, title in doc.headings] == ["Foo", "Bar", "Baz"] * 3
    pages = [sum(start >= p for p in doc.pages) for start, _, _ in doc.headings]
    assert pages == [2, 2, 2, 2, 3, 3, 3, 4, 4]
    assert all(doc.text[start:start + len(title)] == title for start, _, title in doc.headings)
    assert len({start for start, _, _ in doc.headings}) == 9


@shared
@pytest.mark.parametrize(("name", "why"), [
    ("libreoffice-writer-password.pdf", "encrypted PDF (a password is needed)"),
])
def test_unreadable_pdfs_say_why(name: str, why: str) -> None:
    with pytest.raises(Unreadable, match=why.replace("(", r"\(").replace(")", r"\)")):
        read(name, (SHARED_PDFS / name).read_bytes())


@shared
def test_pdf_pages_without_text_are_counted() -> None:
    path = SHARED_PDFS / "imagemagick-images.pdf"
    _, notes = read(path.name, path.read_bytes())
    assert notes == ["imagemagick-images.pdf: 2 of 6 pages without text (scanned or images only?)"]


def test_a_pdf_without_any_text_and_a_broken_one_are_unreadable() -> None:
    with pytest.raises(Unreadable, match=r"no text layer in its 2 pages"):
        read("scan.pdf", pdf_bytes([[], []]))
    with pytest.raises(Unreadable, match=r"not a readable PDF"):
        read("broken.pdf", pdf_bytes([["hello"]])[:200])


def test_word_paragraphs_headings_and_tables() -> None:
    (doc,), _ = read("expenses.docx", docx_bytes())
    assert doc.title == "Expenses policy"
    assert doc.text == ("Expenses policy\n\nTravel\n\nTrain tickets in second class are refunded within thirty days."
                        "\n\nMeals\n\nA dinner abroad is refunded up to forty euros.\n\n"
                        "City | Hotel cap\nZurich | two hundred francs")
    assert [(level, title) for _, level, title in doc.headings] == [(1, "Expenses policy"), (1, "Travel"),
                                                                    (2, "Meals")]


def test_slides_are_pages_titled_by_their_headings() -> None:
    (doc,), _ = read("deck.pptx", pptx_bytes())
    assert [doc.text[start:].split("\n")[0] for start in doc.pages] == ["Welcome", "Laptops", "Wifi"]
    assert [(start, title) for start, _, title in doc.headings] == list(zip(doc.pages, ["Welcome", "Laptops", "Wifi"]))
    assert "Every laptop is encrypted before its first login." in doc.text


def test_csv_and_tsv_rows_are_documents() -> None:
    rows, notes = read("faq.csv", b"ID,Title,Text\nq1,Print,\"Badge, then print\"\n,,orphan text\nq2,,Coffee\n")
    assert [(r.key, r.title, r.text) for r in rows] == [("q1", "Print", "Badge, then print"), ("q2", "", "Coffee")]
    assert notes == ["faq.csv: 1 rows without an id or a text left out"]
    rows, _ = read("faq.tsv", b"doc_id\tcontent\nt1\ttab separated\n")
    assert [(r.key, r.text) for r in rows] == [("t1", "tab separated")]
    with pytest.raises(Unreadable, match=r"no id and text columns .* found: name, price"):
        read("prices.csv", b"name,price\ntea,3\n")


@pytest.mark.parametrize(("data", "text", "note"), [
    ("Règlement : évacuez".encode("latin-1"), "Règlement : évacuez", "not UTF-8, read as Latin-1 (ISO-8859-1)"),
    ("“Quoted” – 5 €".encode("cp1252"), "“Quoted” – 5 €", "not UTF-8, read as Windows-1252"),
    ("Unicode notes ü".encode("utf-16"), "Unicode notes ü", None),
    ("\ufeffwith a mark é".encode("utf-8"), "with a mark é", None),
    ("plain é".encode(), "plain é", None),
])
def test_text_encodings_are_detected_and_said(data: bytes, text: str, note: str | None) -> None:
    (doc,), notes = read("notes.txt", data)
    assert doc.text == text
    assert notes == ([f"notes.txt: {note}"] if note else [])


def test_the_handbook_folder_loads_every_format_and_lists_what_it_skipped(tmp_path: Path) -> None:
    folder = handbook(tmp_path / "handbook")
    before = listing(folder)
    corpus = load_corpus(folder, use_cache=False)
    assert sorted(d.id for d in corpus.documents) == [
        "expenses.docx", "faq-1", "faq-2", "handbook.pdf", "notes-windows.txt", "onboarding-deck.pptx",
        "onboarding.md", "reglement.txt", "safety/fire.html",
    ]
    by_id = {d.id: d for d in corpus.documents}
    assert by_id["faq-2"].file == "faq.csv" and by_id["safety/fire.html"].file == "safety/fire.html"
    assert by_id["reglement.txt"].text == "Règlement intérieur : en cas d'alarme, évacuez par l'escalier."
    assert "never indexed" not in by_id["safety/fire.html"].text
    assert list(corpus.warnings) == ["reglement.txt: not UTF-8, read as Latin-1 (ISO-8859-1)",
                                     "skipped 3 files of kinds no reader reads: 2 .xlsx, 1 .zip"]
    assert listing(folder) == before


def test_a_missing_reader_package_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = text_folder(tmp_path / "docs", {"a.docx": docx_bytes(), "b.docx": docx_bytes(), "c.txt": "tea"})
    monkeypatch.setitem(sys.modules, "docx", None)  # import docx now raises ImportError, as when not installed
    corpus = load_corpus(folder, use_cache=False)
    assert [d.id for d in corpus.documents] == ["c.txt"]
    assert list(corpus.warnings) == [
        "skipped 2 Word files: reading them needs python-docx; pip install 'ranklens[documents]'"]


@shared
def test_a_folder_of_real_pdfs_loads_around_the_unreadable_ones(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in ("minimal-document.pdf", "libreoffice-writer-password.pdf", "multicolumn.pdf", "habibi.pdf"):
        shutil.copy(SHARED_PDFS / name, folder / name)
    (folder / "truncated.pdf").write_bytes((SHARED_PDFS / "minimal-document.pdf").read_bytes()[:300])
    corpus = load_corpus(folder, use_cache=False)
    assert [d.id for d in corpus.documents] == ["habibi.pdf", "minimal-document.pdf", "multicolumn.pdf"]
    assert corpus.warnings[0] == "skipped libreoffice-writer-password.pdf: encrypted PDF (a password is needed)"
    assert corpus.warnings[1].startswith("skipped truncated.pdf: not a readable PDF")
    assert len(corpus.warnings) == 2


def _damaged(good: bytes, part: str) -> bytes:
    """``good`` (a zip) with ``part`` cut in half: its XML no longer parses."""
    import io
    import zipfile

    source, out = zipfile.ZipFile(io.BytesIO(good)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as damaged:
        for info in source.infolist():
            data = source.read(info.filename)
            damaged.writestr(info, data[:len(data) // 2] if info.filename.endswith(part) else data)
    return out.getvalue()


# The files are made when the test runs, not at collection: a zip holds the time it was written, and xdist's
# workers must collect the same test ids (ids name the case, never the bytes).
@pytest.mark.parametrize(("name", "make", "why"), [
    ("a.docx", lambda: b"not a zip", "not a readable Word document"),
    ("b.docx", lambda: _damaged(docx_bytes(), "document.xml"), "not a readable Word document (XMLSyntaxError"),
    ("c.pptx", lambda: _damaged(pptx_bytes(), "slide1.xml"), "not a readable PowerPoint file (XMLSyntaxError"),
    ("d.pptx", lambda: b"", "not a readable PowerPoint file"),
], ids=["not-a-zip", "docx-xml-cut", "pptx-xml-cut", "empty-pptx"])
def test_damaged_word_and_powerpoint_files_are_unreadable(name: str, make: Callable[[], bytes], why: str) -> None:
    with pytest.raises(Unreadable) as raised:
        read(name, make())
    assert str(raised.value).startswith(why)


def test_a_damaged_page_or_outline_costs_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PageObject, PdfReader
    from pypdf.errors import PdfReadError

    data = pdf_bytes([["first page"], ["second page"], ["third page"]], [("Second", 2, 1)])
    extract = PageObject.extract_text

    def failing_on_the_second(page: PageObject, *args, **kwargs) -> str:  # noqa: ANN002, ANN003
        text = extract(page, *args, **kwargs)
        if "second" in text:
            raise PdfReadError("damaged content stream")
        return text

    monkeypatch.setattr(PageObject, "extract_text", failing_on_the_second)
    (doc,), notes = read("report.pdf", data)
    assert doc.text == "first page\n\nthird page" and doc.pages == (0, 12, 12)
    assert notes == ["report.pdf: page 2 not readable, left out"]
    monkeypatch.setattr(PageObject, "extract_text", extract)
    monkeypatch.setattr(PdfReader, "outline", property(lambda self: 1 / 0))
    with pytest.raises(ZeroDivisionError):  # an error no damaged file makes is not hidden
        read("report.pdf", data)
    monkeypatch.setattr(PdfReader, "outline", property(lambda self: self.trailer["/NoSuchKey"]))
    (doc,), _ = read("report.pdf", data)
    assert doc.text == "first page\n\nsecond page\n\nthird page" and doc.headings == ()


def test_slow_formats_report_progress_file_by_file_and_can_be_cancelled(tmp_path: Path) -> None:
    from ranklens.engine.errors import Cancelled

    files = {f"{i}.pdf": pdf_bytes([[f"page of file {i}"]]) for i in range(3)}
    folder = text_folder(tmp_path / "pdfs", {**files, **{f"{i}.txt": "note" for i in range(5)}})
    seen: list[tuple[int, int]] = []
    load_corpus(folder, progress=lambda done, total, label: seen.append((done, total)), use_cache=False)
    # files in name order (0.pdf, 0.txt, 1.pdf, ...): each PDF told, text files every hundredth
    assert seen[:3] == [(0, 8), (2, 8), (4, 8)]

    def cancel_at_the_second(done: int, total: int, label: str) -> None:
        if done == 2:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        load_corpus(folder, progress=cancel_at_the_second, use_cache=False)
