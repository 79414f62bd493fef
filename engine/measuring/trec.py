"""TREC run and qrels files: what trec_eval, ranx and ir_measures read and write.

A run line is ``qid Q0 docid rank score tag`` and a qrels line ``qid 0 docid grade``,
fields separated by white space. Reading is strict about shape (a malformed line is a
``RanklensError`` naming ``file:line``) and lenient about content, which it counts in
``warnings`` instead:

- **Ties.** trec_eval ignores the rank column and orders a question's lines by score,
  breaking ties by docid (descending); ranx sorts by score with an unstable sort, so its
  order among equal scores is arbitrary. ranklens orders by score (descending), then by
  the rank column, then by line order: a run ranklens wrote reads back in the order it
  was ranked. Equal scores within a question are counted.
- **Repeated docids** within a question keep their best-ranked line; the rest are counted.
- **Empty questions** (in the qrels but not in the run) are the caller's to count: see
  ``engine/measuring/measures`` (they score 0, as ranx's ``make_comparable`` and trec_eval ``-c`` do).
- **Qrels** repeated for a (question, id) pair keep the highest grade; a BEIR row
  ``qid<TAB>docid<TAB>grade`` (and its header line) is read too. ``read_qrels`` is the engine's
  one qrels reader: the corpus loader reads a BEIR folder's ``qrels/*.tsv`` through it, in a
  stricter layout of its own (``engine/corpus/loaders/questions.py``).

Ids cannot hold white space in these formats. ranklens writes white space in an id (a text
folder's file names may have it) as ``%20`` (space), ``%09`` (tab), ``%0A``…, ``%uXXXX`` beyond
Latin-1, and ``%`` as ``%25``, and reads those escapes back; other text is left as it is.

Only the standard library: the TUI can import this before numpy loads.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from ranklens.engine.errors import RanklensError

_NEEDS_ESCAPE = re.compile(r"[%\s]")
# only what encode_id writes: %, and the characters str.split() splits on
_ESCAPED = re.compile(r"%(?:u[0-9A-Fa-f]{4}|25|20|09|0[A-Da-d]|1[C-Fc-f]|85|[Aa]0)")


def encode_id(ident: str) -> str:
    """``ident`` as one white-space-free TREC field (``%``, space, tab, CR, LF escaped)."""
    if not _NEEDS_ESCAPE.search(ident):
        return ident
    return "".join((f"%{ord(ch):02X}" if ord(ch) < 256 else f"%u{ord(ch):04X}") if ch == "%" or ch.isspace() else ch
                   for ch in ident)


def decode_id(field_text: str) -> str:
    """The id a TREC field holds: the escapes ``encode_id`` writes, undone."""
    if "%" not in field_text:
        return field_text
    return _ESCAPED.sub(lambda m: chr(int(m.group(0)[2:] if m.group(0)[1] == "u" else m.group(0)[1:], 16)),
                        field_text)


@dataclass
class Run:
    """A ranking per question: question id -> [(chunk id, score)], best first.

    ``tag`` is the run's name in the files' sixth column; ``warnings`` are the
    oddities met while reading (counted, one line each).
    """

    rankings: dict[str, list[tuple[str, float]]]
    tag: str = "ranklens"
    warnings: list[str] = field(default_factory=list)

    def ids(self) -> dict[str, list[str]]:
        """Question id -> chunk ids, best first: what the measures read."""
        return {qid: [doc for doc, _ in ranking] for qid, ranking in self.rankings.items()}


@dataclass
class Qrels:
    """Judgments: question id -> {chunk or document id: grade}; grade <= 0 judges non-relevance."""

    judgments: dict[str, dict[str, int]]
    warnings: list[str] = field(default_factory=list)


STANDARD_STREAM = "-"  # as a file name: standard input to the readers here, standard output to the writers


def shown_path(path: str | os.PathLike[str]) -> Path:
    """How messages name ``path``: ``<stdin>`` for ``-``."""
    return Path("<stdin>") if str(path) == STANDARD_STREAM else Path(path)


def read_text(path: str | os.PathLike[str]) -> str:
    """A text file's content (``-``: standard input), invalid UTF-8 replaced; unreadable is a ``RanklensError``."""
    try:
        data = sys.stdin.buffer.read() if str(path) == STANDARD_STREAM else Path(path).read_bytes()
    except OSError as error:
        raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None
    return data.decode("utf-8", errors="replace")


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``text`` as the file ``path``, atomically (``atomic_write``), or on standard output for ``-``."""
    if str(path) == STANDARD_STREAM:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write(Path(path), text)


def _lines(path: str | os.PathLike[str]) -> list[str]:
    return read_text(path).splitlines()


def read_run(path: str | os.PathLike[str]) -> Run:
    """A TREC run file (``-``: standard input), ordered by score, then rank column, then line (see the module
    docstring)."""
    lines = _lines(path)
    path = shown_path(path)
    rows: dict[str, list[tuple[float, int, int, str]]] = {}
    tags: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 6:
            raise RanklensError(f"{path}:{lineno}: expected 6 fields (qid Q0 docid rank score tag), "
                                f"got {len(fields)}")
        qid, _, doc, rank_text, score_text, tag = fields
        try:
            rank = int(rank_text)
        except ValueError:
            raise RanklensError(f"{path}:{lineno}: rank {rank_text!r} is not a whole number") from None
        try:
            score = float(score_text)
        except ValueError:
            raise RanklensError(f"{path}:{lineno}: score {score_text!r} is not a number") from None
        if not math.isfinite(score):
            raise RanklensError(f"{path}:{lineno}: score {score_text!r} is not a finite number")
        rows.setdefault(decode_id(qid), []).append((-score, rank, lineno, decode_id(doc)))
        tag = decode_id(tag)  # written with encode_id, as ids are
        tags[tag] = tags.get(tag, 0) + 1
    rankings: dict[str, list[tuple[str, float]]] = {}
    ties = repeats = 0
    for qid, entries in rows.items():
        entries.sort()
        seen: set[str] = set()
        ranking: list[tuple[str, float]] = []
        for negative, _, _, doc in entries:
            if doc in seen:
                repeats += 1
                continue
            seen.add(doc)
            if ranking and ranking[-1][1] == -negative:
                ties += 1
            ranking.append((doc, -negative))
        rankings[qid] = ranking
    warnings = []
    if ties:
        warnings.append(f"{path}: {ties} line(s) tie the score of the line above; ordered by their rank column "
                        "(trec_eval orders ties by docid, ranx arbitrarily)")
    if repeats:
        warnings.append(f"{path}: {repeats} repeated docid(s) within a question; the best-ranked line kept")
    if len(tags) > 1:
        warnings.append(f"{path}: {len(tags)} different tags; read as one run")
    tag = max(tags, key=tags.__getitem__) if tags else path.stem
    return Run(rankings, tag, warnings)


def write_run(path: str | os.PathLike[str], run: Run | Mapping[str, Sequence[tuple[str, float]]],
              tag: str | None = None) -> None:
    """Write ``run`` as a TREC run file (``-``: standard output), questions in the given order, ranks from 1.

    The write is atomic (a temporary file renamed over ``path``): a reader sees the
    old file or the new one, never half of one.
    """
    write_text(path, run_text(run, tag))


def run_text(run: Run | Mapping[str, Sequence[tuple[str, float]]], tag: str | None = None) -> str:
    """``run`` as the lines of a TREC run file, questions in the given order, ranks from 1."""
    rankings = run.rankings if isinstance(run, Run) else run
    name = encode_id(tag or (run.tag if isinstance(run, Run) else "ranklens"))
    return "".join(f"{encode_id(qid)} Q0 {encode_id(doc)} {rank} {score!r} {name}\n"
                   for qid, ranking in rankings.items() for rank, (doc, score) in enumerate(ranking, 1))


def _trec_row(line: str, lineno: int, path: Path) -> tuple[str, str, int] | None:
    """``qid 0 docid grade``, or BEIR's ``qid docid grade`` (its header line skipped); None for a line to skip."""
    fields = line.split()
    if not fields or fields[0].startswith("#"):
        return None
    if len(fields) == 3:  # BEIR: query-id, corpus-id, score; the first line may be a header
        qid, doc, grade_text = fields
        if lineno == 1 and not grade_text.lstrip("-").isdigit():
            return None
    elif len(fields) == 4:
        qid, _, doc, grade_text = fields
    else:
        raise RanklensError(f"{path}:{lineno}: expected 4 fields (qid 0 docid grade), got {len(fields)}")
    try:
        grade = int(grade_text)
    except ValueError:
        raise RanklensError(f"{path}:{lineno}: grade {grade_text!r} is not a whole number") from None
    return decode_id(qid), decode_id(doc), grade


