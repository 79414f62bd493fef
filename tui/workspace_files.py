"""The palette's imports and exports of the workspace's questions and judgments (as `ranklens judgments`
does them: engine/workspace/transfer.py). Each runs as ``run(workspace, corpus as loaded, path) -> what to
tell`` in a thread worker; an import changes the workspace, so the app applies it again afterwards."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ranklens.tui.metric_text import plural

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.workspace.store import Workspace


@dataclass(frozen=True)
class WorkspaceFile:
    name: str  # the palette's entry
    prompt: str
    imports: bool  # True: the workspace changes; False: a file is written
    run: Callable[[Workspace, Corpus, Path], str]


def _import_questions(workspace: Workspace, corpus: Corpus, path: Path) -> str:
    from ranklens.engine.workspace.transfer import import_questions

    return f"imported {plural(len(import_questions(workspace, path)), 'question')} from {path}"


def _import_qrels(workspace: Workspace, corpus: Corpus, path: Path) -> str:
    from ranklens.engine.workspace.transfer import import_qrels

    known = {q.id for q in workspace.apply(corpus)[0].questions}
    count, warnings = import_qrels(workspace, path, known)
    return " · ".join([f"imported {plural(count, 'judgment')} from {path} (undo takes them back one by one)",
                       *warnings])


def _export_qrels(workspace: Workspace, corpus: Corpus, path: Path) -> str:
    from ranklens.engine.workspace.transfer import export_qrels

    return f"exported {plural(export_qrels(workspace.apply(corpus)[0], path), 'judgment')} to {path}"


def _export_questions(workspace: Workspace, corpus: Corpus, path: Path) -> str:
    from ranklens.engine.workspace.transfer import export_questions

    return f"exported {plural(export_questions(workspace.apply(corpus)[0], path), 'question')} to {path}"


WORKSPACE_FILES = (
    WorkspaceFile("Import questions…", "Import questions: a queries.jsonl or a TSV of id<TAB>text", True,
                  _import_questions),
    WorkspaceFile("Import judgments (qrels)…", "Import judgments: a TREC or BEIR qrels file", True, _import_qrels),
    WorkspaceFile("Export judgments (qrels)…", "Export every judgment as a TREC qrels file", False, _export_qrels),
    WorkspaceFile("Export questions…", "Export every question as a queries.jsonl", False, _export_questions),
)
