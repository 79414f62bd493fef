"""An answer span that no document holds is said at load, naming its question; one that Markdown's markup
used to split (``**25 days** of paid annual leave``) is found in the stripped text and evaluated."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranklens.engine.corpus import Document, Question
from ranklens.engine.corpus.loaders.answer_check import answers_found_nowhere, nowhere_line
from tests.support.cli import run_cli
from tests.support.files import text_folder


def test_answers_are_looked_for_in_every_document_white_space_aside() -> None:
    documents = [Document("a", "", "Leave:  25\ndays a year"), Document("b", "", "Badges at the desk")]
    questions = [Question("q1", "leave?", answer="25 days"), Question("q2", "badge?", answer="the  desk"),
                 Question("q3", "lift?", answer="never the lift"), Question("q4", "none"),
                 Question("q5", "across?", answer="year Badges")]  # never across two documents
    assert answers_found_nowhere(documents, questions) == ["q3", "q5"]
    assert nowhere_line(["q3"]) == "answer text found in no document (not a chunk that cut it): question q3"
    assert nowhere_line([f"q{i}" for i in range(7)]).endswith("questions q0, q1, q2, q3, q4 and 2 more")


def test_eval_names_the_question_whose_answer_is_nowhere(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = text_folder(tmp_path / "handbook", {
        "leave.md": "# Leave\n\nYou get **25 days** of paid annual leave.\n",
        "badges.md": "# Badges\n\nBadges are handed out at the front desk.\n",
        "queries.jsonl": "".join(json.dumps(q) + "\n" for q in (
            {"_id": "q1", "text": "how much paid leave", "answer": "25 days of paid annual leave"},
            {"_id": "q2", "text": "where are badges", "answer": "at the reception"},
        )),
    })
    run = run_cli(capsys, "eval", str(folder), "--json")
    assert run.status == 0
    assert "ranklens: warning: answer text found in no document (not a chunk that cut it): question q2" in run.err
    ranks = {row["id"]: row["rank"] for row in run.json["per_question"]}
    assert ranks["q1"] == 1 and ranks["q2"] is None
