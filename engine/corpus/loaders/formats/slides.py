"""PowerPoint slides (.pptx): each slide's text, where each slide starts, slide titles as headings (python-pptx).

A slide is a page: its number is the page's. Its title placeholder is a level-1
heading; text frames, tables and grouped shapes follow in the slide's order.
"""
from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from ranklens.engine.corpus.loaders.formats.building import DAMAGED, Extracted, TextBuilder, Unreadable


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    from pptx import Presentation
    from pptx.exc import PackageNotFoundError

    try:
        deck = Presentation(io.BytesIO(data))
        built = TextBuilder()
        for slide in deck.slides:
            built.page()
            title_shape = slide.shapes.title
            if title_shape is not None:
                built.heading(1, title_shape.text_frame.text)
            _shapes(slide.shapes, built, title_shape)
        title = deck.core_properties.title
    except (PackageNotFoundError, *DAMAGED) as error:
        raise Unreadable(f"not a readable PowerPoint file ({type(error).__name__}: {error})") from None
    first = next((text for _, _, text in built.headings), "")
    return [built.extracted(" ".join(title.split()) if title else first)]


def _shapes(shapes: Iterable[Any], built: TextBuilder, skip: Any) -> None:
    for shape in shapes:
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        if getattr(shape, "shapes", None) is not None:  # a group
            _shapes(shape.shapes, built, skip)
        elif getattr(shape, "has_table", False) and shape.has_table:
            built.block("\n".join(" | ".join(" ".join(c.text.split()) for c in row.cells)
                                  for row in shape.table.rows))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            built.block(shape.text_frame.text)
