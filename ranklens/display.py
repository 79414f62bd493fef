"""How the API's results show themselves: the command line's text, in a terminal and in a notebook.

A result prints what ``ranklens`` prints for the same work: its text is the command line's own
printer run into a string (``printed``), so the two cannot drift apart. In a notebook the same
text is shown as preformatted HTML, escaped (documents and ids are untrusted). ``data_frame``
makes a pandas DataFrame when pandas is installed (the ``notebook`` extra) and says which extra
to install when it is not.
"""
from __future__ import annotations

import contextlib
import html
import io
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

NOTEBOOK_EXTRA = "pip install 'ranklens[notebook]'"


def printed(printer: Callable[..., object], *args: Any) -> str:
    """What ``printer(*args)`` writes on standard output (the command line's ``say`` lines), as one string."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        printer(*args)
    return out.getvalue().rstrip("\n")


class Printed(ABC):
    """A result that shows the command line's text: ``repr`` in a terminal, ``_repr_html_`` in a notebook."""

    @abstractmethod
    def text(self) -> str:
        """The result as the command line prints it."""

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text())}</pre>"


def data_frame(rows: Sequence[Mapping[str, Any]], index: str | list[str]) -> pandas.DataFrame:
    """``rows`` (one mapping per row, the same keys) as a DataFrame indexed by the column(s) ``index``."""
    from ranklens.engine.errors import RanklensError

    try:
        import pandas
    except ImportError:
        raise RanklensError(f"to_frame() needs pandas, which is not installed: {NOTEBOOK_EXTRA}") from None
    return pandas.DataFrame(list(rows)).set_index(index) if rows else pandas.DataFrame()
