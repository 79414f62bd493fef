"""Two runs on one corpus' questions: measures side by side, paired tests, the questions that moved.

Each side is a run with the judgments resolved under its own chunking (two setups that
chunk differently are each measured against their own chunks). The questions compared are
those with something relevant on either side, in the corpus' order; a question a run does
not rank scores 0 there. For each measure: the means of A and B, Δ = B - A, the paired
t-test's and the randomization test's two-sided p-values, and the bootstrap 95 % interval
of Δ (``engine/comparing/significance.py``); wins, ties and losses count questions where B is above,
equal to or below A. Each side's coverage (the judged share of its top 10, ``engine/comparing/coverage.py``)
says when a difference may come from chunks nobody judged.

The sides themselves are made here too, the same way for every front end: a run of a setup
made now (``setup_run``, also what saving a run writes), or a saved run of the workspace
(``saved_side``: its sidecar's setup decides the chunking its judgments are resolved under).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ranklens.engine.corpus import Question
from ranklens.engine.comparing.coverage import Coverage, judged_coverage
from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.measures import Measure, first_relevant_rank, parse_measures, relevant_only
from ranklens.engine.comparing.significance import (PERMUTATIONS, SEED, bootstrap_ci, paired_t_test, randomization_test,
                                          wins_ties_losses)
from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.measuring.trec import Run

if TYPE_CHECKING:
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace.store import SavedRun


@dataclass
class RunSide:
    """One side of a comparison: a run and the judgments (question -> {chunk id: grade}) it is measured by."""

    label: str  # as the user named it: a saved run, a file, an inline setup
    run: Run
    qrels: Mapping[str, Mapping[str, int]]
    describe: str = ""  # the setup in one line, when known
    setup: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()  # what reading the run found: unknown ids, ties, questions missing
    # ids it ranks that are no chunk of its chunking (a user's retriever's hits the corpus cannot place)
    not_chunks: frozenset[str] = frozenset()


@dataclass(frozen=True)
class MeasureRow:
    name: str
    a: float
    b: float
    p_ttest: float
    p_randomization: float
    ci95: tuple[float, float]
    wins: int
    ties: int
    losses: int

    @property
    def delta(self) -> float:
        return self.b - self.a


@dataclass(frozen=True)
class QuestionRow:
    id: str
    text: str
    a: dict[str, float]
    b: dict[str, float]
    rank_a: int | None  # rank of the first relevant chunk in A's run (None: not retrieved)
    rank_b: int | None


@dataclass
class Comparison:
    a: RunSide
    b: RunSide
    rows: list[MeasureRow]
    questions: list[QuestionRow]
    permutations: int
    seed: int
    notes: list[str] = field(default_factory=list)
    coverage: Coverage | None = None  # each side's judged share of its top 10, and the warning when it is low

    @property
    def primary(self) -> MeasureRow:
        """The first measure asked for: the one wins, ties and losses are counted by."""
        return self.rows[0]

    def moved(self, limit: int | None = None) -> list[QuestionRow]:
        """Questions by how much the first measure moved (|Δ|, largest first), unmoved ones left out."""
        name = self.primary.name
        moved = [q for q in self.questions if abs(q.b[name] - q.a[name]) > 1e-12]
        moved.sort(key=lambda q: -abs(q.b[name] - q.a[name]))
        return moved[:limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": {"label": self.a.label, "setup": self.a.describe or None},
            "b": {"label": self.b.label, "setup": self.b.describe or None},
            "questions": len(self.questions),
            "permutations": self.permutations,
            "seed": self.seed,
            "metrics": {row.name: {"a": row.a, "b": row.b, "delta": row.delta, "p_ttest": _none(row.p_ttest),
                                   "p_randomization": _none(row.p_randomization),
                                   "ci95": [_none(row.ci95[0]), _none(row.ci95[1])],
                                   "wins": row.wins, "ties": row.ties, "losses": row.losses}
                        for row in self.rows},
            "by": self.primary.name,
            "wins": self.primary.wins,
            "ties": self.primary.ties,
            "losses": self.primary.losses,
            "per_question": [{"id": q.id, "text": q.text, "a": q.a, "b": q.b, "rank_a": q.rank_a,
                              "rank_b": q.rank_b} for q in self.questions],
            "notes": list(self.notes),
            "coverage": None if self.coverage is None else self.coverage.to_dict(),
        }


def _none(value: float) -> float | None:
    return None if value != value else value  # NaN is not JSON


def compare_runs(a: RunSide, b: RunSide, questions: Sequence[Question], measures: str | Sequence[Measure],
                 permutations: int = PERMUTATIONS, seed: int = SEED) -> Comparison:
    """Measure both sides on the questions judged on either, and test every measure's Δ."""
    chosen = parse_measures(measures) if isinstance(measures, str) else list(measures)
    rows: list[QuestionRow] = []
    for question in questions:
        grades_a, grades_b = a.qrels.get(question.id, {}), b.qrels.get(question.id, {})
        rel_a, rel_b = relevant_only(grades_a), relevant_only(grades_b)
        if not rel_a and not rel_b:
            continue
        ranked_a = [doc for doc, _ in a.run.rankings.get(question.id, ())]
        ranked_b = [doc for doc, _ in b.run.rankings.get(question.id, ())]
        rows.append(QuestionRow(question.id, question.text,
                                {m.name: m(ranked_a, grades_a) for m in chosen},
                                {m.name: m(ranked_b, grades_b) for m in chosen},
                                first_relevant_rank(ranked_a, rel_a), first_relevant_rank(ranked_b, rel_b)))
    if not rows:
        raise RanklensError("no question has anything judged relevant: nothing to compare "
                            "(judge some results, or import qrels)")
    notes = []
    for side in (a, b):
        missing = sum(1 for q in rows if q.id not in side.run.rankings)
        if missing:
            notes.append(f"{side.label}: {missing} compared question(s) not in the run (scored 0)")
    measure_rows = []
    for measure in chosen:
        va = [q.a[measure.name] for q in rows]
        vb = [q.b[measure.name] for q in rows]
        wins, ties, losses = wins_ties_losses(va, vb)
        measure_rows.append(MeasureRow(measure.name, sum(va) / len(va), sum(vb) / len(vb), paired_t_test(va, vb),
                                       randomization_test(va, vb, permutations, seed), bootstrap_ci(va, vb, seed=seed),
                                       wins, ties, losses))
    compared = {q.id for q in rows}
    coverage = judged_coverage({"A": a, "B": b}, [q for q in questions if q.id in compared])
    return Comparison(a, b, measure_rows, rows, permutations, seed, notes, coverage)


