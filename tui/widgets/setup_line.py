"""The line that always says which corpus and setup every number on screen comes from."""
from __future__ import annotations

from textual.content import Content

from ranklens.tui.safe import clean
from ranklens.tui.widgets.fitted_line import FittedLine


class SetupLine(FittedLine):
    """Cut at a word when the terminal is narrower than what it says."""

    def show(self, corpus: str, chunks: int | None, setup: str, status: str = "", error: bool = False,
             language: str = "", through: str = "") -> None:
        """``corpus`` and ``through`` (the collection ranking, when one does) are untrusted (a folder name, a
        URL); the rest is ranklens' own text. ``language`` is the corpus' ("it", or "es (detected)" when
        guessed from its text)."""
        # "studio-alfa 18 chunks it · BM25 lucene k1=1.2 b=0.75 · top 5 · stop=none · stem=none" fills 80 columns
        head = clean(corpus, keep_newlines=False)
        if chunks is not None:
            head += f" {chunks:,} chunk{'' if chunks == 1 else 's'}"
        line = Content(f"{head} {language}" if language else head)
        # The status (progress, an error) comes before the setup, whose end a narrow terminal cuts off.
        if status:
            line = line + Content.styled(f"  {clean(status, keep_newlines=False)} ",
                                         "$text-error" if error else "$text-warning")
        if through:  # before the setup: where the ranking comes from must not be cut off at 80 columns
            line = line + Content(f" · through {clean(through, keep_newlines=False)}")
        if setup:
            line = line + Content(f" · {setup}")
        self.say(line)
