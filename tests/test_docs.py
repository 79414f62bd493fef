"""The documentation stays inside the repository and matches the code: links, settings, commands, JSON keys."""
from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from ranklens.cli.main import COMMANDS
from ranklens.engine.setup import setup_settings
from tests.support.cli import run_cli
from tests.support.docs import CORPUS_FORMAT, current_table, settings_table

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
# [text](target) and [text]: target, the two ways Markdown links
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))  # code blocks hold shell, not links
    return [a or b for a, b in LINK.findall(text)]


def anchors(page: Path) -> set[str]:
    """GitHub's anchor of each heading: lowercase, punctuation dropped, spaces as hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    headings = re.findall(r"^#+\s+(.*?)\s*$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_the_pages_exist() -> None:
    assert {p.name for p in DOCS} >= {"architecture.md", "corpus-format.md", "cli.md", "reference-numbers.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_points_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for outside in ("../shared", "DESIGN.md", "STYLE.md"):
        assert outside not in text, f"{page.name} mentions {outside}: a clone or a pip user cannot read it"
    for target in links(page):
        assert not re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE), f"{page.name}: external link {target}"
        assert not target.startswith("/"), f"{page.name}: absolute link {target}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    for target in links(page):
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_file(), f"{page.name}: {target} is not a file of the repository"
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{page.name}: no heading for #{anchor} in {resolved.name}"


def test_the_settings_table_is_the_generated_one() -> None:
    text = CORPUS_FORMAT.read_text(encoding="utf-8")
    assert current_table(text) == settings_table(), (
        "docs/corpus-format.md's settings table is out of date: run `python -m tests.support.docs`")
    for name in setup_settings():
        assert f"`{name}`" in text


def test_every_module_is_in_the_architecture_tree() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = [path for folder in ("engine", "cli", "tui") for path in sorted((ROOT / folder).rglob("*.py"))
               if path.name not in ("__init__.py", "__main__.py")]
    missing = [path.relative_to(ROOT).as_posix() for path in modules if path.name not in text]
    assert not missing, f"docs/architecture.md's package tree does not name {missing}: one line per module"


def test_every_command_is_documented() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"ranklens {command} " in text, command


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


# Quick runs of every command with --json, on the lesson corpus.
JSON_RUNS = [
    ("search", "studio-alfa", "rimborso auto", "--explain", "--scorer", "bm25"),
    ("eval", "studio-alfa"),
    ("threshold", "studio-alfa"),
    ("compare-scorers", "studio-alfa"),
    ("sweep", "chunks", "studio-alfa", "--sizes", "20"),
    ("chunk", "-", "--size", "3", "--find", "b c"),
    ("ivf", "studio-alfa"),
    ("ann", "studio-alfa"),
    ("run", "studio-alfa", "--save", "docs"),
    ("runs", "studio-alfa"),
    ("compare", "studio-alfa", "tfidf", "bm25"),
    ("compare", "studio-alfa", "tfidf", "bm25", "lsa"),
    ("why", "studio-alfa", "rimborso auto", "trasferte-0"),
    ("judgments", "studio-alfa", "--judge", "q01", "ferie-1", "1", "--undo"),
    ("judgments", "studio-alfa", "--agreement", "--rater-rule", "majority"),
    ("corpora",),
    ("prompt", "studio-alfa", "rimborso auto"),
]


@pytest.mark.parametrize("argv", JSON_RUNS, ids=lambda argv: argv[0])
def test_every_json_key_is_documented(capsys, monkeypatch, argv: tuple[str, ...]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b c d e")))
    run = run_cli(capsys, *argv, "--json")
    assert run.status == 0, run.err
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    # ranks of compare-scorers are keyed by scorer name: those are registry names, not contract keys;
    # a run's "setup" is keyed by setting name: the settings table of docs/corpus-format.md lists them
    missing = sorted(k for k in _keys(run.json) - set(setup_settings()["scorer"].allowed() or ())
                     - set(setup_settings()) if f'"{k}"' not in text)
    assert not missing, f"`ranklens {argv[0]} --json` keys missing from docs/cli.md: {missing}"
