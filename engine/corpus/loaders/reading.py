"""What every reader of a corpus' files shares: regular files only, read errors as one line, valid Unicode."""
from __future__ import annotations

import errno
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ranklens.engine.errors import RanklensError

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD.

    They come from JSON escapes such as ``"\\ud800"`` and from undecodable
    bytes in file names and arguments; UTF-8 cannot encode them, so printing
    or saving such text would fail.
    """
    return _SURROGATE.sub("\ufffd", text)


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """Errors while reading ``path`` become one line that names it."""
    try:
        require_regular(path)
        yield
    except OSError as error:
        raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None


def require_regular(path: Path) -> None:
    """A FIFO or a device named like a corpus file would block or never end: only regular files are read.
    A link to nothing, or one of links that lead round in a loop, is the system's error saying so."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
