"""A folder of documents: PDF extraction against pypdf's own extract_text, and a 1,000-file folder's opens.

Extraction: every readable PDF of ``../shared/data/documents/pdf`` (the encrypted
one aside) read by ranklens' reader (pages, tidied text, outline as headings) and by
pypdf alone (``extract_text`` page by page), the same bytes, best of a few rounds.
The folder: 1,000 files of every format (Markdown, text, HTML, PDF, and Word and
PowerPoint when the documents extra is installed), opened with an empty extraction
cache, opened again unchanged, and opened after one PDF changed; in this process
(pypdf and the readers already imported on the re-opens, as in a running app).
"""
from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path

from benchmarks.common import Table
from benchmarks.corpora import DATA

PDFS = DATA / "documents" / "pdf"
SKIPPED_PDFS = ("libreoffice-writer-password.pdf",)  # needs a password: neither reads it


def run(quick: bool) -> list[Table]:
    return [_extraction(rounds=1 if quick else 5), _folder(100 if quick else 1000)]


def _extraction(rounds: int) -> Table:
    from pypdf import PdfReader

    from ranklens.engine.corpus.loaders.formats import pdf

    table = Table("Documents: PDF extraction, ranklens' reader against pypdf's extract_text",
                  ["reader", "files", "pages", "s (best round)", "pages/s", "ratio"])
    files = sorted(p for p in PDFS.glob("*.pdf") if p.name not in SKIPPED_PDFS) if PDFS.is_dir() else []
    if not files:
        table.notes.append(f"not run: no PDFs in {PDFS.relative_to(DATA.parent)}")
        return table
    blobs = [(p.name, p.read_bytes()) for p in files]
    pages = sum(len(PdfReader(io.BytesIO(data)).pages) for _, data in blobs)

    def pypdf_alone() -> None:
        for _, data in blobs:
            for page in PdfReader(io.BytesIO(data)).pages:
                page.extract_text()

    def ranklens_reader() -> None:
        for name, data in blobs:
            pdf.read(data, name, [])

    own = _best(pypdf_alone, rounds)
    ours = _best(ranklens_reader, rounds)
    table.add("pypdf extract_text", len(blobs), pages, f"{own:.3f}", f"{pages / own:,.0f}", "1.00")
    table.add("ranklens (pages, outline)", len(blobs), pages, f"{ours:.3f}", f"{pages / ours:,.0f}",
              f"{own / ours:.2f}")
    table.notes.append("ratio: ranklens' pages/s over pypdf's (aim: at least 0.8).")
    return table


def _folder(count: int) -> Table:
    from ranklens.engine.corpus.cache import CorpusCache
    from ranklens.engine.corpus.loaders import load_corpus

    table = Table(f"Documents: a folder of {count:,} files opened (extraction cache empty, then kept)",
                  ["open", "s", "documents"])
    with tempfile.TemporaryDirectory() as scratch:
        folder, cache = _mixed_folder(Path(scratch) / "docs", count), CorpusCache(Path(scratch) / "cache")
        for label, change in (("first (every file read)", None), ("again, unchanged", None),
                              ("again, one PDF changed", folder / "0003.pdf")):
            if change is not None:
                change.write_bytes(_pdf(["a changed page"]))
            started = time.perf_counter()
            corpus = load_corpus(folder, cache=cache)
            table.add(label, f"{time.perf_counter() - started:.2f}", len(corpus.documents))
    table.notes.append("open: load_corpus alone (reading and extracting, no chunking or index), in one process.")
    return table


def _mixed_folder(folder: Path, count: int) -> Path:
    """``count`` files, a tenth PDFs of three pages, the rest Markdown, text, HTML, Word and PowerPoint."""
    makers = [("md", lambda i: f"# Note {i}\n\n**Item {i}** of the *handbook*.\n".encode()),
              ("txt", lambda i: f"Plain note {i} about leave and expenses.".encode()),
              ("html", lambda i: f"<html><title>Page {i}</title><p>Visitor rule {i}</p></html>".encode()),
              ("pdf", lambda i: _pdf([f"page one of {i}", "page two", "page three"]))]
    try:
        import docx  # noqa: F401
        import pptx  # noqa: F401

        from tests.support.documents import docx_bytes, pptx_bytes

        word, slides = docx_bytes(), pptx_bytes()
        makers += [("docx", lambda i: word), ("pptx", lambda i: slides)]
    except ImportError:  # without the documents extra: the other formats only
        pass
    folder.mkdir(parents=True)
    for i in range(count):
        suffix, make = makers[i % len(makers)]
        (folder / f"{i:04d}.{suffix}").write_bytes(make(i))
    return folder


def _pdf(lines: list[str]) -> bytes:
    from tests.support.documents import pdf_bytes

    return pdf_bytes([[line] for line in lines])


def _best(job, rounds: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        job()
        times.append(time.perf_counter() - started)
    return min(times)
