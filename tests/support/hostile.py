"""Hostile text: what would style, link, retitle the terminal, write its clipboard or hide itself if it
were ever interpreted; plus wide, combining and right-to-left text. And the check that none got through."""
from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.files import beir_folder

# Every C0 control but newline, DEL and every C1 control: what must never reach a terminal raw.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
# Characters that reorder or hide text on screen; human output shows them as ⟨U+XXXX⟩.
BIDI_OR_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")

# For the command line: one of each kind, by name.
HOSTILE = {
    "markup": "[bold]bold[/] [link=https://evil.example]click[/link] [/] [red on blue]",
    "csi": "colour \x1b[31mred\x1b[0m erase \x1b[2J\x1b[H home",
    "osc-title": "title \x1b]0;pwned title\x07 end",
    "osc8": "hyperlink \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ end",
    "osc52": "clipboard \x1b]52;c;cm0gLXJmIH4=\x07 end",
    "c1": "eight-bit \x9b31m csi \x9d0;title\x9c end",
    "controls": "nul \x00 bell \x07 backspace \x08 delete \x7f return \r tab \t vertical \x0b end",
    "invisible": "zero\u200bwidth joiner\u200d rtl \u202eoverride\u202c isolate \u2067x\u2069 bom \ufeff end",
    "cjk": "東京都に住んでいます 検索エンジン",
    "emoji": "ラーメン🍜が好き 👩‍👩‍👧 family 🔍📄",
}
LONG_LINE = " ".join(f"parola{i % 500}" for i in range(10_000))  # one line of ~100,000 characters

# For the app: texts that also look like Textual markup, as a list (its snapshot depends on them).
HOSTILE_TEXTS = [
    "[bold]x and [/] and [TODO] a",
    "[link=http://x]y[/link] back\\slash \\[bold] [/bold]",
    "ansi \x1b[31mred\x1b[0m title \x1b]0;title\x07 clipboard \x1b]52;c;ZXZpbA==\x07",
    "hyperlink \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ end",
    "zero\u200bwidth rtl \u202eoverride\u202c isolate \u2067x\u2069",
    "CJK 検索エンジン 漢字 emoji 🔍📄 combining e\u0301",
]
_APP_LONG_LINE = "long " + "x" * 100_000
# Ids that are Textual markup: a style, a closing tag with nothing to close (an error if parsed), a word in brackets.
HOSTILE_IDS = ("[bold]x", "[/]", "[TODO] a")


def assert_terminal_safe(text: str) -> None:
    """No character that a terminal would act on, or that would reorder or hide text."""
    assert not RAW_CONTROL.findall(text), sorted(set(RAW_CONTROL.findall(text)))
    assert not BIDI_OR_INVISIBLE.findall(text), sorted(set(BIDI_OR_INVISIBLE.findall(text)))


def hostile_corpus(folder: Path) -> Path:
    """A BEIR folder whose ids, titles, texts and questions are all hostile."""
    records = [{"_id": f"{name} \x1b[7m{i}", "title": text[:30], "text": f"{text} comune"}
               for i, (name, text) in enumerate(HOSTILE.items())]
    records.append({"_id": "long", "title": "[b]long[/b]", "text": LONG_LINE})
    queries = [
        {"_id": "q-csi", "text": "colour \x1b[31mred\x1b[0m comune", "answer": "red"},
        {"_id": "q-osc", "text": "\x1b]0;pwned\x07 clipboard \u202eevil", "answer": "clipboard"},
        {"_id": "q-none", "text": "[bold]nothing[/] \x9b here"},
    ]
    return beir_folder(folder, records, queries)


def write_hostile_corpus(folder: Path) -> Path:
    """A BEIR folder for the app whose titles and texts are all hostile, with questions about them."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [
        {"_id": f"h{i}", "title": text[:40], "text": f"{text} bold todo link red"}
        for i, text in enumerate(HOSTILE_TEXTS)
    ]
    records.append({"_id": "long", "title": "[b]long[/b]", "text": _APP_LONG_LINE})
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    queries = [{"_id": "q1", "text": "[bold] red \x1b[31m", "answer": "red"}, {"_id": "q2", "text": "nothing here"}]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (folder / "qrels").mkdir(exist_ok=True)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\th2\t1\n", encoding="utf-8")
    return folder
