"""Text files' bytes decoded: a byte order mark's encoding, else UTF-8, else Windows-1252 or Latin-1, said.

The rule, in order: a UTF-32, UTF-16 or UTF-8 byte order mark decides; bytes
that are valid UTF-8 are UTF-8 (text in a legacy single-byte encoding is almost
never valid UTF-8 once it holds a non-ASCII letter); otherwise the file is
Windows-1252 when it uses one of the printable characters that encoding puts at
0x80-0x9F (curly quotes, the euro sign, dashes) and Latin-1 when it does not
(there the two agree). A detector of many encodings (charset-normalizer) guesses
Cyrillic or Greek single-byte code pages for short Western texts; files in those
are rare enough in a handbook folder that the plain rule wins, and it is said.
"""
from __future__ import annotations

import codecs

# (byte order mark, the codec that reads past it, its name): UTF-32 LE's mark first, since it begins with UTF-16 LE's
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"), (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"), (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
)
_CP1252_ONLY = frozenset(range(0x80, 0xA0)) - {0x81, 0x8D, 0x8F, 0x90, 0x9D}  # bytes Latin-1 makes controls


def marked_encoding(head: bytes) -> tuple[str, str] | None:
    """(codec, name) of text starting with ``head``, by its byte order mark; None without one."""
    return next(((codec, name) for mark, codec, name in _MARKS if head.startswith(mark)), None)


def decode(data: bytes, name: str, notes: list[str]) -> str:
    """``data`` as text; a note in ``notes`` when it was not UTF-8 (or bytes had to be replaced)."""
    marked = marked_encoding(data[:4])
    if marked is not None:
        codec, encoding = marked
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            notes.append(f"{name}: not valid {encoding}, bad bytes replaced")
            return data.decode(codec, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if _CP1252_ONLY.isdisjoint(data):
        notes.append(f"{name}: not UTF-8, read as Latin-1 (ISO-8859-1)")
        return data.decode("latin-1")
    notes.append(f"{name}: not UTF-8, read as Windows-1252")
    return data.decode("cp1252", errors="replace")
