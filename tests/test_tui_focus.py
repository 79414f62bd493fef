"""Where the keys go: text boxes hand keys back on Escape, tabs switch from anywhere, every focus stop is
visible, the footer and the tab bar show the keys that work where the focus is (issue 10)."""
from __future__ import annotations

from textual.widgets import Input, TabbedContent, Tree

from ranklens.tui.help import HelpScreen
from ranklens.tui.panes.chunking import ChunkingPane
from ranklens.tui.panes.search import SearchPane
from ranklens.tui.widgets.input import TextBox
from ranklens.tui.widgets.query_box import QueryBox
from tests.support.app import notifications, running, screen_text, settle

SIZE = (80, 24)


def footer(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-1]


def tab_bar(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[0]


async def test_escape_leaves_the_index_boxes_and_a_digit_then_switches_tab() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        tabs = app.query_one(TabbedContent)
        for box_id, typed in (("#ivf-cells", "12"), ("#ivf-probes", "1,3,50")):
            await pilot.press("escape", "4")
            await settle(pilot)
            app.query_one(box_id, TextBox).focus()
            await pilot.pause()
            await pilot.press(*typed)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.focused, Input)
            await pilot.press("3")
            await pilot.pause()
            assert tabs.active == "chunking"
            assert app.query_one(box_id, TextBox).value == typed


async def test_alt_digits_switch_tabs_while_typing() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        tabs = app.query_one(TabbedContent)
        await pilot.press("a", "b", "alt+2")
        await pilot.pause()
        assert tabs.active == "metrics"
        assert app.query_one(QueryBox).value == "ab"
        await pilot.press("alt+1")
        await pilot.pause()
        assert tabs.active == "search"


async def test_escape_from_the_find_box_keeps_the_focus_in_the_tab() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "3")
        await settle(pilot)
        await pilot.press("f", "x", "escape")
        await pilot.pause()
        pane = app.query_one(ChunkingPane)
        assert app.focused is not None and pane in app.focused.ancestors
        assert not isinstance(app.focused, Input)
        await pilot.press("r")  # the tab's keys work at once
        await pilot.pause()
        assert pane.is_working() or pane.sweep is not None


async def test_every_focus_stop_wears_a_frame() -> None:
    """Tab never lands on a widget that cannot show it has the focus (the tab bar was one)."""
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape")
        for tab in "12345":
            await pilot.press(tab)
            await settle(pilot)
            for _ in range(6):
                await pilot.press("tab")
                await pilot.pause()
                focused = app.focused
                assert focused is not None
                assert focused.styles.border_top[0] not in ("", "none", "hidden"), f"{focused!r} on tab {tab}"


async def test_ctrl_c_says_how_to_quit_in_plain_text() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "ctrl+c")
        await pilot.pause()
        messages = notifications(app)
        assert messages and "ctrl+q" in messages[-1] and "[" not in messages[-1]


async def test_the_documents_tree_has_a_cursor_when_first_focused() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        tree = app.query_one("#documents", Tree)
        tree.focus()
        await pilot.pause()
        assert tree.cursor_node is not None
        await pilot.press("enter")
        await pilot.pause()
        assert tree.root.children[0].is_expanded


async def test_help_lists_each_key_once_with_tab_and_the_tree_keys() -> None:
    async with running(size=(100, 40)) as pilot:
        app = pilot.app
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = [(row.where, row.keys, row.description) for row in app.screen._rows]
        assert len(rows) == len(set(rows))
        search_keys = [(keys, what) for where, keys, what in rows if where == "Search"]
        assert len([k for k, _ in search_keys if k == "j"]) == 1
        keys = {keys for _, keys, _ in rows}
        assert {"tab", "shift+tab"} <= keys
        assert any(where == "Search" and "document" in what.lower() for where, _, what in rows)


async def test_footer_and_tab_bar_show_the_keys_that_work_where_the_focus_is() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        # typing in the query box: digits type, alt+digits switch; six "alt+1 Search" labels need 87
        # columns, so at 80 the tab bar shows the titles and the footer the keys
        assert tab_bar(app).split() == ["Search", "Metrics", "Chunking", "Index", "Prompt", "Compare"]
        assert "/ " not in footer(app) and "alt+1-6 tabs" in footer(app)
        await pilot.press("escape")
        await pilot.pause()
        assert tab_bar(app).lstrip().startswith("1 Search")
        line = footer(app)
        for key in ("/", "s", "1-6", "?", "q"):
            assert f"{key} " in line, line
        await pilot.press("3")
        await settle(pilot)
        line = footer(app)
        for word in ("size", "sweep", "Quit"):  # the Chunking footer is not cut at 80 columns
            assert word.lower() in line.lower(), line


async def test_search_keeps_the_query_box_focused_at_start() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app.focused, QueryBox)
        assert app.query_one(SearchPane) in app.focused.ancestors


async def test_a_key_right_after_a_tab_key_reaches_the_new_tab() -> None:
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape", "3", "f")  # no pause between the keys, as a user types them
        await pilot.pause()
        assert app.focused is app.query_one("#chunk-find", TextBox)


def _luminance(colour) -> float:  # noqa: ANN001
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = colour.rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(one, other) -> float:  # noqa: ANN001
    a, b = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (a + 0.05) / (b + 0.05)


async def test_unfocused_frames_stand_out_in_dark_and_light_themes() -> None:
    """A frame without the focus is still a frame: at least 1.8:1 against what is behind it (the old
    #242f38 on #1e1e1e was 1.2:1, and tmux's 256 colours made it colour 17 on 234)."""
    async with running(size=SIZE) as pilot:
        app = pilot.app
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            for selector in ("#documents", "#results", "#detail"):
                widget = app.query_one(selector)
                assert not widget.has_focus
                edge = widget.styles.border_top[1]
                behind = widget.background_colors[0]
                assert _contrast(behind + edge, behind) >= 1.8, (theme, selector, edge, behind)


async def test_escape_then_a_digit_as_a_terminal_sends_it_switches_tabs_while_typing() -> None:
    """A terminal sends Escape then 3 (typed fast, or alt+3) as one sequence, which Textual reads as the
    character Option+3 types on a Mac ("£"): it switches to tab 3 and types nothing."""
    from textual._xterm_parser import XTermParser

    async with running(size=SIZE) as pilot:
        app = pilot.app
        tabs = app.query_one(TabbedContent)
        await pilot.press("a")
        keys = [event.key for event in XTermParser().feed("\x1b3") if hasattr(event, "key")]
        await pilot.press(*keys)
        await pilot.pause()
        assert tabs.active == "chunking"
        assert app.query_one(QueryBox).value == "a"


async def test_the_tab_bar_shows_digits_again_once_a_prompt_closes() -> None:
    # A prompt (S's run name, the palette) has a text box: the bar said alt+digits, and kept saying it
    # after the prompt closed, though digits switch tabs again.
    async with running(size=(120, 36)) as pilot:
        app = pilot.app
        await pilot.press("escape", "2")
        await settle(pilot)
        assert tab_bar(app).startswith(" 1 Search  2 Metrics")
        await pilot.press("S")
        await settle(pilot)
        assert tab_bar(app).startswith(" alt+1 Search")  # the prompt's box types digits
        await pilot.press("escape")
        await settle(pilot)
        assert not app.typing
        assert tab_bar(app).startswith(" 1 Search  2 Metrics")
