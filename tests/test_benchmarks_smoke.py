"""The benchmark script's smoke run: every section prints its table, no row holds an error, and
the "same tokens" rows hold numbers and agree with bm25s.

Timings are never asserted (machines are noisy); this checks that ``python -m benchmarks.run
--quick`` works end to end on tiny inputs and that its tables hold numbers, not error messages. One quick run
of every section the tests read is shared by them (a module fixture; the tests are one xdist group).
The real-collection section needs the collections beside the repository (``../shared/data``);
without them its test is skipped, and the skip says where it looked.
"""
from __future__ import annotations

import importlib.util

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import run as benchmarks_run
from benchmarks.bench_real import QUICK_COLLECTION
from benchmarks.corpora import DATA

REPO = Path(__file__).resolve().parents[1]
SYNTHETIC_TITLES = ("### Machine", "### BM25 (lucene", "### BM25 ratios", "### TF-IDF (scikit-learn defaults)",
                    "### IVF:", "### TUI:")
# A row that did not run may say only why it was not run; anything else is a failure.
ACCEPTED_REASONS = ("not installed (pip install ", "not run above ")
ERROR_TEXT = re.compile(r"\w+(Error|Exception)\b|Traceback|did not finish|killed|^exit \d+")
# bm25s scores in float32: the same tokens give the same top-10 up to float32 ties
FLOAT32_SCORE_DIFF = 1e-5

Table = list[dict[str, str]]


def run_benchmarks(tmp_path: Path, *argv: str) -> tuple[str, str]:
    """(stdout, the --out file) of a quick run that must exit 0 without a traceback."""
    out = tmp_path / "tables.md"
    done = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick", "--out", str(out), *argv],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout, out.read_text(encoding="utf-8")


def tables(markdown: str) -> dict[str, Table]:
    """Each ``### title`` of the output with its table's rows as {header: cell}."""
    found: dict[str, Table] = {}
    for block in markdown.split("### ")[1:]:
        title, _, body = block.partition("\n")
        lines = [line for line in body.splitlines() if line.startswith("|")]
        if not lines:
            found[title] = []
            continue
        header = [cell.strip() for cell in lines[0].strip("|").split("|")]
        found[title] = [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|"))))
                        for line in lines[2:]]
    return found


def table(found: dict[str, Table], prefix: str) -> Table:
    titles = [t for t in found if t.startswith(prefix)]
    assert len(titles) == 1, (prefix, list(found))
    return found[titles[0]]


def assert_no_error_cell(found: dict[str, Table]) -> None:
    for title, rows in found.items():
        for row in rows:
            for column, cell in row.items():
                assert not ERROR_TEXT.search(cell), f"{title!r}: {column} = {cell!r}"
            if "library" in row and "index build" in row and not re.match(r"[\d.]+ m?s$", row["index build"]):
                assert row["index build"].startswith(ACCEPTED_REASONS), f"{title!r}: row did not run: {row}"


def number(cell: str) -> float:
    """A table cell's number: '9,854' -> 9854.0, '68 ms' -> 68.0, '1.000' -> 1.0; fails on text."""
    match = re.fullmatch(r"([\d,]+(?:\.\d+)?(?:e[+-]\d+)?)(?: ?(?:ms|s|MiB|GiB|KiB|×))?", cell)
    assert match, f"not a number: {cell!r}"
    return float(match.group(1).replace(",", ""))


def same_token_rows(rows: Table, key: str) -> dict[str, dict[str, str]]:
    """The "same tokens" rows of ranklens and bm25s for one corpus, by library."""
    chosen = {r["library"]: r for r in rows if r["input"] == "same tokens" and next(iter(r.values())) == key}
    assert {"ranklens", "bm25s"} <= set(chosen), rows
    return chosen


def assert_same_tokens_agree(rows: Table, key: str, numeric: tuple[str, ...]) -> None:
    chosen = same_token_rows(rows, key)
    for library, row in chosen.items():
        if library in ("ranklens", "bm25s"):
            for column in numeric:
                number(row[column])
    bm25s = chosen["bm25s"]
    assert number(bm25s["same top-10 up to ties"]) == 1.0, bm25s
    assert number(bm25s["max abs score diff"]) < FLOAT32_SCORE_DIFF, bm25s


SPEED = ("index build", "queries/s (batch)", "p50 ms", "p99 ms")
ONE_RUN = pytest.mark.xdist_group("benchmarks-quick-run")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return run_benchmarks(tmp_path_factory.mktemp("bench"), "--only", "bm25,tfidf,ivf,tui,real")


@ONE_RUN
def test_quick_run_prints_every_table_with_numbers(quick_run: tuple[str, str]) -> None:
    stdout, written = quick_run
    for title in SYNTHETIC_TITLES:
        assert title in stdout, f"missing {title!r} in:\n{stdout[-3000:]}"
    assert written.strip() == stdout.strip()
    found = tables(stdout)
    assert_no_error_cell(found)
    bm25 = table(found, "BM25 (lucene")
    assert_same_tokens_agree(bm25, "2k", SPEED)
    installed = {"rank_bm25"} if importlib.util.find_spec("rank_bm25") else set()  # the bench extra has it
    assert {r["peer"] for r in table(found, "BM25 ratios") if r["input"] == "same tokens"} == {"bm25s", *installed}
    sklearn = next(r for r in table(found, "TF-IDF (scikit-learn") if r["library"] == "sklearn")
    assert number(sklearn["same top-10"]) == 1.0 and number(sklearn["max abs score diff"]) < 1e-9


@ONE_RUN
def test_real_collection_section(quick_run: tuple[str, str]) -> None:
    present = (DATA / QUICK_COLLECTION / "corpus.jsonl").is_file()
    stdout, _ = quick_run
    found = tables(stdout)
    if not present:
        assert "skipped: no real collections found" in stdout
        pytest.skip(f"real-collection section skipped: no {QUICK_COLLECTION} collection in {DATA}")
    assert_no_error_cell(found)
    rows = table(found, "BM25 on real collections (")
    assert_same_tokens_agree(rows, QUICK_COLLECTION, ("nDCG@10", "recall@100", *SPEED))
    ours = {r["input"]: r for r in rows if r["library"] == "ranklens"}
    # ranklens' own analysis yields exactly the tokens it hands out: both rows rank alike
    assert ours["own tokenizer"]["nDCG@10"] == ours["same tokens"]["nDCG@10"]
    assert same_token_rows(rows, QUICK_COLLECTION)["bm25s"]["nDCG@10"] == ours["same tokens"]["nDCG@10"]


def test_error_rows_are_caught() -> None:
    """The checks above would have failed on the row this smoke test once let through."""
    broken = tables("### BM25 (lucene)\n\n| chunks | library | input | index build |\n|---|---|---|---|\n"
                    "| 2k | ranklens | same tokens | AttributeError: 'Workbench' object has no attribute 'scorer' |\n")
    with pytest.raises(AssertionError, match="AttributeError"):
        assert_no_error_cell(broken)
    stalled = tables("### t\n\n| chunks | library | input | index build |\n|---|---|---|---|\n"
                     "| 2k | bm25s | same tokens | exit 1: boom |\n")
    with pytest.raises(AssertionError):
        assert_no_error_cell(stalled)


def test_unknown_section_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        benchmarks_run.main(["--only", "nope"])
    assert stopped.value.code == 2
    assert "unknown section 'nope'" in capsys.readouterr().err