@dataclass(frozen=True)
class QrelsLayout:
    """How a qrels file's lines read: ``row`` gives a line's (question id, id, grade), None for a line to skip
    (blank, comment, header), and raises ``RanklensError`` naming ``file:line`` for a malformed one;
    ``repeated`` is the warning for rows judging a pair judged before ("{path}", "{count}" filled in)."""

    row: Callable[[str, int, Path], tuple[str, str, int] | None]
    repeated: str


# white-space separated, 4 fields or BEIR's 3, %-escaped ids (encode_id), "#" comments
TREC_QRELS = QrelsLayout(_trec_row, "{path}: {count} repeated (question, id) row(s); the highest grade kept")


def read_qrels(path: str | os.PathLike[str], layout: QrelsLayout = TREC_QRELS,
               keep: Callable[[str, str, int], bool] | None = None) -> Qrels:
    """A qrels file: by default TREC's (``qid 0 docid grade``) or a BEIR qrels TSV (``qid docid grade``,
    header allowed); the corpus loader reads BEIR folders with its own stricter ``layout``.

    A (question, id) pair judged on several rows keeps its highest grade, whatever the row order;
    the repeated rows are counted, whether kept or not. ``keep(qid, id, grade)`` False leaves a row
    out of the judgments (the loader keeps relevant rows naming known ids). ``-`` reads standard input.
    """
    lines = _lines(path)
    path = shown_path(path)
    judgments: dict[str, dict[str, int]] = {}
    seen: set[tuple[str, str]] = set()
    repeats = 0
    for lineno, line in enumerate(lines, 1):
        row = layout.row(line, lineno, path)
        if row is None:
            continue
        qid, doc, grade = row
        if (qid, doc) in seen:
            repeats += 1
        seen.add((qid, doc))
        if keep is not None and not keep(qid, doc, grade):
            continue
        grades = judgments.setdefault(qid, {})
        grades[doc] = max(grade, grades[doc]) if doc in grades else grade
    warnings = [layout.repeated.format(path=path, count=repeats)] if repeats else []
    return Qrels(judgments, warnings)


