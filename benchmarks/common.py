"""Timing, memory and table helpers shared by every benchmark section.

Memory is the peak resident set size (VmHWM) of the measuring process, reset
just before the measured step and taken relative to the resident size at that
moment: it counts numpy, scipy and Python allocations alike, and nothing that
was loaded before the step (the corpus texts, the imports).
"""
from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar
from collections.abc import Callable, Iterable, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
T = TypeVar("T")

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(key: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def rss_bytes() -> int | None:
    kib = _status_kib("VmRSS")
    return None if kib is None else kib * 1024


def peak_bytes() -> int | None:
    kib = _status_kib("VmHWM")
    return None if kib is None else kib * 1024


_process_peak = 0  # the highest peak RSS seen before a reset: resets must not hide the whole-process peak


def reset_peak() -> bool:
    """Restart the peak-RSS counter at the current RSS (Linux >= 4.0); False when unsupported."""
    global _process_peak
    _process_peak = max(_process_peak, peak_bytes() or 0)
    try:
        _CLEAR_REFS.write_text("5")
        return True
    except OSError:
        return False


def process_peak_bytes() -> int | None:
    """Peak RSS of this whole process so far (imports, loading, every step), across ``reset_peak``."""
    peak = peak_bytes()
    return None if peak is None else max(peak, _process_peak)


@dataclass
class Measured(Generic[T]):
    """What one measured step returned, how long it took and how much memory it added at peak."""

    value: T
    seconds: float
    peak_bytes: int | None


def measure(step: Callable[[], T]) -> Measured[T]:
    """Run ``step`` once: wall time and peak RSS added over the RSS before it."""
    gc.collect()
    can_reset = reset_peak()
    before = rss_bytes()
    started = time.perf_counter()
    value = step()
    seconds = time.perf_counter() - started
    peak = peak_bytes()
    added = peak - before if can_reset and peak is not None and before is not None else None
    return Measured(value, seconds, added)


def median_time(step: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` runs of ``step`` (machines are noisy: never one sample)."""
    times = []
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def latencies_ms(step: Callable[[T], object], items: Iterable[T]) -> list[float]:
    out = []
    for item in items:
        started = time.perf_counter()
        step(item)
        out.append((time.perf_counter() - started) * 1000)
    return out


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else float("nan")


# -- formatting ------------------------------------------------------------------------------------

def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "—"
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.1f} s" if s < 100 else f"{s:.0f} s"


def fmt_bytes(n: int | None) -> str:
    if n is None:
        return "—"
    mib = n / 2**20
    return f"{mib / 1024:.2f} GiB" if mib >= 1024 else f"{mib:.0f} MiB"


def fmt_rate(r: float | None) -> str:
    if r is None:
        return "—"
    return f"{r:,.0f}" if r >= 100 else f"{r:.1f}"


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "—"
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}"


def fmt_ratio(ours: float | None, theirs: float | None) -> str:
    """ranklens / peer, the way every table reports it."""
    if ours is None or theirs is None or theirs == 0:
        return "—"
    return f"{ours / theirs:.2f}×"


def fmt_size(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


@dataclass
class Table:
    """A markdown table with a title and notes, printed and written the same way."""

    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        self.rows.append([str(c) for c in cells])

    def markdown(self) -> str:
        lines = [f"### {self.title}", ""]
        if self.rows:
            lines.append("| " + " | ".join(self.header) + " |")
            lines.append("|" + "|".join("---" for _ in self.header) + "|")
            lines.extend("| " + " | ".join(row) + " |" for row in self.rows)
            lines.append("")
        lines.extend(f"- {note}" for note in self.notes)
        return "\n".join(lines).rstrip() + "\n"


def report(lines: Sequence[str], out: Path | None) -> int:
    """Print a standalone benchmark's markdown, and write it to ``out`` when given; the exit status."""
    text = "\n".join(lines)
    print(text)
    if out:
        out.write_text(text + "\n", encoding="utf-8")
    return 0
