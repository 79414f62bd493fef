"""Twenty chunks judged under the default chunking (``judgments --judge``) count under another by the text they
covered: on Cranfield (skipped when its copy is absent) and on a folder of text documents, ``eval`` re-chunked
says how many were carried, and the chunks they reach are the ones the rule names.

The oracle reads the workspace's log as JSON lines and applies the rule with plain loops over the re-chunked
chunks (overlap >= half the shorter of chunk and span; a span judged 0 covering half a chunk).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from ranklens.engine.corpus import Chunk, Question
from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.workspace.store import Workspace
from tests.support.files import text_folder
from tests.support.cli import run_cli
from tests.support.judged_twenty import (CRANFIELD, JUDGED_TOGETHER, cranfield_twenty_fixture,  # noqa: F401
                                         judge_twenty, needs_cranfield)

CHUNKINGS = [("--size", "50", "--overlap", "10"), ("--size", "30", "--overlap", "0"),
             ("--chunker", "sentences", "--size", "40", "--overlap", "1")]


def by_the_rule(log: Path, chunks: list[Chunk]) -> tuple[dict[str, dict[str, int]], int, int]:
    """question -> chunk id -> grade the log's span judgments give ``chunks``, how many judgments name a text no
    chunk covers exactly, and how many of those reach a chunk."""
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    exact = {(c.doc_id, c.start, c.end, c.id) for c in chunks}
    grades: dict[str, dict[str, int]] = {}
    zeros: dict[str, set[str]] = {}
    moved = carried = 0
    for line in lines:
        doc, start, end, grade = line["doc"], line["start"], line["end"], line["grade"]
        if (doc, start, end, line["id"]) in exact:
            grades.setdefault(line["question"], {})[line["id"]] = max(grade, grades.get(line["question"], {})
                                                                      .get(line["id"], 0))
            continue
        moved += 1
        reached = []
        for chunk in chunks:
            if chunk.doc_id != doc:
                continue
            overlap = min(chunk.end, end) - max(chunk.start, start)
            need = (chunk.end - chunk.start) if grade == 0 else min(chunk.end - chunk.start, end - start)
            if overlap > 0 and overlap >= need / 2:
                reached.append(chunk.id)
        carried += bool(reached)
        for ident in reached:
            if grade > 0:
                mine = grades.setdefault(line["question"], {})
                mine[ident] = max(grade, mine.get(ident, 0))
            else:
                zeros.setdefault(line["question"], set()).add(ident)
    for question, idents in zeros.items():
        for ident in idents:
            grades.setdefault(question, {}).setdefault(ident, 0)
    return grades, moved, carried


def check(capsys, corpus_arg: str, ws: Path, only_mine: bool) -> None:  # noqa: ANN001
    judged = judged_corpus(load_corpus(corpus_arg), Workspace(ws))
    workbench = Workbench(judged.corpus)
    for chunking in CHUNKINGS:
        report = run_cli(capsys, "eval", corpus_arg, "--workspace", str(ws), *chunking, "--json")
        assert report.status == 0, report.err
        overrides = dict(zip([c.lstrip("-") for c in chunking[::2]], chunking[1::2]))
        setup = setup_for(judged.corpus, {k: v if k == "chunker" else int(v) for k, v in overrides.items()})
        retriever = workbench.retriever(setup)
        expected, moved, carried = by_the_rule(ws / "judgments.jsonl", list(retriever.chunks))
        assert report.json["judgments"]["by_text"] == {"judgments": moved, "carried": carried}, chunking
        assert moved == 20 and carried > 0
        for question in judged.corpus.questions:
            found = {retriever.chunks[i].id: g for i, g in retriever.judged(question).items()}
            mine = expected.get(question.id, {})
            if only_mine:  # the workspace's questions: nothing but these judgments decides their chunks
                assert found == mine, (chunking, question.id)
            else:  # the corpus' own qrels may grade a chunk higher, never lower
                assert all(found.get(ident, -1) >= grade for ident, grade in mine.items() if grade > 0), question.id


@needs_cranfield
@JUDGED_TOGETHER
def test_cranfield_judgments_carry_to_other_chunkings(capsys, cranfield_twenty: Path) -> None:  # noqa: ANN001
    check(capsys, str(CRANFIELD), cranfield_twenty, only_mine=False)


def test_text_folder_judgments_carry_to_other_chunkings(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    rng = random.Random(7)
    vocabulary = [f"{a}{b}" for a in ("al", "be", "ga", "de", "ep", "ze") for b in ("ta", "ro", "mi", "su", "ne")]

    def sentence() -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(rng.randint(4, 14))).capitalize() + "."

    files = {f"note{d}.md": " ".join(sentence() for _ in range(rng.randint(15, 40))) for d in range(8)}
    folder = text_folder(tmp_path / "docs", files)
    ws = tmp_path / "ws"
    Workspace(ws).add_questions([Question(f"q{i}", " ".join(rng.sample(vocabulary, 3))) for i in range(5)])
    judge_twenty(capsys, str(folder), ws, [f"q{i}" for i in range(5)])
    check(capsys, str(folder), ws, only_mine=True)