# -- the sides --------------------------------------------------------------------------------


def judged_setup(setup: Setup) -> Setup:
    """``setup`` with a cheap scorer: resolving judgments reads the chunking only, never a model."""
    return setup.replace(scorer="bm25", rerank=None)


def resolved_judgments(workbench: Workbench, setup: Setup) -> dict[str, dict[str, int]]:
    """The workbench's questions' judgments as chunk ids under ``setup``'s chunking."""
    from ranklens.engine.measuring.runs import resolved_qrels

    return resolved_qrels(workbench.retriever(judged_setup(setup)), workbench.corpus.questions)


def run_depth(setup: Setup) -> Setup:
    """The setup a run is made with: ``setup`` ranking DEFAULT_DEPTH chunks per question unless it asks for more
    (the screen's k is for reading; measures such as R@100 need a deep run)."""
    from ranklens.engine.measuring.runs import DEFAULT_DEPTH

    return setup if setup.k >= DEFAULT_DEPTH else setup.replace(k=DEFAULT_DEPTH)


def setup_run(workbench: Workbench, setup: Setup, name: str,
              progress: Progress = no_progress) -> tuple[Run, dict[str, Any], dict[str, dict[str, int]]]:
    """A run of every question of the workbench's corpus under ``setup`` (at ``setup.k`` chunks each), its
    sidecar (setup, corpus identity, depth, date, headline measures) and its judgments as chunk ids."""
    from ranklens.engine.measuring.measures import DEFAULT_MEASURES, measure_run
    from ranklens.engine.measuring.runs import corpus_identity, make_run

    corpus = workbench.corpus
    if not corpus.questions:
        raise RanklensError(f"{corpus.name} has no questions to run: save a query as a question first")
    retriever = workbench.retriever(setup, progress)
    run = make_run(retriever, corpus.questions, setup.k, name, progress)
    qrels = resolved_judgments(workbench, retriever.setup)
    measured = measure_run(run.ids(), qrels, DEFAULT_MEASURES)
    meta: dict[str, Any] = {
        "name": name,
        "corpus": corpus_identity(corpus),
        "setup": retriever.setup.to_dict(),
        "describe": retriever.description,
        "backend": retriever.source or None,  # the collection that ranked, when one did
        "k": retriever.setup.k,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "questions": len(run.rankings),
        "judged": sum(1 for grades in qrels.values() if any(grade >= 1 for grade in grades.values())),
        "metrics": measured.means if measured.questions else {},
    }
    return run, meta, qrels


def setup_side(label: str, workbench: Workbench, setup: Setup, progress: Progress = no_progress) -> RunSide:
    """A side made now: ``setup``'s run of every question."""
    run, meta, qrels = setup_run(workbench, setup, label, progress)
    # only a backend ranks what is no chunk: ranklens' own setups rank chunks alone
    not_chunks = _not_chunks(run, workbench, setup) if meta["backend"] else frozenset()
    return RunSide(label, run, qrels, meta["describe"], meta["setup"], not_chunks=not_chunks)


