"""The benchmark script's smoke run: every section prints its table and the script exits 0.

Timings are never asserted (machines are noisy); this only checks that
``python -m benchmarks.run --quick`` works end to end on tiny inputs.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TITLES = ("### Machine", "### BM25 (lucene", "### BM25 ratios", "### TF-IDF (scikit-learn defaults)",
          "### IVF:", "### TUI:", "### BM25 on real collections")


def test_quick_run_prints_every_table(tmp_path: Path) -> None:
    out = tmp_path / "tables.md"
    done = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick", "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for title in TITLES:
        assert title in done.stdout, f"missing {title!r} in:\n{done.stdout[-3000:]}"
    assert "Traceback" not in done.stdout + done.stderr
    written = out.read_text(encoding="utf-8")
    assert "### BM25 ratios" in written and "| 2k | ranklens |" in written


def test_unknown_section_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.run", "--only", "nope"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unknown section 'nope'" in done.stderr
