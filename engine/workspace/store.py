"""A corpus' workspace: the user's own questions, judgments and saved runs, as plain files.

Where: ``--workspace DIR`` when the user names one (a folder they can keep in git, even
inside the corpus folder if they point there), else ``$XDG_DATA_HOME/ranklens/workspaces/KEY``
(``~/.local/share/...`` without XDG_DATA_HOME), KEY being a bundled corpus' name or a
folder's name plus a hash of its absolute path. Nothing is created until something is
written, and nothing is ever written into the corpus folder by default.

```
queries.jsonl      the user's questions: {"_id", "text", optional "answer"} (BEIR's format)
judgments.jsonl    the judgment log, append-only: one JSON object per judgment or undo, naming its rater
qrels              the log replayed, as TREC qrels (qid 0 id grade): rewritten after each change
settings.json      the workspace's own settings: {"rater_rule": "majority"} (engine/judging/raters.py)
runs/NAME.run      a saved TREC run
runs/NAME.json     its sidecar: setup, corpus identity, depth, date, headline measures, the run's digest
                   (a run and sidecar that do not match are half-saved: engine/measuring/runs.py)
.lock              taken (fcntl.flock) by every writer
```

Concurrency: every write holds an exclusive ``flock`` on ``.lock``, appends whole lines
to the log (or replaces a file by an atomic rename), so two ranklens on one workspace
interleave their judgments and lose none. Readers take no lock: a log line still being
written (no newline yet) is ignored.

Faults: a change is whole or not made. One line is appended (cut back when its write fails); several
(an import) are written with the old lines to a new file renamed over the log, so a kill mid-import
leaves the old log. The log is the record and ``qrels`` follows it: a judgment whose qrels file cannot
be written is cut back out of the log, and a qrels file left behind by a writer killed between the two
is rewritten by the next reader that can. The writer holding the lock deletes the temporary files
(``atomic_write``'s) of killed writers. Undo appends a reversal to the log (the judgment's
previous grade, or its absence); nothing is ever rewritten in place. Ids in the judgments
are chunk ids (or document ids) as ``Retriever.relevant`` reads them; a grade <= 0 judges
a chunk not relevant, which also overrides the corpus' own qrels for that pair. A chunk's judgment
records the text it covered (engine/judging/log.py), and counts under another chunking by that text.

Raters: each line carries ``"rater"`` (a line without one is the unnamed rater's, ``""``). Each
rater has their own grade of a pair; a line's ``previous`` is that rater's grade before it, and
undo takes back the latest judgment *of the rater undoing* that is not undone yet, restoring their
previous grade, so one rater never undoes another's work (the unnamed rater's old lines are
anyone's to take back). Where several raters graded a pair,
the workspace's rater rule (engine/judging/raters.py) makes the one grade that counts and that ``qrels``
holds.
"""
from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens.engine.corpus import Corpus, Question, TextSpan, normalise_space
from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.grades import DEFAULT_MAX_GRADE, check_grade, max_grade
from ranklens.engine.storage.json_object import parse_object
from ranklens.engine.judging.log import Judgment, Ratings, Spans, combined, log_line, read_entry, replay, spans
from ranklens.engine.judging.raters import DEFAULT_RULE, UNNAMED, check_rater, check_rule, default_rater
from ranklens.engine.measuring.runs import RunFiles, read_sidecar, run_files, save_pair, sidecar_path
from ranklens.engine.measuring.trec import Run, atomic_write, qrels_text, read_run, read_text, remove_stale_temporaries
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_KEY_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
RULE_KEY = "rater_rule"  # settings.json's key naming the workspace's rater rule



def _settings_text(settings: Mapping[str, Any]) -> str:
    return json.dumps(dict(settings), ensure_ascii=False, indent=2) + "\n"


def data_home() -> Path:
    """The user's data folder: $XDG_DATA_HOME, else ~/.local/share."""
    xdg = os.environ.get("XDG_DATA_HOME")
    return Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"


