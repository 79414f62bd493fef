"""Runs of a retriever over questions, and the judgments they are measured against.

A run ranks every question's chunks as ``search`` does (``Retriever.search`` at depth
``k``: chunks scoring nothing are left out), so a saved run holds what a user saw. Its
judgments are the questions' relevance resolved under the run's chunking
(``Retriever.relevant``: qrels naming chunks or documents, or answer spans), as chunk ids.

A saved run is two files: the TREC run and its JSON sidecar beside it (setup, corpus identity,
depth, date, headline measures, and ``run_sha256``, the run file's digest). Each file is
replaced atomically, the run first, but no file system switches two files as one: a writer
killed between the renames leaves a new run beside the old sidecar (or a run without one).
Such a pair is *half-saved*: the sidecar's digest, or the sidecar, is missing for the run, and
it is never read as a saved run, only named so, with the way out (save it again).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranklens.engine.errors import RanklensError
from ranklens.engine.storage.json_object import parse_object
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.measuring.trec import Run, atomic_write, read_text, run_text

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus, Question
    from ranklens.engine.retriever import Retriever

DEFAULT_DEPTH = 100  # chunks per question in a run unless -k says otherwise (TREC runs often hold 1000)
RUN_DIGEST = "run_sha256"  # the sidecar's key holding the SHA-256 of its run file's bytes


def make_run(retriever: Retriever, questions: Sequence[Question], depth: int = DEFAULT_DEPTH,
             tag: str = "ranklens", progress: Progress = no_progress) -> Run:
    """The top ``depth`` chunks of every question, best first, as ``search`` ranks them; a user's own retriever's
    hit that is no chunk keeps its rank under its own id (``Unplaced.run_id``)."""
    from ranklens.engine.backends.base import Unplaced

    rankings: dict[str, list[tuple[str, float]]] = {}
    for i, question in enumerate(questions):
        result = retriever.search(question.text, depth)
        rankings[question.id] = [(hit.run_id if isinstance(hit, Unplaced) else hit.chunk.id, hit.score)
                                 for hit in result.ranked()]
        if (i + 1) % 16 == 0 or i + 1 == len(questions):
            progress(i + 1, len(questions), "ranking questions")
    return Run(rankings, tag)


def resolved_qrels(retriever: Retriever, questions: Sequence[Question]) -> dict[str, dict[str, int]]:
    """Question id -> {chunk id: grade} under the retriever's chunking, for questions with a judgment:
    grade >= 1 relevant, 0 judged not relevant (``ChunkJudge.judged``; measures count grades >= 1)."""
    qrels: dict[str, dict[str, int]] = {}
    for question in questions:
        if not question.answerable and not question.nonrelevant:
            continue
        grades = retriever.judged(question)
        qrels[question.id] = {retriever.chunks[i].id: grade for i, grade in sorted(grades.items())}
    return qrels


def corpus_identity(corpus: Corpus) -> dict[str, object]:
    """What tells one corpus from another in a run's sidecar: its name, source and a fingerprint.

    The fingerprint hashes the documents' ids and text lengths (cheap, and changed by an
    added, removed or edited document); runs of corpora with different fingerprints are not
    compared.
    """
    digest = hashlib.sha256()
    for document in corpus.documents:
        digest.update(f"{document.id}\t{len(document.text)}\n".encode("utf-8", "surrogatepass"))
    return {"name": corpus.name, "documents": len(corpus.documents), "fingerprint": digest.hexdigest()[:16]}


class RunFiles(Enum):
    """What a run file and its sidecar are together."""

    SAVED = "saved"  # both whole, the sidecar describing this run (or, written before digests, any)
    HALF_SAVED = "half-saved"  # one without the other, or a run the sidecar's digest does not match


def sidecar_path(path: Path) -> Path:
    """Where a run file's sidecar is: beside it, ``.json`` for its suffix."""
    return path.with_suffix(".json") if path.suffix != ".json" else path.with_name(path.name + ".sidecar.json")


def read_sidecar(path: Path) -> dict[str, Any] | None:
    """A run's JSON sidecar, None when there is none."""
    if not path.is_file():
        return None
    return parse_object(read_text(path), str(path))


def run_files(path: Path) -> RunFiles | None:
    """Whether the run file ``path`` and its sidecar are a saved run, a half-saved one, or neither is there."""
    sidecar = sidecar_path(path)
    if not path.is_file() and not sidecar.is_file():
        return None
    if not path.is_file() or not sidecar.is_file():
        return RunFiles.HALF_SAVED
    digest = (read_sidecar(sidecar) or {}).get(RUN_DIGEST)
    if digest is not None and digest != _digest(_bytes(path)):
        return RunFiles.HALF_SAVED
    return RunFiles.SAVED


def matching_sidecar(path: Path) -> dict[str, Any] | None:
    """The sidecar beside the run file ``path``, None when there is none (a run file of another tool); a sidecar
    describing another run (a write of the two interrupted) is a ``RanklensError``."""
    if sidecar_path(path).is_file() and run_files(path) is RunFiles.HALF_SAVED:
        raise RanklensError(f"{path}: its sidecar {sidecar_path(path).name} describes another run (writing the two "
                            "was interrupted): write the run again, replacing it")
    return read_sidecar(sidecar_path(path))


def save_pair(path: Path, run: Run, meta: Mapping[str, Any], tag: str) -> dict[str, Any]:
    """Write ``run`` to ``path`` (tagged ``tag``) and then its sidecar, which records the run's digest;
    returns the sidecar as written."""
    text = run_text(run, tag)
    written = {**meta, RUN_DIGEST: _digest(text.encode("utf-8"))}
    atomic_write(path, text)
    atomic_write(sidecar_path(path), json.dumps(written, ensure_ascii=False, indent=2) + "\n")
    return written


def foreign_file(path: Path) -> Path | None:
    """Which of a run file ``path`` and its sidecar ranklens did not write, if one of them is there: writing
    a run to ``path`` replaces both, and replaces only ranklens' own without a yes. A run is ranklens' own
    when a sidecar of ranklens' (setup and corpus named) is beside it."""
    sidecar = sidecar_path(path)
    for each in (path, sidecar):
        if each.exists() and not each.is_file():
            return each
    if not path.exists() and not sidecar.exists():
        return None
    try:
        meta = read_sidecar(sidecar)
    except RanklensError:
        return sidecar
    if meta is None or not {"setup", "corpus"} <= meta.keys():
        return sidecar if sidecar.exists() else path
    return None


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
