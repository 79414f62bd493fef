"""The app shell: tabs and their keys, setting keys, the setup line, help, palette, messages, errors."""
from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import TabbedContent

from ranklens.corpora import bundled_path
from tests.support.app import notifications, open_path, opened, running, search, settle, setup_line, until
from ranklens.tui.app import TABS, make_app
from ranklens.tui.context import ChangeSetup, UseQuery
from ranklens.tui.help import HelpScreen
from ranklens.tui.key_map import all_rows
from ranklens.tui.panes.metrics import MetricsPane
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.setting_steps import SETTING_STEPS
from ranklens.tui.setting_text import describe
from ranklens.tui.widgets.lists import KeyTable
from ranklens.tui.widgets.query_box import QueryBox

SIZE = (100, 30)
REPO = Path(__file__).resolve().parents[1]


def test_importing_the_app_loads_no_numpy_scipy_or_sklearn() -> None:
    """What ``ranklens`` imports before its first paint: the engine's heavy libraries load in workers."""
    code = ("import sys, ranklens.cli.main, tui.app\n"
            "print(sorted(name for name in ('numpy', 'scipy', 'sklearn') if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


async def test_first_paint_does_not_wait_for_the_corpus() -> None:
    """The shell is on screen (tabs, setup line) while the corpus still loads in a worker."""
    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.query_one(TabbedContent).active == "search"
        assert "studio-alfa" in setup_line(app)
        await opened(pilot)
        assert setup_line(app).startswith("studio-alfa 18 chunks it · TF-IDF")


async def test_number_keys_switch_tabs_only_when_not_typing() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        tabs = app.query_one(TabbedContent)
        await pilot.press("2", "q")  # typed into the query box: no tab switch, no quit
        assert tabs.active == "search" and app.query_one(QueryBox).value == "2q"
        await pilot.press("escape")
        assert not isinstance(app.focused, QueryBox)
        for number, tab in enumerate(TABS, 1):
            await pilot.press(str(number))
            await pilot.pause()
            assert tabs.active == tab
            assert app.focused is None or tabs.get_pane(tab) in app.focused.ancestors
        await pilot.press("slash")
        assert tabs.active == "search" and isinstance(app.focused, QueryBox)
        await pilot.press("ctrl+q")  # quits even while typing
        await pilot.pause()
    assert app.return_code == 0


async def test_q_quits_when_not_typing() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "q")
        await pilot.pause()
        assert not app.is_running


async def test_scorer_key_changes_the_setup_line_and_the_results() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        pane = await search(pilot, "ho perso il cellulare con i codici")
        before = [(row.hit.chunk.id, round(row.hit.score, 6)) for row in pane._rows]
        assert "TF-IDF" in setup_line(app)
        await pilot.press("escape", "s")
        await settle(pilot)
        assert app.context.setup.scorer == "bm25"
        assert "BM25 lucene k1=1.2 b=0.75" in setup_line(app)
        after = [(row.hit.chunk.id, round(row.hit.score, 6)) for row in pane._rows]
        assert after != before
        assert pane.shown_generation == app.context.generation


SETTING_KEYS = [
    (["plus"], "k", 6), (["minus"], "k", 4), (["equals_sign"], "k", 6),
    (["s", "v"], "bm25_variant", "robertson"),
    (["right_square_bracket"], "k1", 1.3), (["left_square_bracket"], "k1", 1.1),
    (["left_curly_bracket"], "b", 0.7), (["right_curly_bracket"], "b", 0.8),
    (["w"], "stopwords", "it"), (["w", "w"], "stopwords", "none"),
    (["t"], "stem", "it"), (["t", "t"], "stem", "none"),
    (["d"], "dims", 64), (["D"], "dims", 128),
    (["l"], "sublinear_tf", True), (["a"], "fold_accents", True),
]


async def test_setting_keys() -> None:
    """Each key from the corpus' own setup: one app, its setup put back before each key."""
    async with running(size=SIZE) as pilot:
        app = pilot.app
        start = app.context.setup
        for keys, field, expected in SETTING_KEYS:
            back = {f.name: getattr(start, f.name) for f in dataclasses.fields(start)
                    if getattr(app.context.setup, f.name) != getattr(start, f.name)}
            if back:
                app.apply_settings(back)
                await settle(pilot)
            assert app.context.setup == start, keys
            await pilot.press("escape", *keys)
            await settle(pilot)
            assert getattr(app.context.setup, field) == expected, keys
            assert describe(app.context.setup) in setup_line(app), keys  # the engine's summary, with "top k"


