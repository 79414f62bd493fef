"""The chunker setting, declared once: the command line, ranklens.toml, the setup's defaults and the chunk sweep.

The oracle of the chunks is langchain-text-splitters' RecursiveCharacterTextSplitter.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import run_cli

splitters = pytest.importorskip("langchain_text_splitters")

LEAVE = ("Every employee receives 25 days of paid annual leave per year.\n\n"
         "Unused days carry over to the next year, up to five days.\n\n") * 30
EXPENSES = "Travel is booked in economy class.\nMeals are paid up to 40 EUR a day.\n" * 40


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "leave.txt").write_text(LEAVE, encoding="utf-8")
    (tmp_path / "expenses.txt").write_text(EXPENSES, encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "how many days of paid leave", "answer": "25 days of paid annual leave"}\n'
        '{"_id": "q2", "text": "meals limit", "answer": "up to 40 EUR a day"}\n', encoding="utf-8")
    return tmp_path


def langchain(text: str, size: int, overlap: int) -> list[str]:
    return splitters.RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap).split_text(text)


def test_a_chunker_without_a_size_takes_its_own_default(folder: Path) -> None:
    corpus = load_corpus(folder)
    setup = setup_for(corpus, {"chunker": "recursive"})
    assert (setup.size, setup.overlap) == (1000, 200)  # characters, not the 100 words of the words chunker
    chunks = Workbench(corpus).retriever(setup).chunks
    expected = [text for doc in corpus.documents for text in langchain(doc.text, 1000, 200)]
    assert [c.text for c in chunks] == expected
    assert "chunks recursive 1000/200 characters" in setup.describe()


def test_ranklens_toml_chooses_the_chunker(folder: Path) -> None:
    (folder / "ranklens.toml").write_text('chunker = "recursive"\nsize = 300\noverlap = 50\n', encoding="utf-8")
    corpus = load_corpus(folder)
    chunks = Workbench(corpus).retriever(setup_for(corpus)).chunks
    assert [c.text for c in chunks] == [t for d in corpus.documents for t in langchain(d.text, 300, 50)]


def test_eval_and_search_take_the_chunker_on_the_command_line(capsys, folder: Path) -> None:
    search = run_cli(capsys, "search", str(folder), "paid leave", "--chunker", "recursive", "--size", "120",
                     "--overlap", "0", "--json").json
    assert search["results"][0]["text"] in langchain(LEAVE, 120, 0)
    evaluation = run_cli(capsys, "eval", str(folder), "--chunker", "markdown", "--json").json
    assert evaluation["metrics"]["hit@1"] == 1.0
    bad = run_cli(capsys, "eval", str(folder), "--chunker", "pages")
    assert bad.status == 2 and "--chunker" in bad.err and len(bad.err.strip().splitlines()) == 1


def test_sweep_chunks_compares_chunkers_each_in_its_own_units(capsys, folder: Path) -> None:
    data = run_cli(capsys, "sweep", "chunks", str(folder), "--chunkers", "words,recursive", "--json").json
    cells = [(c["chunker"], c["size"], c["overlap"]) for c in data["cells"]]
    assert cells == [("words", s, o) for s in (20, 40, 60, 100) for o in (0, s // 4)] + [
        ("recursive", s, o) for s in (250, 500, 1000, 2000) for o in (0, s // 4)]
    recursive_250 = next(c for c in data["cells"] if (c["chunker"], c["size"], c["overlap"]) == ("recursive", 250, 0))
    assert recursive_250["chunks"] == len(langchain(LEAVE, 250, 0)) + len(langchain(EXPENSES, 250, 0))
    human = run_cli(capsys, "sweep", "chunks", str(folder), "--chunkers", "recursive", "--sizes", "250")
    assert human.status == 0 and "\nrecursive (characters)\n" in human.out
    bad = run_cli(capsys, "sweep", "chunks", str(folder), "--chunkers", "words,pages")
    assert bad.status == 2 and "--chunkers: unknown chunker 'pages'" in bad.err
