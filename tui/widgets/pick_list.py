"""A list of options picked with space, each row saying by a glyph whether it is picked: ``[x]`` or ``[ ]``.

Textual's SelectionList tells a picked row from another by the colour of its box alone, which a terminal
without colours, or a reader who does not see them, cannot tell apart. The box keeps its colours.
"""
from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.selection_list import SelectionType

PICKED, NOT_PICKED = "[x]", "[ ]"


class PickList(SelectionList[SelectionType]):
    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        index = self.scroll_offset.y + y
        if len(segments) < 3 or not 0 <= index < self.option_count:
            return strip
        glyph = PICKED if self.get_option_at_index(index).value in self.selected else NOT_PICKED
        # SelectionList draws its box as three cells (left side, inner, right side), each styled: keep the styles
        box = [Segment(character, segment.style, segment.control) for character, segment in zip(glyph, segments)]
        return Strip([*box, *segments[3:]], strip.cell_length)