async def test_help_lists_every_binding_from_the_bindings() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#help-keys", KeyTable)
        listed = {str(table.get_row_at(i)[2]) for i in range(table.row_count)}
        for step in SETTING_STEPS:
            if step.key is not None:
                assert step.description in listed
        assert {"Help", "Quit", "Palette", "Search tab", "Prompt tab", "Copy prompt", "Save prompt",
                "Leave the box: keys act on the tab again"} <= listed
        await pilot.press("escape")
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        assert not isinstance(app.screen, HelpScreen)


async def test_every_binding_has_an_id_and_a_description() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await app.build_all_tabs()  # tabs are built when first shown: every one must be there to check
        rows = all_rows(app, TABS)
        assert rows
        from ranklens.tui.key_map import own_bindings

        for widget in [app, *app.query("*")]:
            for binding in own_bindings(widget):
                assert binding.id and binding.description, binding


async def test_palette_lists_actions_and_runs_them() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        names = [command.name for command in app.palette_commands()]
        assert "Next scorer" in names
        assert "Open corpus battery" in names and "Open corpus from a path…" in names
        assert any(name.startswith("Setting: Chunk size") for name in names)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"next scorer")
        results = app.screen.query_one(CommandList)  # filled as the palette's search goes: waited for, not slept
        await until(pilot, lambda: results.highlighted is not None
                    and "Next scorer" in str(results.get_option_at_index(results.highlighted).prompt))
        await pilot.press("enter")
        await settle(pilot)
        assert app.context.setup.scorer == "bm25"


async def test_palette_switches_corpus_and_rechunks() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        commands = {command.name: command for command in app.palette_commands()}
        # from the corpus' own passages, re-chunking starts at the default 100/20 and steps down the ladder
        commands["Setting: Chunk size: smaller"].run()
        await settle(pilot)
        assert (app.context.setup.size, app.context.setup.overlap) == (80, 20)
        assert "chunks words 80/20" in setup_line(app)
        commands["Open corpus battery"].run()
        await settle(pilot)
        assert app.context.corpus.name == "battery"
        assert setup_line(app).startswith("battery")


async def test_open_a_corpus_from_a_path(tmp_path: Path) -> None:
    folder = tmp_path / "my-corpus"
    shutil.copytree(bundled_path("battery"), folder)
    async with running(size=SIZE) as pilot:
        app = pilot.app
        app.action_open_path()
        await open_path(pilot, folder)
        assert app.context.corpus.name == "my-corpus"


async def test_messages_from_panes() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        metrics = app.query_one(MetricsPane)
        metrics.post_message(UseQuery("rimborso con l'automobile"))
        await settle(pilot)
        pane = app.query_one(SearchPane)
        assert app.query_one(TabbedContent).active == "search"
        assert app.query_one(QueryBox).value == "rimborso con l'automobile"
        assert pane.shown_query == "rimborso con l'automobile"
        assert pane._rows[0].hit.chunk.id == "trasferte-2"
        metrics.post_message(ChangeSetup({"scorer": "lsa", "dims": 8}))
        await settle(pilot)
        assert (app.context.setup.scorer, app.context.setup.dims) == ("lsa", 8)
        metrics.post_message(ChangeSetup({"k": 0}))
        await settle(pilot)
        assert app.context.setup.k == 5
        assert any("k must be at least 1" in message for message in notifications(app))


async def test_tabs_are_built_when_first_shown_and_get_every_context_from_then_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the Search tab is composed at start; a tab shown later starts from the context current
    then, and from then on gets every context, in order, like the Search tab."""
    seen: dict[str, list[int]] = {}
    for pane_class in (tab.pane for tab in TABS.values()):
        def record(pane, context, original=pane_class.context_changed):  # noqa: ANN001, ANN202
            seen.setdefault(pane.id, []).append(context.generation)
            original(pane, context)

        monkeypatch.setattr(pane_class, "context_changed", record)
    app = make_app("studio-alfa", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        assert [pane.id for pane in app.panes] == ["search-pane"]
        assert not app.query(MetricsPane)
        await opened(pilot)
        await search(pilot, "ferie")
        built_at = app.context.generation
        await pilot.press("escape", "2", "5")
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert [pane.id for pane in app.panes] == ["search-pane", "metrics-pane", "prompt-pane"]
        assert set(seen) == {"search-pane", "metrics-pane", "prompt-pane"}
        everything = seen["search-pane"]
        assert everything == sorted(set(everything))  # always a newer generation
        assert everything[-1] == app.context.generation
        for late in ("metrics-pane", "prompt-pane"):
            assert seen[late][0] == built_at
            assert seen[late] == everything[everything.index(built_at):]