def _not_chunks(run: Run, workbench: Workbench, setup: Setup) -> frozenset[str]:
    chunk_ids = {c.id for c in workbench.retriever(judged_setup(setup)).chunks}
    return frozenset(doc for ranking in run.rankings.values() for doc, _ in ranking if doc not in chunk_ids)


def saved_side(saved: SavedRun, workbench: Workbench) -> RunSide:
    """A saved run (or a TREC run file, its sidecar as ``meta`` when it has one) as a side, its judgments
    resolved under the chunking of the setup in its sidecar; the side's notes count its unknown ids.

    Raises ``RanklensError`` when the run is of another corpus: its sidecar names another one (or another
    version of it), or none of its ids is a chunk or a question of this one.
    """
    from ranklens.engine.retriever import setup_for
    from ranklens.engine.measuring.runs import corpus_identity
    from ranklens.engine.setup import Setup
    from ranklens.engine.measuring.trec import count_unknown

    corpus, run, meta = workbench.corpus, saved.run, saved.meta
    where = f"run {saved.name!r}" if saved.path.stem == saved.name else str(saved.path)
    identity = meta.get("corpus") or {}
    if identity and identity.get("fingerprint") != corpus_identity(corpus)["fingerprint"]:
        raise RanklensError(f"{where} is a run of corpus {identity.get('name')!r} ({identity.get('documents')} "
                            f"documents), not of {corpus.name!r} as loaded now: runs of different corpora "
                            "cannot be compared")
    stored = meta.get("setup")
    if isinstance(stored, dict):
        try:
            setup = Setup.from_mapping(stored, source=f"{where}'s sidecar")
        except RanklensError as error:
            raise RanklensError(f"{where}: its sidecar's setup is not one this ranklens reads ({error})") from None
    else:
        setup = setup_for(corpus)  # a foreign run file: the corpus' own chunks
    chunk_ids = {c.id for c in workbench.retriever(judged_setup(setup)).chunks}
    ranked = {doc for ranking in run.rankings.values() for doc, _ in ranking}
    if ranked and not ranked & chunk_ids:
        raise RanklensError(f"{where}: none of its {len(ranked)} ranked ids is a chunk of {corpus.name!r}: "
                            "a run of another corpus (or another chunking) cannot be compared")
    question_ids = [q.id for q in corpus.questions]
    if run.rankings and not set(run.rankings) & set(question_ids):
        raise RanklensError(f"{where}: none of its questions is a question of {corpus.name!r}: a run of another "
                            "corpus cannot be compared")
    # ranklens' own runs tie scores wherever search does; their rank column keeps its order
    notes = [w for w in run.warnings if not (meta and " tie " in w)]
    notes += [f"{where}: {w}" for w in count_unknown(run, question_ids, chunk_ids)]
    describe = str(meta.get("describe") or ("" if meta else "a TREC run file"))
    return RunSide(saved.name, run, resolved_judgments(workbench, setup), describe,
                   stored if isinstance(stored, dict) else None, tuple(notes), frozenset(ranked - chunk_ids))


def saved_measures(saved: SavedRun, workbench: Workbench,
                   measures: str | Sequence[Measure] | None = None) -> dict[str, float]:
    """A saved run's ``measures`` (default: the headline ones its sidecar keeps from when it was saved)
    against the workbench's judgments now, resolved under its own chunking; empty when nothing is judged
    relevant."""
    from ranklens.engine.measuring.measures import DEFAULT_MEASURES, measure_run

    side = saved_side(saved, workbench)
    measured = measure_run(side.run.ids(), side.qrels, DEFAULT_MEASURES if measures is None else measures)
    return measured.means if measured.questions else {}


# -- two rankings of one question ------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """A chunk of one side's ranking: its rank there, whether that side's judgments call it relevant,
    and how many places higher B ranks it than A (``move``; negative: lower). ``status`` is "moved"
    (in both rankings), "new" (in B's only) or "dropped" (in A's only); ``move`` is None for those.
    """

    rank: int
    id: str
    relevant: bool
    move: int | None
    status: str


def side_by_side(a: Sequence[str], b: Sequence[str], relevant_a: Mapping[str, int], relevant_b: Mapping[str, int],
                 depth: int) -> tuple[list[Placed], list[Placed]]:
    """A's and B's top ``depth`` chunks of one question, each with its move (B against A, over the whole
    rankings) and whether its side's judgments call it relevant (grade >= 1)."""
    rank_a = {doc: i for i, doc in enumerate(a, 1)}
    rank_b = {doc: i for i, doc in enumerate(b, 1)}
    left = [Placed(i, doc, relevant_a.get(doc, 0) >= 1, i - rank_b[doc] if doc in rank_b else None,
                   "moved" if doc in rank_b else "dropped") for i, doc in enumerate(a[:depth], 1)]
    right = [Placed(i, doc, relevant_b.get(doc, 0) >= 1, rank_a[doc] - i if doc in rank_a else None,
                    "moved" if doc in rank_a else "new") for i, doc in enumerate(b[:depth], 1)]
    return left, right
