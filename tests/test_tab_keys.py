"""The tab keys from the tab table, the tab labels that follow the focus, and the toasts the app keeps one of
(tui/tab_keys.py, tui/toasts.py)."""
from __future__ import annotations

import pytest
from textual.widgets import Input, TabbedContent

from ranklens.tui.app import RanklensApp
from ranklens.tui.tab_keys import ESCAPE_DIGIT_KEYS, keys_over_boxes, label, labels_for, tab_bindings
from ranklens.tui.tabs import TABS
from ranklens.tui.toasts import Toasts
from tests.support.app import running, settle, until

# "alt+1 Search" ... "alt+6 Compare", a cell of padding either side: 6 * (6 + 2) + 39 letters of titles
ALT_LABELS_CELLS = 87


def test_each_tab_has_its_digit_and_alt_with_it() -> None:
    bindings = tab_bindings(TABS)
    assert [b.key for b in bindings[:2]] == ["1,alt+1,inverted_exclamation_mark", "alt+1,inverted_exclamation_mark"]
    assert [b.action for b in bindings[:2]] == ["show_tab('search')", "jump_tab('search')"]
    assert [b.key_display for b in bindings[:2]] == ["1-6", "alt+1-6"]
    assert [b.show for b in bindings] == [True, True] + [False] * 10  # the footer names the first pair for all
    assert keys_over_boxes(TABS) == {ESCAPE_DIGIT_KEYS[str(n)] for n in range(1, 7)}


@pytest.mark.parametrize(("typing", "width", "expected"), [
    (False, 40, "keys"), (True, ALT_LABELS_CELLS + 1, "alt"), (True, ALT_LABELS_CELLS, "titles"),
])
def test_the_labels_say_the_keys_that_work_and_fit(typing: bool, width: int, expected: str) -> None:
    assert labels_for(TABS, typing, width) == expected


def test_a_label_for_each_kind() -> None:
    search = TABS["search"]
    assert [label(search, kind) for kind in ("keys", "alt", "titles")] == ["1 Search", "alt+1 Search", "Search"]


async def test_the_underline_spans_the_active_tab_label_after_relabelling() -> None:
    """Relabelled tabs change width, and so the place of the tabs after them: the underline follows the
    active tab's label once they are laid out (TabLabels.follow)."""
    async with running(size=(100, 30)) as pilot:
        app = pilot.app
        tabbed = app.query_one(TabbedContent)
        await pilot.press("escape", "4")
        await settle(pilot)

        def underlined() -> tuple[str, tuple[int, int], tuple[int, int]]:
            underline, tab = tabbed.query_one("Underline"), tabbed.get_tab("index")
            span = tab.virtual_region.shrink(tab.styles.gutter).column_span
            return str(tab.label), (underline.highlight_start, underline.highlight_end), span

        label, line, span = underlined()
        assert label == "4 Index" and line == span
        next(box for box in app.query(Input) if tabbed.get_pane("index") in box.ancestors).focus()
        # the labels change at once, the underline at the layout after theirs: waited for (one pause was not
        # always enough on a loaded machine), never assumed
        await until(pilot, lambda: underlined()[0] == "alt+4 Index" and underlined()[1] == underlined()[2])
        label, line, moved = underlined()
        assert moved[0] > span[0]  # "alt+" before each tab before
        await pilot.press("escape")
        await until(pilot, lambda: underlined() == ("4 Index", span, span))


def test_the_app_is_made_with_its_tab_table() -> None:
    with pytest.raises(TypeError, match="make_app"):
        RanklensApp()


def test_a_toast_on_screen_is_not_raised_twice() -> None:
    now = [0.0]
    toasts = Toasts(clock=lambda: now[0])
    assert toasts.first("k must be at least 1", "", 5)
    assert not toasts.first("k must be at least 1", "", 5)
    assert toasts.first("k must be at least 1", "setting", 5)  # another title: another toast
    now[0] = 5.0  # gone at its timeout
    assert toasts.first("k must be at least 1", "", 5)
    toasts.clear()
    assert toasts.first("k must be at least 1", "", 5)
