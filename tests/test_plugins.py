"""Plug-ins from other packages: a distribution declaring entry points in ``ranklens.scorers``,
``ranklens.backends``, ``ranklens.measures`` and ``ranklens.indexes`` is found by the CLI, the API and
the TUI's palette (an index kind: its boxes in the Index tab).

The distribution is a dist-info folder (METADATA and entry_points.txt, as pip would install it) on
``sys.path`` in a temporary folder; its entry points name the test suite's toy scorer, backend and
metric, which no test registers here by hand.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ranklens.engine.backends.registry import BACKENDS
from ranklens.engine.errors import RanklensError
from ranklens.engine.ann import knobs, registry
from ranklens.engine.measuring.metric_table import METRICS
from ranklens.engine.registry import Registry
from ranklens.engine.scoring.registry import SCORERS
from tests.support.cli import assert_error, run_cli

ENTRY_POINTS = """\
[ranklens.scorers]
coord = tests.support.toy_scorer:SPEC

[ranklens.backends]
toy = tests.support.toy_backend:SPEC

[ranklens.measures]
p3 = tests.support.toy_metric:METRIC

[ranklens.indexes]
scan = tests.support.toy_index:ScanIndex
"""
TABLES = ((SCORERS, "coord"), (BACKENDS, "toy"), (METRICS, "p@3"))


def install(site: Path, entry_points: str) -> None:
    """A distribution as pip leaves it in site-packages: its dist-info, nothing else needed to be found."""
    info = site / "toy_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def fresh(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    """The tables as a new process sees them: plug-ins not yet looked for, ``site`` on the path."""
    monkeypatch.syspath_prepend(str(site))
    for table, _ in TABLES:
        monkeypatch.setattr(table, "_plugins_loaded", False)
    # the index kinds' tables, copied so that the plug-in's registration ends with the test
    monkeypatch.setattr(knobs, "_plugins_loaded", False)
    monkeypatch.setattr(knobs, "DECLARED", dict(knobs.DECLARED))
    monkeypatch.setattr(registry, "INDEX_KINDS", dict(registry.INDEX_KINDS))


def forget(table: Registry, name: str) -> None:
    if name in table._entries:  # noqa: SLF001 - the plug-in's registration ends with the test
        table.unregister(name)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install(tmp_path / "site", ENTRY_POINTS)
    fresh(monkeypatch, tmp_path / "site")
    yield
    for table, name in TABLES:
        forget(table, name)


def test_without_a_lookup_nothing_is_loaded(plugin) -> None:
    assert "coord" not in SCORERS._entries  # noqa: SLF001 - loaded on the first lookup, not at import
    assert "coord" in SCORERS.names()


def test_the_cli_finds_the_plugins_scorer_and_metric(capsys, plugin) -> None:
    data = run_cli(capsys, "eval", "studio-alfa", "--scorer", "coord", "--json").json
    assert data["scorer"].startswith("coordination level")
    assert "p@3" in data["metrics"]
    with pytest.raises(SystemExit):
        run_cli(capsys, "search", "--help")
    assert "coord" in capsys.readouterr().out


def test_the_cli_finds_the_plugins_index_kind(capsys, plugin) -> None:
    run = run_cli(capsys, "ann", "studio-alfa", "--index", "scan", "--scan-blocks", "3", "--json")
    assert run.status == 0, run.err
    assert [row["compared_mean"] for row in run.json["rows"]] == [6, 12, 18]  # 1, 2, 3 blocks of 6 vectors
    scan = run_cli(capsys, "search", "studio-alfa", "ferie", "--scorer", "lsa", "--ann", "scan", "--json")
    assert "through scan" in scan.json["scorer"]


def test_the_api_finds_the_plugins_scorer(plugin) -> None:
    import ranklens as rl

    hits = rl.open("studio-alfa").search("rimborso auto", "coord", k=3)
    assert "coordination level" in repr(hits)


async def test_the_tui_palette_offers_the_plugins_backend(plugin) -> None:
    from ranklens.tui.app import make_app
    from tests.support.app import opened
    from tests.support.panes import settle

    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        assert any(c.name == "Open a toy collection…" for c in app.palette_commands())
        await pilot.press("escape", "4")  # the Index tab: its form has the plug-in kind's boxes
        await settle(pilot)
        assert app.query_one("#scan-blocks").border_title == "blocks"


def test_a_broken_plugin_is_one_line_naming_it(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path / "site", "[ranklens.scorers]\nbroken = no_such_module_here:SPEC\n")
    fresh(monkeypatch, tmp_path / "site")
    with pytest.raises(RanklensError, match=r"^plug-in broken = 'no_such_module_here:SPEC' \(ranklens.scorers\) "):
        SCORERS.names()
    monkeypatch.setattr(SCORERS, "_plugins_loaded", False)
    assert_error(run_cli(capsys, "search", "studio-alfa", "x"), "plug-in broken", "ranklens.scorers")
