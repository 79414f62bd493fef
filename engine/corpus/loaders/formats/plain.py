"""Plain text (.txt): the file's text as it is, in whatever common encoding it was saved."""
from __future__ import annotations

from ranklens.engine.corpus.loaders.formats.building import Extracted
from ranklens.engine.corpus.loaders.formats.encoding import decode
from ranklens.engine.corpus.loaders.formats.markdown import first_title


def read(data: bytes, name: str, notes: list[str]) -> list[Extracted]:
    text = decode(data, name, notes)
    return [Extracted(first_title(text), text)]