def write_qrels(path: str | os.PathLike[str], qrels: Qrels | Mapping[str, Mapping[str, int]]) -> None:
    """Write judgments as a TREC qrels file (``qid 0 docid grade``), atomically (``-``: standard output)."""
    judgments = qrels.judgments if isinstance(qrels, Qrels) else qrels
    write_text(path, qrels_text(judgments))


def qrels_text(judgments: Mapping[str, Mapping[str, int]]) -> str:
    """Judgments as TREC qrels lines, questions and ids in the given order."""
    return "".join(f"{encode_id(qid)} 0 {encode_id(doc)} {grade}\n"
                   for qid, grades in judgments.items() for doc, grade in grades.items())


def atomic_write(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` through a temporary file in the same folder and a rename.

    The rename is atomic on POSIX: a concurrent reader sees the old content or the new,
    and a crash leaves the old file whole (at worst a stray ``.tmp`` beside it). A replaced
    file keeps its permissions; a new one gets those the umask gives any file.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # on disk before the rename makes it the file
        if path.exists():
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except (OSError, ValueError) as error:  # ValueError: a name the file system cannot encode
        if isinstance(error, OSError):
            with suppress(OSError):  # a read-only disk refuses this too
                temporary.unlink(missing_ok=True)
        reason = getattr(error, "strerror", None) or error
        raise RanklensError(f"cannot write {path}: {reason}") from None


_TEMPORARY = re.compile(r"^\..+\.(\d+)\.\d+\.tmp$")  # atomic_write's: .NAME.PID.THREAD.tmp


def remove_stale_temporaries(folder: Path) -> None:
    """Delete the temporary files ``atomic_write`` left in ``folder`` when its process was killed before
    the rename: those whose process is gone. Best effort: what cannot be listed or deleted stays."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        match = _TEMPORARY.match(name)
        if match and not _alive(int(match.group(1))):
            with suppress(OSError):
                os.unlink(folder / name)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, say
        return True
    return True


def count_unknown(run: Run, questions: Iterable[str], ids: set[str]) -> list[str]:
    """Warnings for a run's questions and ids that the corpus does not know (counted, not fatal)."""
    known_questions = set(questions)
    unknown_questions = [qid for qid in run.rankings if qid not in known_questions]
    unknown_ids = sum(1 for ranking in run.rankings.values() for doc, _ in ranking if doc not in ids)
    warnings = []
    if unknown_questions:
        warnings.append(f"{len(unknown_questions)} question(s) of the run are not the corpus' (ignored)")
    if unknown_ids:
        warnings.append(f"{unknown_ids} ranked id(s) are not chunks of the corpus (never relevant)")
    return warnings
