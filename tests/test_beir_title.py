"""BEIR records index title + text by default, as BEIR's published baselines do; a flag or the toml turns it off."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from tests.support.cli import run_on
from tests.support.files import write_jsonl

# "warranty" is a word of a title only: found when titles are indexed, unknown when they are not.
RECORDS = [
    {"_id": "w", "title": "Warranty", "text": "the battery lasts eighteen months"},
    {"_id": "s", "title": "Shipping", "text": "parcels arrive in three days"},
]


def beir(folder: Path, toml: str | None = None, records: list[dict] = RECORDS) -> Path:
    folder.mkdir(parents=True)
    write_jsonl(folder / "corpus.jsonl", records)
    write_jsonl(folder / "queries.jsonl", [{"_id": "q", "text": "warranty"}])
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\tw\t1\n", encoding="utf-8")
    if toml is not None:
        (folder / "ranklens.toml").write_text(toml, encoding="utf-8")
    return folder


def found(capsys: pytest.CaptureFixture[str], corpus: Path, *options: str) -> list[str]:
    run = run_on(capsys, corpus.parent, "search", str(corpus), "warranty", "--json", *options)
    assert run.status == 0, run.err
    return [row["id"] for row in run.json["results"]]


def test_a_title_word_finds_its_chunk_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = beir(tmp_path / "c")
    assert found(capsys, folder) == ["w"]
    assert found(capsys, folder, "--no-index-title") == []
    run = run_on(capsys, tmp_path, "eval", str(folder), "--json")
    assert run.json["per_question"][0]["rank"] == 1


def test_the_toml_wins_over_the_default_and_the_flag_over_the_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = beir(tmp_path / "c", "index_title = false\n")
    assert load_corpus(folder).settings["index_title"] is False
    assert found(capsys, folder) == []
    assert found(capsys, folder, "--index-title") == ["w"]


def test_a_single_jsonl_file_indexes_titles_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "records.jsonl"
    write_jsonl(path, RECORDS)
    assert found(capsys, path) == ["w"]
    assert found(capsys, path, "--no-index-title") == []


def test_untitled_records_set_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An untitled group of passages is named after its "doc" key; that name is not indexed as a title.
    folder = beir(tmp_path / "c", records=[
        {"_id": "w-0", "title": "", "text": "the battery lasts", "doc": "warranty"},
        {"_id": "w-1", "title": "", "text": "eighteen months", "doc": "warranty"},
    ])
    assert "index_title" not in load_corpus(folder).settings
    assert found(capsys, folder) == []


def test_text_folders_and_bundled_corpora_keep_titles_out(tmp_path: Path) -> None:
    # A text file's title is its heading (already in its text) or its file name: not indexed.
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "warranty.txt").write_text("the battery lasts", encoding="utf-8")
    assert "index_title" not in load_corpus(tmp_path / "notes").settings
    # The lesson's numbers come from passage text alone: its corpora say so in their ranklens.toml.
    for name in ("studio-alfa", "battery", "bateria"):
        assert load_corpus(name).settings["index_title"] is False


CRANFIELD = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"


@pytest.mark.skipif(not CRANFIELD.is_dir(), reason=f"Cranfield collection not found: looked for {CRANFIELD}")
def test_cranfield_with_titles_scores_as_bm25s_run_the_usual_way(tmp_path: Path) -> None:
    # bm25s the usual way: title + " " + text, bm25s.tokenize's defaults, lucene k1 1.2 b 0.75.
    # ranklens gets the same tokens through bm25s' English stop list; everything else is its default.
    import json
    import math

    import bm25s
    from bm25s.stopwords import STOPWORDS_EN

    from ranklens.engine.retriever import Workbench, setup_for

    stop = tmp_path / "bm25s-en.txt"
    stop.write_text("\n".join(STOPWORDS_EN) + "\n", encoding="utf-8")
    corpus = load_corpus(CRANFIELD)
    assert corpus.settings["index_title"] is True

    def ranklens_ndcg(*overrides: dict) -> float:
        setup = setup_for(corpus, {"scorer": "bm25", "stopwords": str(stop)}, *overrides)
        return Workbench(corpus).retriever(setup).evaluate(latency_sample=1).metrics["ndcg@10"]

    docs = [json.loads(line) for line in (CRANFIELD / "corpus.jsonl").open(encoding="utf-8")]
    ids = [str(d["_id"]) for d in docs]
    qrels: dict[str, dict[str, int]] = {}
    for line in (CRANFIELD / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query, doc, grade = line.split("\t")
        if int(grade) > 0:
            qrels.setdefault(query, {})[doc] = max(int(grade), qrels.get(query, {}).get(doc, 0))
    questions = [q for q in corpus.questions if q.id in qrels]

    def bm25s_ndcg(with_title: bool) -> float:
        texts = [f"{d.get('title', '')} {d['text']}" if with_title else d["text"] for d in docs]
        model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        model.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
        found, _ = model.retrieve(bm25s.tokenize([q.text for q in questions], show_progress=False), k=10,
                                  show_progress=False)
        total = 0.0
        for question, row in zip(questions, found):
            grades = qrels[question.id]
            dcg = sum(grades.get(ids[j], 0) / math.log2(rank + 2) for rank, j in enumerate(row))
            ideal = sorted(grades.values(), reverse=True)[:10]
            total += dcg / sum(g / math.log2(rank + 2) for rank, g in enumerate(ideal))
        return total / len(questions)

    with_titles, without = ranklens_ndcg(), ranklens_ndcg({"index_title": False})
    assert with_titles == pytest.approx(bm25s_ndcg(True), abs=1e-3)  # a tie or two may order differently
    assert without == pytest.approx(bm25s_ndcg(False), abs=1e-3)
    assert with_titles > without + 0.005  # titles are what published BEIR baselines index
