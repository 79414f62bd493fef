"""The one rule for which judgments a number counts, whatever front end or command asks.

The judgments that count are the corpus' own (its qrels and answer spans) plus the
workspace's (the user's questions and graded ids), the latest grade winning: a grade in
the workspace replaces the corpus' for the same question and id, and within the workspace
the log's last line for a pair wins (grade 0 judges an id not relevant). When several raters
graded a pair, the workspace's rater rule (engine/judging/raters.py: latest, mean, majority, max) makes
their grades one, and reports say so (``· 2 raters, majority``). Without a
workspace (``--no-workspace``, the TUI's toggle) the corpus' own judgments count alone.

A chunk judged under one chunking counts under another by the text it covered (engine/judging/positions.py);
``Judged.under`` takes how many did so under the chunking a report measures, and the report says it
(``12 judgments of yours, 9 carried to this chunking by their text``).

``judged_corpus`` applies the rule and says what it used (``Judged.describe`` for people,
``Judged.to_dict`` for JSON): eval, compare-scorers, threshold, the chunk sweep, runs,
compare, why and the TUI's tabs all measure the corpus it returns.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ranklens.engine.judging.raters import DEFAULT_RULE

if TYPE_CHECKING:
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.workspace.store import Workspace


class Carried(NamedTuple):
    """Judgments of chunks counted by their text under a chunking: ``moved`` of them name a chunk this chunking
    does not have (covering the same text), ``carried`` of those reach a chunk of it by the rule."""

    moved: int = 0
    carried: int = 0


@dataclass(frozen=True)
class Judged:
    """A corpus with the judgments the rule counts, and what they were.

    ``workspace`` is None when the corpus' own judgments count alone. ``own_questions``
    and ``own_judgments`` count the workspace's questions and judged (question, id) pairs
    of questions the corpus or the workspace has (0 without a workspace); ``raters`` names who graded
    them, and ``rater_rule`` is the workspace's rule for a pair several raters graded. ``carried`` counts the
    judgments of chunks that the measured chunking does not have, counted by their text (``under``).
    """

    corpus: Corpus
    workspace: Workspace | None
    own_questions: int = 0
    own_judgments: int = 0
    warnings: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    rater_rule: str = DEFAULT_RULE
    carried: Carried = Carried()

    def under(self, carried: Carried) -> Judged:
        """These judgments, measured under a chunking where ``carried`` (``Retriever.carried``) count by their text."""
        return replace(self, carried=carried)

    @property
    def source(self) -> str:
        """``"corpus+workspace"`` or ``"corpus"``: whose judgments count."""
        return "corpus" if self.workspace is None else "corpus+workspace"

    @property
    def questions(self) -> int:
        """Questions with an answer (judged relevant ids or an answer span): those measured."""
        return len(self.corpus.answerable)

    def describe(self) -> str:
        """One line for a report: ``15 questions · 1 judgment of yours`` (or ``· the corpus' judgments only``)."""
        head = f"{self.questions} question{'' if self.questions == 1 else 's'}"
        if self.workspace is None:
            return f"{head} · the corpus' judgments only"
        parts = [f"{self.own_judgments} judgment{'' if self.own_judgments == 1 else 's'} of yours"]
        if self.carried.moved:
            parts[0] += f", {self.carried.carried} carried to this chunking by their text"
        if self.own_questions:
            parts.append(f"{self.own_questions} question{'' if self.own_questions == 1 else 's'} of yours")
        if len(self.raters) > 1:
            parts.append(f"{len(self.raters)} raters, {self.rater_rule}")
        return " · ".join([head, *parts])

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "workspace": None if self.workspace is None else str(self.workspace.root),
                "questions": self.questions, "own_questions": self.own_questions,
                "own_judgments": self.own_judgments, "raters": list(self.raters), "rater_rule": self.rater_rule,
                "by_text": {"judgments": self.carried.moved, "carried": self.carried.carried}}


def judged_corpus(corpus: Corpus, workspace: Workspace | None) -> Judged:
    """``corpus`` (as loaded) with the judgments the rule counts: its own, plus ``workspace``'s unless None.

    Raises ``RanklensError`` when the workspace's files cannot be read; ``Judged.warnings`` count
    its judgments of questions or ids the corpus does not have.
    """
    if workspace is None:
        return Judged(corpus, None)
    applied, warnings = workspace.apply(corpus)
    questions = {q.id for q in applied.questions}
    own = workspace.questions()
    ratings = {qid: by_id for qid, by_id in workspace.ratings().items() if qid in questions}
    counted = sum(len(by_id) for by_id in ratings.values())
    raters = sorted({rater for by_id in ratings.values() for by in by_id.values() for rater in by})
    return Judged(applied, workspace, len(own), counted, tuple(warnings), tuple(raters), workspace.rater_rule())
