"""Documents of every format a folder of documents reads, made in the test: a company handbook.

The PDF is written with pypdf's own writer (text in content streams, an
outline), the Word and PowerPoint files with python-docx and python-pptx:
real files of those formats, built here instead of committed as binaries.
"""
from __future__ import annotations

import io
from pathlib import Path

SHARED_PDFS = Path(__file__).resolve().parents[3] / "shared" / "data" / "documents" / "pdf"


def pdf_bytes(pages: list[list[str]], outline: list[tuple[str, int, int]] = (), title: str = "") -> bytes:
    """A PDF of ``pages`` (each a list of lines), with ``outline`` entries (title, page from 1, depth from 1)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    }))
    for lines in pages:
        page = writer.add_blank_page(612, 792)
        shown = " ".join(f"({_escaped(line)}) Tj T*" for line in lines)
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 11 Tf 14 TL 72 720 Td {shown} ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject({
            NameObject("/Font"): DictionaryObject({NameObject("/F1"): font}),
        })
    parents: list = [None]
    for heading, page_number, depth in outline:
        del parents[depth:]
        parents.append(writer.add_outline_item(title=heading, page_number=page_number - 1, parent=parents[depth - 1]))
    if title:
        writer.add_metadata({"/Title": title})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _escaped(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def docx_bytes() -> bytes:
    """A Word handbook chapter: a title, headings, paragraphs and a table."""
    import docx

    document = docx.Document()
    document.add_paragraph("Expenses policy", style="Title")
    document.add_heading("Travel", level=1)
    document.add_paragraph("Train tickets in second class are refunded within thirty days.")
    document.add_heading("Meals", level=2)
    document.add_paragraph("A dinner abroad is refunded up to forty euros.")
    table = document.add_table(rows=2, cols=2)
    for (row, column), text in {(0, 0): "City", (0, 1): "Hotel cap", (1, 0): "Zurich",
                                (1, 1): "two hundred francs"}.items():
        table.cell(row, column).text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_bytes() -> bytes:
    """An onboarding deck: three slides with titles and bullet text."""
    from pptx import Presentation

    deck = Presentation()
    for title, body in (("Welcome", "Badges are handed out at the front desk."),
                        ("Laptops", "Every laptop is encrypted before its first login."),
                        ("Wifi", "The guest network password changes every Monday.")):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


HANDBOOK_PDF_PAGES = [
    ["Company handbook", "Contents: Leave, Requests, Security."],
    ["Leave", "Employees get twenty five days of paid annual leave.", "Requests",
     "Leave requests go to the team lead two weeks ahead."],
    ["Security", "Visitors sign the register at the reception desk."],
]
HANDBOOK_PDF_OUTLINE = [("Leave", 2, 1), ("Requests", 2, 2), ("Security", 3, 1)]

MARKDOWN = """# Onboarding

## First day

Bring **your passport** and a `bank card` to the *first* meeting.

- Lunch is served at [the canteen](https://example.com) from noon.
- Parking permits come from facilities.

```
make setup
```
"""

HTML = """<!doctype html><html><head><title>Fire safety</title>
<style>body { color: red }</style><script>var secret = "never indexed";</script></head>
<body><h1>Fire safety</h1><h2>Evacuation</h2><p>Leave the building by the
<b>nearest stairs</b>, never the lift.</p><table><tr><td>Assembly point</td><td>the car park</td></tr></table>
</body></html>"""


def handbook(folder: Path) -> Path:
    """A mixed folder: Markdown, HTML, PDF, Word, PowerPoint, CSV, Latin-1 and UTF-16 text, files to skip."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {
        "onboarding.md": MARKDOWN.encode(),
        "safety/fire.html": HTML.encode(),
        "handbook.pdf": pdf_bytes(HANDBOOK_PDF_PAGES, HANDBOOK_PDF_OUTLINE, title="Company handbook"),
        "expenses.docx": docx_bytes(),
        "onboarding-deck.pptx": pptx_bytes(),
        "faq.csv": b"id,title,text\nfaq-1,Printing,The printer on floor two needs a badge.\n"
                   b"faq-2,Coffee,The coffee machine is cleaned on Fridays.\n",
        "reglement.txt": "Règlement intérieur : en cas d'alarme, évacuez par l'escalier.".encode("latin-1"),
        "notes-windows.txt": "Holiday calendar: the office closes on boxing day.".encode("utf-16"),
        "budget.xlsx": b"PK\x03\x04 not really a spreadsheet",
        "archive.zip": b"PK\x03\x04",
        "old/budget-2023.xlsx": b"PK\x03\x04",
    }
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return folder
