"""Plug-ins from other packages: a distribution declaring entry points in ``ranklens.scorers``,
``ranklens.backends``, ``ranklens.measures`` and ``ranklens.indexes`` is found by the CLI, the API and
the TUI's palette (an index kind: its boxes in the Index tab). The scorer's own setting (``boost``,
declared on its spec) is a flag, a ranklens.toml key, an API keyword and a palette entry, and changes
its scores by exactly its factor (the oracle: distinct query terms counted by hand, times boost).

The distribution is a dist-info folder (METADATA and entry_points.txt, as pip would install it) on
``sys.path`` in a temporary folder; its entry points name the test suite's toy scorer, backend and
metric, which no test registers here by hand.
"""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ranklens.corpora import bundled_path
from ranklens.engine.backends.registry import BACKENDS
from ranklens.engine.errors import RanklensError
from ranklens.engine.ann import knobs, registry
from ranklens.engine.measuring.metric_table import METRICS
from ranklens.engine.registry import Registry
from ranklens.engine.scoring.registry import SCORERS
from tests.support.cli import assert_error, run_cli, run_on

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
QUERY = "rimborso spese automobile"


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


def test_a_broken_plugin_is_one_line_naming_it(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path / "site", "[ranklens.scorers]\nbroken = no_such_module_here:SPEC\n")
    fresh(monkeypatch, tmp_path / "site")
    with pytest.raises(RanklensError, match=r"^plug-in broken = 'no_such_module_here:SPEC' \(ranklens.scorers\) "):
        SCORERS.names()
    monkeypatch.setattr(SCORERS, "_plugins_loaded", False)
    assert_error(run_cli(capsys, "search", "studio-alfa", "x"), "plug-in broken", "ranklens.scorers")


def coordination(query: str) -> dict[str, int]:
    """The oracle: each studio-alfa chunk's number of distinct query terms, from its own analysed text
    (the chunks sharing none left out: they are not results)."""
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for

    corpus = load_corpus("studio-alfa")
    analyze = Workbench(corpus).retriever(setup_for(corpus)).index.analyzer.terms
    wanted = set(analyze(query))
    counts = {chunk.id: len(wanted & set(analyze(chunk.text))) for chunk in corpus.chunks}
    return {chunk: count for chunk, count in counts.items() if count}


def scores(run_json: dict) -> dict[str, float]:
    return {row["id"]: row["score"] for row in run_json["results"]}


def test_the_cli_takes_the_plugins_own_setting(capsys, plugin) -> None:
    expected = coordination(QUERY)
    boosted = run_cli(capsys, "search", "studio-alfa", QUERY, "--scorer", "coord", "--boost", "2", "-k", "18",
                      "--json")
    assert boosted.status == 0, boosted.err
    assert scores(boosted.json) == {chunk: 2 * count for chunk, count in expected.items()}
    assert boosted.json["setup"]["boost"] == 2.0 and "coordination level boost=2" in boosted.json["scorer"]
    plain, doubled = (run_cli(capsys, "threshold", "studio-alfa", "--scorer", "coord", *boost, "--json").json
                      for boost in ((), ("--boost", "2")))
    assert [u["top_score"] for u in doubled["unanswerable"]] == [2 * u["top_score"] for u in plain["unanswerable"]]
    assert doubled["answerable"] == {key: 2 * value for key, value in plain["answerable"].items()}
    # eval ranks by the scores: multiplied alike, every rank and metric stays
    evals = [run_cli(capsys, "eval", "studio-alfa", "--scorer", "coord", *boost, "--json").json
             for boost in ((), ("--boost", "2"))]
    assert evals[0]["metrics"] == evals[1]["metrics"] and evals[1]["setup"]["boost"] == 2.0
    with pytest.raises(SystemExit):
        run_cli(capsys, "search", "--help")
    assert "--boost BOOST" in capsys.readouterr().out


