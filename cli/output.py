"""What the command line writes: human lines, warnings and notes, JSON, explanations, progress.

Corpus text, ids, file names and queries are untrusted: every human-readable
line goes out through ``say`` or ``tell``, which make control characters
visible (``terminal_text``), and JSON escapes whatever a terminal could act on.
Plain Python: the command line imports it before it knows whether the TUI opens.
"""
from __future__ import annotations

import json
import re
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ranklens.engine.scoring.explain import Explanation

# What json.dumps(ensure_ascii=False) leaves raw inside strings although a terminal may act on it
# or hide text with it: DEL and C1 controls, zero-width and bidi controls, line and paragraph
# separators, and lone surrogates (which UTF-8 cannot encode). A \u escape keeps the JSON valid.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ud800-\udfff]")
_PROGRESS_EVERY_S = 0.25


def terminal_text(text: str, keep_newlines: bool = False) -> str:
    """Untrusted text (documents, ids, paths, queries) for a terminal.

    Control characters are made visible, never sent raw; lone surrogates
    (undecodable bytes in arguments and file names) become U+FFFD, since
    standard output cannot encode them. Without ``keep_newlines`` the text is
    one line.
    """
    from ranklens.engine.corpus.loaders import valid_unicode
    from ranklens.engine.text.visible import clean

    return valid_unicode(clean(text, keep_newlines))


def say(text: str = "") -> None:
    """One piece of human output on stdout, its newlines kept and nothing else raw."""
    print(terminal_text(text, keep_newlines=True))


def tell(kind: str, text: str) -> None:
    """A warning or note on stderr, one line, as ``ranklens: KIND: text``."""
    print(f"ranklens: {kind}: {terminal_text(text)}", file=sys.stderr)


def print_json(value: Any) -> int:
    """``value`` as indented JSON on stdout, terminal-safe; returns exit status 0."""
    # Streamed piece by piece: a 200 MB corpus' chunks are never one string in memory.
    for piece in json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(value):
        sys.stdout.write(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", piece))
    sys.stdout.write("\n")
    return 0


def print_explanation(explanation: Explanation) -> None:
    """A score explained term by term, indented under its result (``search --explain``, ``why``)."""
    say(f"       {explanation.scorer}: {explanation.formula}")
    for note in explanation.notes:
        say(f"       {note}")
    if explanation.terms:
        say(f"       {'term':<16} {'qtf':>3} {'tf':>3} {'df':>5} {'idf':>7} {'norm':>7} {'weight':>7} "
            f"{'q.weight':>8} {'contrib':>8}")
        for t in explanation.terms:
            say(f"       {terminal_text(t.term)[:16]:<16} {t.query_count:>3} {t.tf:>3} {t.df:>5} {t.idf:>7.4f} "
                f"{t.norm:>7.4f} {t.weight:>7.4f} {t.query_weight:>8.4f} {t.contribution:>8.4f}")
        say(f"       {'total':<16} {'':>48} {explanation.total:>8.4f}")


class TerminalProgress:
    """Long work (loading, chunking, analysing) on one stderr line that redraws itself.

    Only for a person at a terminal: with stderr a pipe or a file it reports
    nothing, so scripts and logs get no carriage returns. Used as a context, it
    wipes its line on the way out, before warnings or results are printed.
    """

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.width = 0  # characters of the line on screen
        self.last = 0.0

    def __call__(self, done: int, total: int, label: str) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < _PROGRESS_EVERY_S:
            return
        self.last = now
        line = f"ranklens: {label} {done:,}" + (f" of {total:,}" if total else "")
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.width = len(line)

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            self.width = 0
