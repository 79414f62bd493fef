"""A table of many rows that draws only the rows on screen.

A DataTable builds every row up front: 7,609 questions (squad_it) cost about
0.8 s on the event loop, and again on every filter keystroke or resize. This
list holds only row keys; each frame asks ``cells(key)`` for the rows in view,
so filling, filtering, sorting and resizing cost what the screen shows. A
column of width 0 takes the width that is left (scrolling sideways when even
its minimum does not fit).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ranklens.tui.widgets.lists import _vim_moves

GAP = 1  # cells between columns


@dataclass(frozen=True)
class Column:
    label: str
    width: int  # 0: whatever the other columns leave, at least ``minimum``
    minimum: int = 16


class RowList(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    RowList { background: $surface; color: $foreground; }
    RowList:focus { background-tint: $foreground 5%; }
    RowList > .row-list--header { text-style: bold; background: $panel; color: $foreground; }
    RowList > .row-list--even { background: $surface-lighten-1 50%; }
    RowList:dark > .row-list--even { background: $surface-darken-1 40%; }
    RowList > .row-list--cursor { background: $block-cursor-blurred-background;
                                  color: $block-cursor-blurred-foreground; }
    RowList:focus > .row-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground;
                                        text-style: $block-cursor-text-style; }
    """
    COMPONENT_CLASSES = {"row-list--header", "row-list--even", "row-list--cursor"}
    BINDINGS = [
        *_vim_moves("cursor_down", "cursor_up", "rows", "cursor_top", "cursor_bottom"),
        Binding("down", "cursor_down", "Down", show=False, id="rows.down_arrow"),
        Binding("up", "cursor_up", "Up", show=False, id="rows.up_arrow"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="rows.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="rows.page_up"),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class Selected(Message):
        """Enter (or a click on the cursor row) on a row."""

        def __init__(self, row_list: RowList, key: Hashable) -> None:
            super().__init__()
            self.row_list = row_list
            self.key = key

        @property
        def control(self) -> RowList:
            return self.row_list

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: tuple[Column, ...] = ()
        self.row_keys: Sequence[Hashable] = ()
        self._cells: Callable[[Hashable], Sequence[Text]] = lambda key: ()

    # -- what the owner gives -----------------------------------------------------------------

    def set_rows(self, columns: Sequence[Column], keys: Sequence[Hashable],
             cells: Callable[[Hashable], Sequence[Text]]) -> None:
        """Show a row per key, its cells drawn by ``cells(key)`` when on screen; the cursor stays put
        (within the new rows)."""
        self.columns, self.row_keys, self._cells = tuple(columns), keys, cells
        self.virtual_size = Size(self._widest(), len(keys) + 1)  # + the header
        self.cursor_row = min(self.cursor_row, max(len(keys) - 1, 0))
        self.refresh()

    def clear(self) -> None:
        self.set_rows((), (), lambda key: ())

    @property
    def row_count(self) -> int:
        return len(self.row_keys)

    @property
    def cursor_key(self) -> Hashable | None:
        return self.row_keys[self.cursor_row] if self.row_keys else None

    def row_cells(self, index: int) -> list[Text]:
        """The cells of the row at ``index`` (in the order shown), as drawn."""
        return list(self._cells(self.row_keys[index]))

    # -- cursor ---------------------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self.row_keys) - 1))

    def watch_cursor_row(self, row: int) -> None:
        top = round(self.scroll_y)
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + self._page:
            self.scroll_to(y=row - self._page + 1, animate=False, immediate=True)
        self.refresh()

    def action_cursor_down(self) -> None:
        self.cursor_row += 1

    def action_cursor_up(self) -> None:
        self.cursor_row -= 1

    def action_cursor_top(self) -> None:
        self.cursor_row = 0

    def action_cursor_bottom(self) -> None:
        self.cursor_row = len(self.row_keys) - 1

    def action_page(self, direction: int) -> None:
        self.cursor_row += direction * self._page

    def action_select_cursor(self) -> None:
        if self.row_keys:
            self.post_message(self.Selected(self, self.row_keys[self.cursor_row]))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        row = round(self.scroll_y) + offset.y - 1
        if row < len(self.row_keys):
            if row == self.cursor_row:
                self.action_select_cursor()
            self.cursor_row = row

    def on_resize(self, event: events.Resize) -> None:
        self.watch_cursor_row(self.cursor_row)  # a shorter list view keeps the cursor in sight

    # -- drawing --------------------------------------------------------------------------------

    def _fixed(self) -> int:
        return sum(c.width for c in self.columns) + GAP * max(len(self.columns) - 1, 0)

    def _widest(self) -> int:
        """The narrowest the columns fit in."""
        return self._fixed() + sum(c.minimum for c in self.columns if not c.width)

    def _widths(self, width: int) -> list[int]:
        return [c.width or max(c.minimum, width - self._fixed()) for c in self.columns]

    def render_line(self, y: int) -> Strip:
        strip = self._line(y, max(self.scrollable_content_region.width, self._widest()))
        left = round(self.scroll_x)
        return strip.crop(left, left + self.scrollable_content_region.width)

    def _line(self, y: int, width: int) -> Strip:
        if y == 0:
            style = self.get_component_rich_style("row-list--header")
            return self._strip([Text(c.label) for c in self.columns], width, style)
        row = round(self.scroll_y) + y - 1
        if row >= len(self.row_keys):
            return Strip.blank(width, self.rich_style)
        style = self.rich_style
        if row % 2:
            style += self.get_component_rich_style("row-list--even")
        cells = list(self._cells(self.row_keys[row]))
        if row == self.cursor_row:
            cursor = self.get_component_rich_style("row-list--cursor")
            return self._strip([Text(c.plain) for c in cells], width, style + cursor)
        return self._strip(cells, width, style)

    def _strip(self, cells: Sequence[Text], width: int, style: Style) -> Strip:
        line = Text(style=style, no_wrap=True, end="")
        for n, (cell, cell_width) in enumerate(zip(cells, self._widths(width))):
            if n:
                line.append(" " * GAP)
            piece = cell.copy()
            piece.truncate(cell_width, overflow="ellipsis", pad=True)
            line.append_text(piece)
        return Strip(list(line.render(self.app.console))).adjust_cell_length(width, style)