@pytest.mark.parametrize("value, message", [("x", "--boost must be a number (got 'x')"),
                                            ("-1", "--boost must be 0 or more (got -1)")])
def test_a_bad_value_of_the_plugins_setting_names_its_flag(capsys, plugin, value: str, message: str) -> None:
    assert_error(run_cli(capsys, "search", "studio-alfa", QUERY, "--scorer", "coord", "--boost", value), message)


@pytest.fixture
def toml_corpus(tmp_path: Path) -> Iterator[Path]:
    """studio-alfa copied, its ranklens.toml's last lines ours."""
    folder = tmp_path / "corpus"
    shutil.copytree(bundled_path("studio-alfa"), folder)
    yield folder


def with_toml(folder: Path, lines: str) -> Path:
    toml = folder / "ranklens.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('scorer = "tfidf"\n', "") + lines, encoding="utf-8")
    return toml


def test_a_ranklens_toml_sets_the_plugins_setting(capsys, plugin, toml_corpus: Path) -> None:
    with_toml(toml_corpus, 'scorer = "coord"\nboost = 3\n')
    run = run_on(capsys, toml_corpus, "search", str(toml_corpus), QUERY, "-k", "18", "--json")
    assert run.status == 0, run.err
    assert scores(run.json) == {chunk: 3 * count for chunk, count in coordination(QUERY).items()}
    # the command line wins over the toml, as for every setting
    run = run_cli(capsys, "search", str(toml_corpus), QUERY, "-k", "18", "--boost", "0.5", "--json")
    assert scores(run.json) == {chunk: count / 2 for chunk, count in coordination(QUERY).items()}


@pytest.mark.parametrize("lines, needles", [("boost = -2\n", ("boost must be a finite number >= 0 (got -2.0)",)),
                                            ('boost = "high"\n', ("boost must be float, got str 'high'",)),
                                            ("bost = 2\n", ("unknown setting 'bost'", "boost"))])
def test_a_bad_plugin_setting_in_ranklens_toml_is_one_line_naming_it(capsys, plugin, toml_corpus: Path,
                                                                      lines: str, needles: tuple[str, ...]) -> None:
    toml = with_toml(toml_corpus, lines)
    assert_error(run_cli(capsys, "search", str(toml_corpus), QUERY), str(toml), *needles)


def test_the_api_takes_the_plugins_setting_as_words_or_a_keyword(plugin) -> None:
    import ranklens as rl

    wb = rl.open("studio-alfa")
    expected = {chunk: 2 * count for chunk, count in coordination(QUERY).items()}
    for hits in (wb.search(QUERY, "coord --boost 2", k=18), wb.search(QUERY, scorer="coord", boost=2, k=18)):
        assert {row["id"]: row["score"] for row in hits.to_dict()["results"]} == expected
        assert "boost=2" in repr(hits)
    with pytest.raises(rl.RanklensError, match=r"^keywords: boost must be a finite number >= 0 \(got -1.0\)$"):
        wb.search(QUERY, scorer="coord", boost=-1)
    with pytest.raises(rl.RanklensError, match="--boost must be a number"):
        wb.search(QUERY, "coord --boost lots")
    with pytest.raises(rl.RanklensError, match=r"^keywords: unknown setting 'bost' \(known: .*boost"):
        wb.search(QUERY, scorer="coord", bost=2)


def test_the_setup_holds_the_plugins_setting_in_its_key(plugin) -> None:
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for
    from ranklens.engine.setup import Setup

    boosted = Setup.from_mapping({"scorer": "coord", "boost": 2})
    assert boosted.declared == (("boost", 2.0),) and hash(boosted) != hash(Setup(scorer="coord"))
    assert boosted.replace(boost=1.0) == Setup(scorer="coord")  # the default is not held: equal setups run alike
    assert Setup.from_mapping(boosted.to_dict()) == boosted  # a saved run's setup, read back
    assert boosted.replace(k=3).value_of("boost") == 2.0
    # one workbench, two values: the cached scorer is not reused for the other
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    one, two = (workbench.retriever(setup_for(corpus, {"scorer": "coord", "boost": b})) for b in (1, 2))
    query = one.query(QUERY)
    assert list(two.scores(query)) == [2 * s for s in one.scores(query)]


