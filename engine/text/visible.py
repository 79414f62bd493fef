"""Untrusted text made safe for a terminal: every character that could act on it made visible.

Control characters (ESC starts ANSI/OSC sequences that would drive the
terminal) become their Unicode control pictures (␛, ␇, …) or \\x escapes; bidi
overrides and zero-width characters are shown as ⟨U+XXXX⟩ so they cannot
reorder or hide text. Plain Python: the CLI and the TUI both use it.
"""
from __future__ import annotations

import re

_BIDI_AND_INVISIBLE = {
    0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
    0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF,
}
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"
    + "".join(re.escape(chr(c)) for c in sorted(_BIDI_AND_INVISIBLE))
    + "]"
)


def _visible(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟ control pictures
    if code == 0x7F:
        return "␡"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"⟨U+{code:04X}⟩"


def clean(text: str, keep_newlines: bool = True) -> str:
    """``text`` with every character that could act on the terminal made visible."""
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    if not keep_newlines:
        text = text.replace("\n", " ")
    return _UNSAFE.sub(_visible, text)
