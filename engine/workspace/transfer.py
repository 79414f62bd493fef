"""Questions and judgments in and out of a workspace: the files `ranklens judgments` and the TUI's palette
import and export (queries as JSONL or id<TAB>text, judgments as TREC or BEIR qrels)."""
from __future__ import annotations

import json
import os

from ranklens.engine.corpus import Corpus, Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.grades import GRADE_KEY, on_scale
from ranklens.engine.storage.json_object import parse_object
from ranklens.engine.measuring.trec import read_qrels, read_text, shown_path, write_qrels, write_text
from ranklens.engine.workspace.store import Workspace


def read_questions(path: str | os.PathLike[str]) -> list[Question]:
    """Questions from a queries.jsonl ({"_id", "text", "answer"}) or a TSV of id<TAB>text (``-``: standard input)."""
    lines = read_text(path).splitlines()
    path = shown_path(path)
    questions = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            record = parse_object(line, f"{path}:{lineno}")
            qid, text, answer = record.get("_id"), record.get("text"), record.get("answer")
            if not isinstance(qid, (str, int)) or not isinstance(text, str):
                raise RanklensError(f"{path}:{lineno}: a question needs \"_id\" and \"text\"")
            questions.append(Question(str(qid), text, answer=answer if isinstance(answer, str) and answer else None))
        else:
            qid, tab, text = line.partition("\t")
            if not tab or not qid.strip() or not text.strip():
                raise RanklensError(f"{path}:{lineno}: expected a JSON object or id<TAB>text")
            questions.append(Question(qid.strip(), text.strip()))
    return questions


def import_questions(workspace: Workspace, path: str | os.PathLike[str]) -> list[Question]:
    """The file's questions added to the workspace (an id it already has is replaced); returns them as stored."""
    return workspace.add_questions(read_questions(path))


def import_qrels(workspace: Workspace, path: str | os.PathLike[str], question_ids: set[str]) -> tuple[int, list[str]]:
    """The file's judgments (``-``: standard input) recorded in the workspace (one undoable log entry each), all
    or none: a grade off the workspace's scale refuses the whole file (``RanklensError`` with the count), as
    does a failed write. Returns how many, and warnings: the file's own, and a count of judgments of questions
    outside ``question_ids`` (kept)."""
    qrels = read_qrels(path)
    warnings = list(qrels.warnings)
    rows = [(qid, ident, grade) for qid, grades in qrels.judgments.items() for ident, grade in grades.items()]
    refused = sorted({grade for _, _, grade in rows if not on_scale(grade, workspace.max_grade)})
    if refused:
        count = sum(1 for _, _, grade in rows if grade in refused)
        shown = ", ".join(map(str, refused[:5])) + (" …" if len(refused) > 5 else "")
        raise RanklensError(f"{shown_path(path)}: {count} judgment(s) off the scale 0-{workspace.max_grade} "
                            f"(grades {shown}): nothing imported ({GRADE_KEY} in the corpus' ranklens.toml sets "
                            "the scale's top)")
    unknown = sum(1 for qid, _, _ in rows if qid not in question_ids)
    if unknown:
        warnings.append(f"{shown_path(path)}: {unknown} judgment(s) of questions neither the corpus nor the "
                        "workspace has (kept: import their questions too)")
    if rows:
        workspace.judge_many(rows)
    return len(rows), warnings


def export_qrels(applied: Corpus, path: str | os.PathLike[str]) -> int:
    """Every judgment of ``applied`` (the corpus with the workspace applied) as a TREC qrels file (``-``:
    standard output), judgments of non-relevance included (grade 0); returns how many."""
    judged = {q.id: {**dict(q.relevant), **dict.fromkeys(sorted(q.nonrelevant), 0)}
              for q in applied.questions if q.relevant or q.nonrelevant}
    write_qrels(path, judged)
    return sum(len(grades) for grades in judged.values())


def export_questions(applied: Corpus, path: str | os.PathLike[str]) -> int:
    """Every question of ``applied`` as a queries.jsonl (``_id``, ``text``, ``answer``; ``-``: standard output);
    returns how many."""
    lines = [json.dumps({"_id": q.id, "text": q.text, **({"answer": q.answer} if q.answer else {})},
                        ensure_ascii=False) + "\n" for q in applied.questions]
    write_text(path, "".join(lines))
    return len(lines)
