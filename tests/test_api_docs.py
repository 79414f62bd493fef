"""docs/python.md's examples run as written: every ```python block, in order, as one session.

A block whose first line is ``# needs pandas`` is skipped (saying so) without pandas, the
notebook extra. The blocks run in a temporary folder (one writes a run file there).
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks() -> list[str]:
    return BLOCK.findall(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_examples() -> None:
    assert len(blocks()) >= 8


def test_every_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                            ) -> None:
    monkeypatch.chdir(tmp_path)
    session: dict[str, object] = {"__name__": "docs_python"}
    skipped = []
    for number, code in enumerate(blocks(), 1):
        if code.startswith("# needs pandas") and importlib.util.find_spec("pandas") is None:
            skipped.append(number)
            continue
        exec(compile(code, f"{PAGE.name}, example {number}", "exec"), session)  # noqa: S102
    out = capsys.readouterr().out
    assert "# studio-alfa · 18 chunks · TF-IDF" in out  # the examples print what the command line prints
    if skipped:
        pytest.skip(f"examples {skipped} need pandas (pip install 'ranklens[notebook]')")
