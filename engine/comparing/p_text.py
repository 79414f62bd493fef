"""A p-value as people read it, without numpy: the TUI's panes and the command line's printers import it
before any test has run (the first paint loads no numpy)."""
from __future__ import annotations

SMALLEST_P_SHOWN = 0.0001


def format_p(value: float) -> str:
    """A p-value for people: four decimals, ``< 0.0001`` below them (a t-test's p can underflow to 0, and
    ``0e+00`` reads as impossible), ``—`` when there is no test (NaN)."""
    if value != value:
        return "—"
    return f"{value:.4f}" if value >= SMALLEST_P_SHOWN else f"< {SMALLEST_P_SHOWN:.4f}"
