"""A small BEIR corpus judged two ways, for the coverage warning: sparsely (one chunk per question) or fully."""
from __future__ import annotations

from pathlib import Path

from tests.support.files import beir_folder

# every question matches several documents: a sparse judgment leaves most of each top 10 unjudged
RECORDS = [{"_id": f"d{i}", "text": text} for i, text in enumerate([
    "the red cat sleeps on the warm mat", "a red fox runs past the cat", "the cat and the dog share a mat",
    "red paint on the old door", "the dog barks at the red car", "a mat for the dog by the door",
    "green trees and a red roof", "the cat watches the dog", "an old car with a red door",
    "the fox and the dog in the snow", "a warm mat and a sleeping cat", "the car door is red",
])]
QUERIES = [{"_id": "q1", "text": "red cat on a mat"}, {"_id": "q2", "text": "the dog and the door"},
           {"_id": "q3", "text": "red car door"}]
RELEVANT = {"q1": "d0", "q2": "d5", "q3": "d11"}


def judged_corpus(folder: Path, fully: bool, answers: dict[str, str] | None = None) -> Path:
    """The corpus with one relevant document per question, and every other one judged 0 when ``fully``;
    ``answers`` gives questions an answer span."""
    rows = [f"{qid}\t{doc}\t1\n" for qid, doc in RELEVANT.items()]
    if fully:
        rows += [f"{qid}\t{r['_id']}\t0\n" for qid, doc in RELEVANT.items() for r in RECORDS if r["_id"] != doc]
    queries = [{**q, "answer": answers[q["_id"]]} if q["_id"] in (answers or {}) else q for q in QUERIES]
    return beir_folder(folder, RECORDS, queries, "".join(rows))


def qrels_from_file(qrels_file: Path) -> dict[str, dict[str, int]]:
    """A BEIR qrels TSV as {question: {id: grade}}."""
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_file.read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def tops_from_file(run_file: Path, depth: int = 10) -> dict[str, list[str]]:
    """Each question's top ``depth`` ids of a TREC run file, by its rank column."""
    ranked: dict[str, list[tuple[int, str]]] = {}
    for line in run_file.read_text(encoding="utf-8").splitlines():
        qid, _, doc, rank, _, _ = line.split()
        ranked.setdefault(qid, []).append((int(rank), doc))
    return {qid: [doc for _, doc in sorted(pairs)[:depth]] for qid, pairs in ranked.items()}


def coverage_from_files(run_file: Path, qrels_file: Path, depth: int = 10,
                        whole: frozenset[str] = frozenset()) -> float:
    """The judged share of each question's top ``depth`` read straight from a TREC run and a BEIR qrels TSV,
    averaged over the questions judged relevant that the run ranks something for; those in ``whole``
    (with an answer span) count as wholly judged."""
    qrels, tops = qrels_from_file(qrels_file), tops_from_file(run_file, depth)
    shares = [1.0 if qid in whole else sum(doc in qrels[qid] for doc in tops[qid]) / len(tops[qid])
              for qid in sorted(qrels) if qid in tops and any(grade >= 1 for grade in qrels[qid].values())]
    return sum(shares) / len(shares)
