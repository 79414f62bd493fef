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
settings.json      the workspace's own settings: {"rater_rule": "majority"} (engine/raters.py)
runs/NAME.run      a saved TREC run
runs/NAME.json     its sidecar: setup, corpus identity, depth, date, headline measures
.lock              taken (fcntl.flock) by every writer
```

Concurrency: every write holds an exclusive ``flock`` on ``.lock``, appends whole lines
to the log (or replaces a file by an atomic rename), so two ranklens on one workspace
interleave their judgments and lose none. Readers take no lock: a log line still being
written (no newline yet) is ignored. Undo appends a reversal to the log (the judgment's
previous grade, or its absence); nothing is ever rewritten in place. Ids in the judgments
are chunk ids (or document ids) as ``Retriever.relevant`` reads them; a grade <= 0 judges
a chunk not relevant, which also overrides the corpus' own qrels for that pair.

Raters: each line carries ``"rater"`` (a line without one is the unnamed rater's, ``""``). Each
rater has their own grade of a pair; a line's ``previous`` is that rater's grade before it, and
undo takes back the latest judgment *of the rater undoing* that is not undone yet, restoring their
previous grade, so one rater never undoes another's work (the unnamed rater's old lines are
anyone's to take back). Where several raters graded a pair,
the workspace's rater rule (engine/raters.py) makes the one grade that counts and that ``qrels``
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
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens.engine.corpus import Corpus, Question, normalise_space
from ranklens.engine.errors import RanklensError, json_problem
from ranklens.engine.grades import DEFAULT_MAX_GRADE, check_grade, max_grade
from ranklens.engine.judgment_log import Judgment, Ratings, combined, log_line, read_entry, replay
from ranklens.engine.raters import DEFAULT_RULE, UNNAMED, check_rater, check_rule, default_rater
from ranklens.engine.trec import Run, atomic_write, qrels_text, read_run, write_run
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_KEY_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
RULE_KEY = "rater_rule"  # settings.json's key naming the workspace's rater rule



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
        self.max_grade = max_grade  # judgments are refused above it (engine/grades.py)
        # who judges and undoes unless a call names another: the login name unless given
        self.rater = default_rater() if rater is None else check_rater(rater)

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
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _next_line(self, path: Path) -> int:
        """The number the next appended line of ``path`` gets; call it holding the lock.

        A last line without its newline, under the lock, is what a writer that crashed
        mid-line left: it is cut off so the next line does not join it.
        """
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return 1
        except OSError as error:
            raise RanklensError(f"cannot read {path}: {error.strerror or error}") from None
        whole = data.rfind(b"\n") + 1
        if whole < len(data):
            os.truncate(path, whole)
        return data.count(b"\n") + 1

    def _append(self, path: Path, lines: Sequence[str]) -> None:
        # one write of whole lines, under the lock: a reader sees each line whole or not at all
        self._next_line(path)
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("".join(lines))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            raise RanklensError(f"cannot write {path}: {error.strerror or error}") from None

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
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise RanklensError(f"{path}:{lineno}: not valid JSON ({json_problem(error)})") from None
            if not isinstance(record, dict):
                raise RanklensError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, record

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
        return [read_entry(record, lineno, self.log_path) for lineno, record in self._jsonl(self.log_path)]

    def ratings(self) -> Ratings:
        """The log replayed rater by rater: question id -> id -> rater -> grade, raters in the order their
        grades were given (the last is the latest), questions and ids in the order first judged."""
        return replay(self.log())

    def judgments(self) -> dict[str, dict[str, int]]:
        """The log replayed: question id -> {id: grade}, several raters' grades of a pair made one by the
        workspace's rater rule; questions in the order first judged."""
        return combined(self.ratings(), self.rater_rule())

    def rater_rule(self) -> str:
        """The workspace's rule for several raters' grades of one pair (``settings.json``), ``latest`` unless set."""
        value = self._settings().get(RULE_KEY, DEFAULT_RULE)
        return check_rule(value if isinstance(value, str) else repr(value), f"{self.settings_path}: {RULE_KEY}")

    def set_rater_rule(self, rule: str) -> None:
        """Declare ``rule`` (engine/raters.py) the workspace's rater rule; the qrels file follows it."""
        check_rule(rule, RULE_KEY)
        with self.locked():
            settings = {**self._settings(), RULE_KEY: rule}
            atomic_write(self.settings_path, json.dumps(settings, ensure_ascii=False, indent=2) + "\n")
            atomic_write(self.qrels_path, qrels_text(combined(self.ratings(), rule)))

    def _settings(self) -> dict[str, Any]:
        if not self.settings_path.is_file():
            return {}
        try:
            settings = json.loads(self.settings_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise RanklensError(f"{self.settings_path}: not readable workspace settings ({error})") from None
        if not isinstance(settings, dict):
            raise RanklensError(f"{self.settings_path}: not workspace settings (expected a JSON object)")
        return settings

    def judge(self, question: str, ident: str, grade: int | None, *, rater: str | None = None) -> Judgment:
        """Grade ``ident`` for ``question`` (None: take the judgment back) as ``rater`` (default: the
        workspace's); appended to the log."""
        return self.judge_many([(question, ident, grade)], rater=rater)[-1]

    def judge_many(self, rows: Sequence[tuple[str, str, int | None]], *, rater: str | None = None) -> list[Judgment]:
        """Several judgments by ``rater`` (default: the workspace's) under one lock, in order (an import); the
        qrels file is rewritten once.

        A grade off the workspace's scale (0..``max_grade``), or a bad rater's name, is refused (``GradeError``,
        ``RanklensError``) before any is written.
        """
        rater = self.rater if rater is None else check_rater(rater)
        for _, _, grade in rows:
            if grade is not None:
                check_grade(grade, self.max_grade)
        with self.locked():
            rule = self.rater_rule()
            entries = self.log()
            ratings = replay(entries)
            mine = {(q, ident): by[rater] for q, ids in ratings.items() for ident, by in ids.items() if rater in by}
            line = self._next_line(self.log_path) - 1
            lines, made = [], []
            for question, ident, grade in rows:
                line += 1
                made.append(Judgment(line, "judge", question, ident, grade, mine.get((question, ident)),
                                     rater=rater))
                lines.append(log_line(made[-1]))
                if grade is None:
                    mine.pop((question, ident), None)
                else:
                    mine[question, ident] = grade
            self._append(self.log_path, lines)
            atomic_write(self.qrels_path, qrels_text(combined(replay([*entries, *made]), rule)))
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
                                target.previous, current, target.line, target.rater)
            self._append(self.log_path, [log_line(reversal)])
            atomic_write(self.qrels_path, qrels_text(combined(replay([*entries, reversal]), rule)))
        return reversal

    # -- the corpus with the workspace -------------------------------------------------------

    def apply(self, corpus: Corpus) -> tuple[Corpus, list[str]]:
        """The corpus with the workspace's questions added and its judgments over the corpus' own.

        A workspace question with a corpus question's id replaces its text. A judgment with
        grade <= 0 moves that id from the question's relevant ones to its ``nonrelevant``. Returns warnings
        (judgments naming questions or ids the corpus does not have, counted).
        """
        own = self.questions()
        judgments = self.judgments()
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
            for ident, grade in grades.items():
                if ident not in known and ident.rpartition("#")[0] not in known:
                    unknown_ids += 1
                if grade > 0:
                    relevant[ident] = grade
                    nonrelevant.discard(ident)
                else:
                    relevant.pop(ident, None)
                    nonrelevant.add(ident)
            by_id[qid] = dataclasses.replace(judged, relevant=relevant, nonrelevant=frozenset(nonrelevant),
                                             unjudged=judged.unjudged and not grades)
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

    def save_run(self, name: str, run: Run, meta: Mapping[str, Any], *, replace: bool = False) -> SavedRun:
        """Write ``runs/NAME.run`` and its sidecar ``runs/NAME.json``. A run saved under ``name`` already is
        replaced only with ``replace``; otherwise ``RunExists`` is raised and the saved run stays whole."""
        path = self.run_path(name)
        with self.locked():
            if not replace and (path.exists() or path.with_suffix(".json").exists()):
                raise RunExists(f"a run named {name!r} is saved already in {self.runs_dir}")
            self.runs_dir.mkdir(exist_ok=True)
            write_run(path, run, name)
            # the sidecar last: a run is listed once both files are whole
            atomic_write(path.with_suffix(".json"), json.dumps(dict(meta), ensure_ascii=False, indent=2) + "\n")
        return SavedRun(name, run, dict(meta), path)

    def run_names(self) -> list[str]:
        """Saved runs (those with a sidecar), by name."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(p.stem for p in self.runs_dir.glob("*.run") if p.with_suffix(".json").is_file())

    def has_run(self, name: str) -> bool:
        return bool(_RUN_NAME.match(name)) and name in self.run_names()

    def load_run(self, name: str) -> SavedRun:
        path = self.run_path(name)
        if not path.is_file():
            raise RanklensError(f"no saved run {name!r} in {self.root}")
        return SavedRun(name, read_run(path), read_sidecar(path.with_suffix(".json")) or {}, path)


def read_sidecar(path: Path) -> dict[str, Any] | None:
    """A run's JSON sidecar, None when there is none."""
    if not path.is_file():
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RanklensError(f"{path}: not a readable run sidecar ({error})") from None
    if not isinstance(meta, dict):
        raise RanklensError(f"{path}: not a run sidecar (expected a JSON object)")
    return meta