def test_a_setting_declared_twice_is_one_line_naming_both(capsys, plugin) -> None:
    from dataclasses import dataclass

    from ranklens.engine.scoring.registry import ScorerSpec, registered
    from ranklens.engine.settings import setting

    @dataclass(frozen=True)
    class Clashing:
        k1: float = setting(1.0, "a second k1")

    with registered(ScorerSpec("clash", "Clash", "tests.support.toy_scorer:build", own_settings=Clashing)):
        assert_error(run_cli(capsys, "search", "studio-alfa", "x"), "scorer clash declares a setting 'k1'",
                     "the setup has already")


def test_the_tuis_first_paint_loads_no_plugin(plugin) -> None:
    from ranklens.tui.app import make_app

    make_app("studio-alfa", cursor_blink=False)
    assert not SCORERS._plugins_loaded  # noqa: SLF001 - the entry points are read at the first lookup, later


async def test_the_tui_palette_sets_the_plugins_setting_and_it_reranks_and_offers_its_backend_and_index(
        plugin) -> None:
    from ranklens.tui.app import make_app
    from ranklens.tui.widgets.results_table import ResultsTable
    from tests.support.app import notifications, opened, search, settle, setup_line

    def shown(app) -> dict[str, float]:  # noqa: ANN001
        return {row.hit.chunk.id: row.hit.score for row in app.query_one(ResultsTable).shown_rows}

    async def type_boost(pilot, text: str) -> None:  # noqa: ANN001
        entry = next(c for c in pilot.app.palette_commands() if c.name == "Set boost…")
        entry.run()
        await pilot.pause()
        await pilot.press("ctrl+u", *text, "enter")
        await settle(pilot)

    expected = coordination(QUERY)
    app = make_app("studio-alfa", {"scorer": "coord", "k": 18}, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await search(pilot, QUERY)
        assert shown(app) == expected
        await pilot.press("escape")
        assert next(c for c in app.palette_commands() if c.name == "Set boost…").help == "now 1.0 · typed: no key"
        step = next(c for c in app.palette_commands() if c.name == "Setting: Boost + 0.5")
        assert step.help == "no key: palette only"  # the declared step, its keys never bound
        step.run()
        await settle(pilot)
        assert shown(app) == {chunk: 1.5 * count for chunk, count in expected.items()}
        await type_boost(pilot, "2")
        assert shown(app) == {chunk: 2 * count for chunk, count in expected.items()}
        assert "coordination level boost=2" in setup_line(app)
        assert "boost: 2.0" in notifications(app)
        await pilot.press("s")  # the next scorer after the plug-in's (registered last): TF-IDF
        await settle(pilot)
        await type_boost(pilot, "3")
        assert "boost 3.0 — applies to Coord; the active scorer is TF-IDF" in notifications(app)
        await type_boost(pilot, "-1")
        assert app.context.setup.value_of("boost") == 3.0
        assert any("boost must be a finite number >= 0" in n for n in notifications(app)), notifications(app)

        assert any(c.name == "Open a toy collection…" for c in app.palette_commands())
        await pilot.press("escape", "4")  # the Index tab: its form has the plug-in kind's boxes
        await settle(pilot)
        assert app.query_one("#scan-blocks").border_title == "blocks"


def test_the_docs_scorer_is_the_toy_plugins() -> None:
    """docs/architecture.md's complete scorer is tests/support/toy_scorer.py's, line for line."""
    docs = (Path(__file__).parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = docs.split("A complete scorer, from", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    toy = (Path(__file__).parent / "support" / "toy_scorer.py").read_text(encoding="utf-8").splitlines()
    assert [line for line in block.splitlines() if line and line not in toy] == []