def corpus_key(corpus: Corpus) -> str:
    """A folder name per corpus: a bundled name as it is, a path as its name plus a hash of where it is."""
    from ranklens.corpora import bundled_path

    bundled = bundled_path(corpus.name)
    source = Path(corpus.source).resolve() if corpus.source else None
    if bundled is not None and source is not None and Path(bundled).resolve() == source:
        return corpus.name
    name = _KEY_SAFE.sub("_", corpus.name).strip("._") or "corpus"
    digest = hashlib.sha256(str(source or corpus.name).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{name[:60]}-{digest}"


def question_key(text: str) -> str:
    """What a typed text is matched to a question by: case folded, white space collapsed, trailing
    punctuation dropped (``"What is X ?"``, ``"what is x"`` and ``" What  is X."`` are one question)."""
    key = normalise_space(text).casefold()
    end = len(key)
    while end and (key[end - 1].isspace() or unicodedata.category(key[end - 1]).startswith("P")):
        end -= 1
    return key[:end]


def known_question(text: str, questions: Iterable[Question]) -> Question | None:
    """The first of ``questions`` asking ``text`` (matched by ``question_key``), None when none does."""
    key = question_key(text)
    if not key:
        return None
    return next((q for q in questions if question_key(q.text) == key), None)


class RunExists(RanklensError):
    """A run is saved under the name already, and replacing it was not asked for."""


@dataclass
class SavedRun:
    """A run of the workspace with its sidecar (``meta``: setup, corpus, k, created, measures)."""

    name: str
    run: Run
    meta: dict[str, Any]
    path: Path


class Workspace:
    """The files of one corpus' workspace; see the module docstring for the layout and the locking."""

    def __init__(self, root: str | os.PathLike[str], max_grade: int = DEFAULT_MAX_GRADE,
                 rater: str | None = None) -> None:
        self.root = Path(root)
        self.max_grade = max_grade  # judgments are refused above it (engine/judging/grades.py)
        # who judges and undoes unless a call names another: the login name unless given
        self.rater = default_rater() if rater is None else check_rater(rater)
        # the log as last read, and the (inode, size, mtime) it was read at: every write changes one of them
        self._read_log: tuple[tuple[int, int, int], list[Judgment]] | None = None

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    @classmethod
    def for_corpus(cls, corpus: Corpus, folder: str | os.PathLike[str] | None = None,
                   rater: str | None = None) -> Workspace:
        """``folder`` when given, else the corpus' folder under the user's data folder; grading on the
        corpus' scale, as ``rater`` (default: the login name)."""
        root = Path(folder) if folder is not None else data_home() / "ranklens" / "workspaces" / corpus_key(corpus)
        return cls(root, max_grade(corpus), rater)

    def as_rater(self, rater: str) -> Workspace:
        """The same workspace, judging and undoing as ``rater``."""
        return Workspace(self.root, self.max_grade, rater)

    # -- files -------------------------------------------------------------------------------

    @property
    def queries_path(self) -> Path:
        return self.root / "queries.jsonl"

    @property
    def log_path(self) -> Path:
        return self.root / "judgments.jsonl"

    @property
    def qrels_path(self) -> Path:
        return self.root / "qrels"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    @property
    def settings_path(self) -> Path:
        return self.root / "settings.json"

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the workspace's write lock (created with the folder on first use)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise RanklensError(f"cannot write the workspace {self.root}: {error.strerror or error}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            # holding the lock, no writer of this workspace is between a temporary file and its rename
            for folder in (self.root, *(p for p in self.root.iterdir() if p.is_dir())):  # runs/, pools/
                remove_stale_temporaries(folder)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _whole_lines(self, path: Path) -> bytes:
        """The whole lines of ``path`` (b"" when there is none); call it holding the lock.

        A last line without its newline, under the lock, is what a writer killed mid-line left:
        it is cut off so the next line does not join it.
        """
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as error:
            raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None
        whole = data[:data.rfind(b"\n") + 1]
        if len(whole) < len(data):
            self._truncate(path, len(whole))
        return whole

    def _next_line(self, path: Path) -> int:
        """The number the next appended line of ``path`` gets; call it holding the lock."""
        return self._whole_lines(path).count(b"\n") + 1

    def _append(self, path: Path, lines: Sequence[str]) -> int:
        """Add ``lines`` to ``path`` as one change, under the lock; returns the file's size before them.

        A reader sees all of them or none: one line is appended (a reader ignores a line without its
        newline); several are written with the old lines to a new file renamed over ``path``, so a kill
        mid-write leaves the file as it was. A failed write (a full disk) leaves it as it was too.
        """
        old = self._whole_lines(path)
        if len(lines) > 1:
            atomic_write(path, old + "".join(lines).encode("utf-8"))
            return len(old)
        existed = path.exists()
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("".join(lines))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            with suppress(OSError):  # else a reader ignores the line without its newline, the next writer cuts it
                if existed:
                    os.truncate(path, len(old))
                else:
                    path.unlink()
            raise RanklensError(f"cannot write {path}: {error.strerror or error}") from None
        return len(old)

    def _truncate(self, path: Path, size: int) -> None:
        try:
            os.truncate(path, size)
        except OSError as error:
            raise RanklensError(f"cannot write {path}: {error.strerror or error}") from None

    def _record(self, lines: Sequence[str], qrels: str, recorded: str) -> None:
        """Append ``lines`` to the judgment log, then make ``qrels`` the qrels file, as one change under the
        lock: when the qrels file cannot be written the log is cut back to what it was, and the error says
        ``recorded`` (what was asked: "1 judgment") was not recorded. A kill between the two writes leaves the
        log, the one record, ahead; ``sync_qrels`` brings the qrels file back in step."""
        size = self._append(self.log_path, lines)
        try:
            atomic_write(self.qrels_path, qrels)
        except RanklensError as error:
            try:
                os.truncate(self.log_path, size)
            except OSError:
                raise RanklensError(f"{error}; {recorded} recorded in {self.log_path} all the same (it could not "
                                    "be taken back): the qrels file follows it at the next change") from None
            raise RanklensError(f"{error}: {recorded} not recorded") from None

    def _sync_qrels(self, judgments: dict[str, dict[str, int]]) -> None:
        """Rewrite the qrels file when it is not ``judgments`` (the log replayed) as TREC qrels: a writer was
        killed between the log and the qrels file. Best effort: a workspace that cannot be written keeps it."""
        text = qrels_text(judgments)
        try:
            if self.qrels_path.read_text(encoding="utf-8") == text:
                return
        except (OSError, UnicodeDecodeError):
            pass
        with suppress(RanklensError), self.locked():
            atomic_write(self.qrels_path, qrels_text(combined(self.ratings(), self.rater_rule())))

    def _jsonl(self, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
        if not path.is_file():
            return
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as error:
            raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None
        lines = text.split("\n")
        complete = lines[:-1]  # the last piece has no newline: empty, or a line still being written
        for lineno, line in enumerate(complete, 1):
            if line.strip():
                yield lineno, parse_object(line, f"{path}:{lineno}")

    # -- questions ---------------------------------------------------------------------------

    def questions(self) -> list[Question]:
        """The workspace's own questions, in file order, without judgments."""
        questions: dict[str, Question] = {}
        for lineno, record in self._jsonl(self.queries_path):
            qid, text = record.get("_id"), record.get("text")
            if not isinstance(qid, (str, int)) or not isinstance(text, str):
                raise RanklensError(f"{self.queries_path}:{lineno}: a question needs a string \"_id\" and \"text\"")
            answer = record.get("answer")
            questions[str(qid)] = Question(str(qid), text, answer=answer if isinstance(answer, str) and answer
                                           else None)
        return list(questions.values())

    def add_questions(self, questions: Sequence[Question], taken: Sequence[str] = ()) -> list[Question]:
        """Append questions; one without an id (``""``) gets ``w1``, ``w2``… avoiding ``taken`` ids.

        A question whose id is already in the workspace replaces it (its line is appended;
        the last line of an id wins). Returns the questions as stored.
        """
        with self.locked():
            existing = {q.id for q in self.questions()}
            used = existing | set(taken)
            stored, lines = [], []
            counter = 1
            for question in questions:
                qid = question.id
                if not qid:
                    while f"w{counter}" in used:
                        counter += 1
                    qid = f"w{counter}"
                used.add(qid)
                record: dict[str, Any] = {"_id": qid, "text": question.text}
                if question.answer:
                    record["answer"] = question.answer
                lines.append(json.dumps(record, ensure_ascii=False) + "\n")
                stored.append(Question(qid, question.text, answer=question.answer))
            if lines:
                self._append(self.queries_path, lines)
        return stored

    def question_for(self, text: str, corpus: Corpus) -> tuple[Question, bool]:
        """The question asking ``text`` (the workspace's or the corpus', matched by ``question_key``: case,
        white space and trailing punctuation aside), added to the workspace when none asks it; True when
        it was added."""
        wanted = text.strip()
        if not wanted:
            raise RanklensError("an empty query cannot be a question: type one first")
        known = known_question(wanted, (*self.questions(), *corpus.questions))
        if known is not None:
            return known, False
        return self.add_questions([Question("", wanted)], taken=[q.id for q in corpus.questions])[0], True

    # -- judgments ---------------------------------------------------------------------------

    def log(self) -> list[Judgment]:
        """Every line of the judgment log, in order."""
        path = self.log_path
        try:
            stat = path.stat()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None
        key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        if self._read_log is None or self._read_log[0] != key:  # a command reads it several times
            self._read_log = key, [read_entry(record, lineno, path) for lineno, record in self._jsonl(path)]
        return list(self._read_log[1])

    def ratings(self) -> Ratings:
        """The log replayed rater by rater: question id -> id -> rater -> grade, raters in the order their
        grades were given (the last is the latest), questions and ids in the order first judged."""
        return replay(self.log())

    def spans(self) -> Spans:
        """The text each judged chunk covered (question id -> id -> span), for the ids judged as chunks."""
        return spans(self.log())

    def judgments(self) -> dict[str, dict[str, int]]:
        """The log replayed: question id -> {id: grade}, several raters' grades of a pair made one by the
        workspace's rater rule; questions in the order first judged."""
        return combined(self.ratings(), self.rater_rule())

    def rater_rule(self) -> str:
        """The workspace's rule for several raters' grades of one pair (``settings.json``), ``latest`` unless set."""
        value = self._settings().get(RULE_KEY, DEFAULT_RULE)
        return check_rule(value if isinstance(value, str) else repr(value), f"{self.settings_path}: {RULE_KEY}")

    def set_rater_rule(self, rule: str) -> None:
        """Declare ``rule`` (engine/judging/raters.py) the workspace's rater rule; the qrels file follows it."""
        check_rule(rule, RULE_KEY)
        with self.locked():
            before = self._settings()
            atomic_write(self.settings_path, _settings_text({**before, RULE_KEY: rule}))
            try:
                atomic_write(self.qrels_path, qrels_text(combined(self.ratings(), rule)))
            except RanklensError as error:
                with suppress(RanklensError):  # the rule is taken back: nothing changed
                    atomic_write(self.settings_path, _settings_text(before))
                raise RanklensError(f"{error}: the rater rule not changed") from None

    def _settings(self) -> dict[str, Any]:
        if not self.settings_path.is_file():
            return {}
        return parse_object(read_text(self.settings_path), str(self.settings_path))

    def judge(self, question: str, ident: str, grade: int | None, *, span: TextSpan | None = None,
              rater: str | None = None) -> Judgment:
        """Grade ``ident`` for ``question`` (None: take the judgment back) as ``rater`` (default: the
        workspace's); appended to the log. The one judging call of the front ends: a chunk is judged with
        ``span``, the text it covers in its document, so that the judgment carries to other chunkings."""
        return self._write([(question, ident, grade, span)], rater)[-1]

    def judge_many(self, rows: Sequence[tuple[str, str, int | None]], *, rater: str | None = None) -> list[Judgment]:
        """Several judgments by ``rater`` (default: the workspace's) under one lock, in order (an import), each
        by its id alone; the qrels file is rewritten once.

        A grade off the workspace's scale (0..``max_grade``), or a bad rater's name, is refused (``GradeError``,
        ``RanklensError``) before any is written.
        """
        return self._write([(question, ident, grade, None) for question, ident, grade in rows], rater)

    def _write(self, rows: Sequence[tuple[str, str, int | None, TextSpan | None]], rater: str | None
               ) -> list[Judgment]:
        rater = self.rater if rater is None else check_rater(rater)
        for _, _, grade, _ in rows:
            if grade is not None:
                check_grade(grade, self.max_grade)
        with self.locked():
            rule = self.rater_rule()
            entries = self.log()
            ratings = replay(entries)
            mine = {(q, ident): by[rater] for q, ids in ratings.items() for ident, by in ids.items() if rater in by}
            line = self._next_line(self.log_path) - 1
            lines, made = [], []
            for question, ident, grade, span in rows:
                line += 1
                made.append(Judgment(line, "judge", question, ident, grade, mine.get((question, ident)),
                                     rater=rater, span=span))
                lines.append(log_line(made[-1]))
                if grade is None:
                    mine.pop((question, ident), None)
                else:
                    mine[question, ident] = grade
            self._record(lines, qrels_text(combined(replay([*entries, *made]), rule)),
                         f"{len(made)} judgment{'' if len(made) == 1 else 's'}")
        return made

    def undo(self, *, rater: str | None = None) -> Judgment | None:
        """Take back ``rater``'s (default: the workspace's) latest judgment not yet undone, by appending its
        reversal; None when that rater has none left. A judgment of the unnamed rater (a log line from before
        raters were recorded) is anyone's to take back; its reversal stays the unnamed rater's."""
        rater = self.rater if rater is None else check_rater(rater)
        with self.locked():
            rule = self.rater_rule()
            entries = self.log()
            undone = {e.undoes for e in entries if e.op == "undo"}
            target = next((e for e in reversed(entries)
                           if e.op == "judge" and e.rater in (rater, UNNAMED) and e.line not in undone), None)
            if target is None:
                return None
            current = replay(entries).get(target.question, {}).get(target.id, {}).get(target.rater)
            reversal = Judgment(self._next_line(self.log_path), "undo", target.question, target.id,
                                target.previous, current, target.line, target.rater, target.span)
            self._record([log_line(reversal)], qrels_text(combined(replay([*entries, reversal]), rule)), "the undo")
        return reversal

    # -- the corpus with the workspace -------------------------------------------------------

    def apply(self, corpus: Corpus) -> tuple[Corpus, list[str]]:
        """The corpus with the workspace's questions added and its judgments over the corpus' own.

        A workspace question with a corpus question's id replaces its text. A judgment with
        grade <= 0 moves that id from the question's relevant ones to its ``nonrelevant``; a chunk's judgment
        keeps the text the chunk covered in the question's ``spans``. Returns warnings
        (judgments naming questions or ids the corpus does not have, counted).
        """
        own = self.questions()
        judgments = self.judgments()
        covered = self.spans()
        if self.log_path.is_file():
            self._sync_qrels(judgments)
        if not own and not judgments:
            return corpus, []
        by_id: dict[str, Question] = {q.id: q for q in corpus.questions}
        for question in own:
            base = by_id.get(question.id)
            # saved without an answer and not judged yet (the judgments below judge it): not unanswerable
            by_id[question.id] = Question(question.id, question.text,
                                          dict(base.relevant) if base else {},
                                          question.answer or (base.answer if base else None),
                                          base.nonrelevant if base else frozenset(),
                                          base.fields if base else {},
                                          unjudged=base is None and not question.answer)
        known = {d.id for d in corpus.documents} | {c.id for c in corpus.chunks}
        unknown_questions = unknown_ids = 0
        for qid, grades in judgments.items():
            judged = by_id.get(qid)
            if judged is None:
                unknown_questions += len(grades)
                continue
            relevant, nonrelevant = dict(judged.relevant), set(judged.nonrelevant)
            texts, judged_texts = dict(judged.spans), covered.get(qid, {})
            for ident, grade in grades.items():
                if ident in judged_texts:
                    texts[ident] = judged_texts[ident]
                else:
                    texts.pop(ident, None)  # judged by its id alone

                if ident not in known and ident.rpartition("#")[0] not in known:
                    unknown_ids += 1
                if grade > 0:
                    relevant[ident] = grade
                    nonrelevant.discard(ident)
                else:
                    relevant.pop(ident, None)
                    nonrelevant.add(ident)
            by_id[qid] = dataclasses.replace(judged, relevant=relevant, nonrelevant=frozenset(nonrelevant),
                                             unjudged=judged.unjudged and not grades, spans=texts)
        warnings = []
        if unknown_questions:
            warnings.append(f"{self.log_path}: {unknown_questions} judgment(s) of questions that are neither the "
                            "corpus' nor the workspace's (ignored)")
        if unknown_ids:
            warnings.append(f"{self.log_path}: {unknown_ids} judgment(s) name ids that are not chunks or "
                            "documents of the corpus")
        return dataclasses.replace(corpus, questions=tuple(by_id.values())), warnings

    # -- runs --------------------------------------------------------------------------------

    def run_path(self, name: str) -> Path:
        if not _RUN_NAME.match(name):
            raise RanklensError(f"run name {name!r}: use letters, digits, '.', '_' and '-' (at most 100)")
        return self.runs_dir / f"{name}.run"

    def run_files(self, name: str) -> RunFiles | None:
        """Whether ``name`` is a saved run, a half-saved one (engine/measuring/runs.py), or no run's (None, also for a
        name no run can have)."""
        return run_files(self.run_path(name)) if _RUN_NAME.match(name) else None

    def save_run(self, name: str, run: Run, meta: Mapping[str, Any], *, replace: bool = False) -> SavedRun:
        """Write ``runs/NAME.run`` and its sidecar ``runs/NAME.json``. A run saved (or half-saved) under ``name``
        already is replaced only with ``replace``; otherwise ``RunExists`` is raised and its files stay as they are."""
        path = self.run_path(name)
        with self.locked():
            there = run_files(path)
            if there is not None and not replace:
                raise RunExists(self.taken(name, there))
            try:
                self.runs_dir.mkdir(exist_ok=True)
            except OSError as error:
                raise RanklensError(f"cannot write {self.runs_dir}: {error.strerror or error}") from None
            remove_stale_temporaries(self.runs_dir)
            written = save_pair(path, run, meta, name)
        return SavedRun(name, run, written, path)

    def taken(self, name: str, files: RunFiles) -> str:
        """What a save under ``name`` finds there, in a sentence."""
        if files is RunFiles.SAVED:
            return f"a run named {name!r} is saved already in {self.runs_dir}"
        return (f"run {name!r} is half-saved in {self.runs_dir} (a save of it was interrupted between its .run "
                "and its .json)")

    def recovery(self, name: str) -> str:
        """How a half-saved run named ``name`` is made whole."""
        return f"save it again, replacing it (ranklens run CORPUS --save {name} --replace)"

    def stored_names(self) -> list[str]:
        """The names of the runs with a file in the workspace, saved or half-saved, by name (their files unread)."""
        if not self.runs_dir.is_dir():
            return []
        names = {p.stem for pattern in ("*.run", "*.json") for p in self.runs_dir.glob(pattern)}
        return sorted(name for name in names if _RUN_NAME.match(name))

    def run_names(self, files: RunFiles = RunFiles.SAVED) -> list[str]:
        """The names of the saved runs (or, given ``RunFiles.HALF_SAVED``, of the half-saved ones); a run whose
        sidecar cannot be read is neither, and is named with its problem when asked for by name."""
        return [name for name in self.stored_names() if self._listed(name) is files]

    def _listed(self, name: str) -> RunFiles | None:
        try:
            return self.run_files(name)
        except RanklensError:
            return None

    def has_run(self, name: str) -> bool:
        return self.run_files(name) is RunFiles.SAVED

    def load_run(self, name: str) -> SavedRun:
        """The run saved under ``name``; a half-saved or missing one is a ``RanklensError`` saying so."""
        path = self.run_path(name)
        files = run_files(path)
        if files is None:
            raise RanklensError(f"no saved run {name!r} in {self.root}")
        if files is RunFiles.HALF_SAVED:
            raise RanklensError(f"{self.taken(name, files)}: {self.recovery(name)}")
        return SavedRun(name, read_run(path), read_sidecar(sidecar_path(path)) or {}, path)
