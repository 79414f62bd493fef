"""Shared by the hardening tests: corpora on disk, the CLI run in a way that proves nothing leaked or was written."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_support import Run, run_cli
from tests.test_loaders import listing, write_jsonl

ROOT = Path(__file__).resolve().parents[1]

# The 200 MB runs take about a minute on two cores: opt in with RANKLENS_SLOW=1.
slow = pytest.mark.skipif(os.environ.get("RANKLENS_SLOW") != "1", reason="slow: set RANKLENS_SLOW=1 to run")

# Every C0 control but newline, DEL and every C1 control: what must never reach a terminal raw.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
# Characters that reorder or hide text on screen; human output shows them as ⟨U+XXXX⟩.
BIDI_OR_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")

# Text that would style, link, retitle the terminal, write its clipboard or hide itself if it
# were ever interpreted; plus wide, combining and right-to-left text.
HOSTILE = {
    "markup": "[bold]bold[/] [link=https://evil.example]click[/link] [/] [red on blue]",
    "csi": "colour \x1b[31mred\x1b[0m erase \x1b[2J\x1b[H home",
    "osc-title": "title \x1b]0;pwned title\x07 end",
    "osc8": "hyperlink \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ end",
    "osc52": "clipboard \x1b]52;c;cm0gLXJmIH4=\x07 end",
    "c1": "eight-bit \x9b31m csi \x9d0;title\x9c end",
    "controls": "nul \x00 bell \x07 backspace \x08 delete \x7f return \r tab \t vertical \x0b end",
    "invisible": "zero\u200bwidth joiner\u200d rtl \u202eoverride\u202c isolate \u2067x\u2069 bom \ufeff end",
    "cjk": "東京都に住んでいます 検索エンジン",
    "emoji": "ラーメン🍜が好き 👩‍👩‍👧 family 🔍📄",
}
LONG_LINE = " ".join(f"parola{i % 500}" for i in range(10_000))  # one line of ~100,000 characters


def run_on(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> Run:
    """``ranklens *argv`` in-process, asserting nothing in ``folder`` was created, changed or removed."""
    before = listing(folder)
    run = run_cli(capsys, *argv)
    assert listing(folder) == before, "ranklens wrote into the corpus folder"
    return run


def assert_error(run: Run, *needles: str) -> None:
    """Exit status 2 and exactly one line on stderr, naming every needle, no traceback, nothing on stdout."""
    assert run.status == 2, (run.status, run.err)
    assert run.out == ""
    lines = run.err.strip("\n").split("\n")
    assert len(lines) == 1, run.err
    assert lines[0].startswith("ranklens"), lines[0]
    assert "Traceback" not in run.err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert_terminal_safe(run.err)


def assert_terminal_safe(text: str) -> None:
    """No character that a terminal would act on, or that would reorder or hide text."""
    assert not RAW_CONTROL.findall(text), sorted(set(RAW_CONTROL.findall(text)))
    assert not BIDI_OR_INVISIBLE.findall(text), sorted(set(BIDI_OR_INVISIBLE.findall(text)))


def stderr_lines(run: Run, kind: str) -> list[str]:
    """The ``ranklens: KIND: ...`` lines of a run's stderr."""
    return [line for line in run.err.splitlines() if line.startswith(f"ranklens: {kind}: ")]


def text_folder(folder: Path, files: dict[str, bytes | str]) -> Path:
    """A folder of text files; str contents are written as UTF-8, bytes as they are."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return folder


def beir_folder(folder: Path, records: list[dict], queries: list[dict] = (), qrels: str = "",
                toml: str = "") -> Path:
    """A BEIR folder; the optional files only when given."""
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "corpus.jsonl", records)
    if queries:
        write_jsonl(folder / "queries.jsonl", list(queries))
    if qrels:
        (folder / "qrels").mkdir(exist_ok=True)
        (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + qrels, encoding="utf-8")
    if toml:
        (folder / "ranklens.toml").write_text(toml, encoding="utf-8")
    return folder


def hostile_corpus(folder: Path) -> Path:
    """A BEIR folder whose ids, titles, texts and questions are all hostile."""
    records = [{"_id": f"{name} \x1b[7m{i}", "title": text[:30], "text": f"{text} comune"}
               for i, (name, text) in enumerate(HOSTILE.items())]
    records.append({"_id": "long", "title": "[b]long[/b]", "text": LONG_LINE})
    queries = [
        {"_id": "q-csi", "text": "colour \x1b[31mred\x1b[0m comune", "answer": "red"},
        {"_id": "q-osc", "text": "\x1b]0;pwned\x07 clipboard \u202eevil", "answer": "clipboard"},
        {"_id": "q-none", "text": "[bold]nothing[/] \x9b here"},
    ]
    return beir_folder(folder, records, queries)


@dataclass
class Measured:
    status: int
    out: bytes
    err: bytes
    peak_rss: int  # bytes, the child's peak resident set


def measured_run(argv: list[str], stdout: int | None = subprocess.PIPE) -> Measured:
    """``ranklens *argv`` as a separate process, with its peak memory.

    A wrapper process runs the command as its only child, so RUSAGE_CHILDREN
    measures that command and nothing else the test session started.
    """
    wrapper = (
        "import json, resource, subprocess, sys\n"
        "status = subprocess.call([sys.executable, '-m', 'ranklens.cli.main', *sys.argv[1:]])\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"  # kilobytes on Linux
        "sys.stderr.write('\\n' + json.dumps({'status': status, 'peak': peak}))\n"
    )
    result = subprocess.run([sys.executable, "-c", wrapper, *argv], cwd=ROOT, stdout=stdout,
                            stderr=subprocess.PIPE, timeout=600)
    err, _, tail = result.stderr.rpartition(b"\n")
    report = json.loads(tail)
    return Measured(report["status"], result.stdout or b"", err, report["peak"])
