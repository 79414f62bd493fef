"""A small BEIR corpus whose questions carry tags, for results by a question field (engine/comparing/strata.py)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.support.files import beir_folder

STUDIO_QUERIES = Path(__file__).resolve().parents[2] / "corpora" / "studio-alfa" / "queries.jsonl"
TEXTS = ["the cat sat on the mat", "a dog chased the cat around the garden",
         "cats and dogs are pets that people keep at home", "the stock market fell as traders sold shares",
         "shares of the market leader rose sharply today today today", "a garden needs water sun and care"]
# q1 has two tags, q5 none; q6 is judged on nothing, so compare leaves it out
QUERIES = [{"_id": "q1", "text": "cat on a mat", "tags": ["pets", "home"]},
           {"_id": "q2", "text": "market shares today", "tags": ["money"]},
           {"_id": "q3", "text": "garden care water", "tags": ["home"]},
           {"_id": "q4", "text": "dogs at home", "tags": ["pets"]},
           {"_id": "q5", "text": "traders sold shares"},
           {"_id": "q6", "text": "an unanswerable question", "tags": ["other"]}]
QRELS = "q1\tc0\t2\nq1\tc2\t1\nq2\tc3\t1\nq2\tc4\t2\nq3\tc5\t1\nq3\tc1\t1\nq4\tc2\t1\nq5\tc3\t1\n"


def tagged_corpus(folder: Path, queries: list[dict] | None = None) -> Path:
    """The corpus in ``folder`` (``queries`` in place of QUERIES when given)."""
    records = [{"_id": f"c{i}", "text": text} for i, text in enumerate(TEXTS)]
    return beir_folder(folder, records, queries or QUERIES, QRELS)


def tags_of(queries: list[dict] = QUERIES) -> dict[str, list[str]]:
    """Each question's strata by "tags", read from the records: "(none)" for none."""
    return {r["_id"]: r.get("tags") or ["(none)"] for r in queries}


def studio_answerable() -> list[dict]:
    """studio-alfa's answerable questions (those with an answer span), read straight from its queries.jsonl."""
    records = [json.loads(line) for line in STUDIO_QUERIES.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if r.get("answer")]
