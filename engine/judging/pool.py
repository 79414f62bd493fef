"""A pool: the (question, chunk) pairs that several runs put in their top N and nobody has judged yet.

Pooling is how TREC builds judgments: judge the union of every run's top ``depth``, and
the runs are measured on judged chunks. A pair is *judged* when any side's judgments
(``RunSide.qrels``: the corpus' and the workspace's, resolved under the run's chunking,
grade 0 included) hold it; the pool's pairs are the others.

The runs must rank the same chunks of the same corpus: a saved run of another corpus is
refused when its side is made (``engine/compare.saved_side``), and ``make_pool`` refuses
runs whose chunkings differ (a setup's size, overlap or chunker, a saved run's sidecar),
naming the two runs.

Order of the pairs: questions in the corpus' order; within a question, by the best
(smallest) rank any run gave the chunk, then by how many runs retrieved it (more first),
then by chunk id. The first pairs of each question are those a judge's time buys most.

A pool kept for the TUI's judging queue is ``pools/NAME.json`` in the workspace (written by
an atomic rename under the workspace's lock): its depth, runs and pairs as ``Pool.to_dict``
writes them. Which of its pairs are judged is read from the workspace's log when it is
opened again (``QueueState``), so the queue resumes where any session left it; a pair of a
re-chunked pool counts as judged when a chunk judged under another chunking reaches it by
its text (``judged_now``).
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace.store import Workspace

POOLS = "pools"  # the workspace's folder of saved pools
_POOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")  # as run names: a file name on every system


@dataclass(frozen=True)
class PoolPair:
    """An unjudged chunk of a question, and the 1-based rank each run that retrieved it gave it."""

    question: str
    id: str
    runs: Mapping[str, int]  # run label -> rank (only the runs that put it in their top depth)

    @property
    def best(self) -> int:
        """The best (smallest) rank any run gave the chunk."""
        return min(self.runs.values())


@dataclass
class Pool:
    """The union of the runs' top ``depth`` chunks per question, its unjudged pairs, and counts.

    ``size`` counts the distinct (question, chunk) pairs of the union, ``judged`` those of them judged
    already; ``pairs`` are the others, in the module docstring's order. ``contributed`` counts, per run,
    the unjudged pairs it retrieved; ``only`` those no other run retrieved.
    """

    depth: int
    runs: list[str]
    pairs: list[PoolPair]
    size: int
    judged: int
    contributed: dict[str, int] = field(default_factory=dict)
    only: dict[str, int] = field(default_factory=dict)
    questions: dict[str, str] = field(default_factory=dict)  # question id -> text, for the pairs' questions
    chunking: dict[str, Any] = field(default_factory=lambda: {"size": None})  # the runs' (``chunking``)

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, "runs": list(self.runs), "chunking": dict(self.chunking),
                "size": self.size, "judged": self.judged,
                "unjudged": len(self.pairs), "contributed": dict(self.contributed), "only": dict(self.only),
                "pairs": [{"question": p.question, "text": self.questions.get(p.question, ""), "id": p.id,
                           "runs": dict(p.runs)} for p in self.pairs]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str) -> Pool:
        """A pool as ``to_dict`` wrote it; ``source`` names the file in the message when it is not one."""
        try:
            pairs = [PoolPair(str(p["question"]), str(p["id"]), {str(k): int(v) for k, v in p["runs"].items()})
                     for p in data["pairs"]]
            texts = {str(p["question"]): str(p.get("text", "")) for p in data["pairs"]}
            return cls(int(data["depth"]), [str(r) for r in data["runs"]], pairs, int(data["size"]),
                       int(data["judged"]), dict(data.get("contributed", {})), dict(data.get("only", {})), texts,
                       dict(data.get("chunking", {"size": None})))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise RanklensError(f"{source}: not a pool (depth, runs, size, judged, pairs)") from None


def chunking(side: RunSide, corpus: Corpus) -> dict[str, Any]:
    """How ``side``'s run chunks the corpus: its setup's ``chunker``, ``size`` and ``overlap`` (``size`` None:
    the corpus' own chunks; a run file without a sidecar is taken to rank the corpus' own chunking)."""
    from ranklens.engine.retriever import setup_for
    from ranklens.engine.setup import Setup

    setup = (Setup.from_mapping(side.setup, source=f"{side.label}'s setup") if side.setup
             else setup_for(corpus))
    if setup.size is None:
        return {"size": None}
    return {"chunker": setup.chunker, "size": setup.size, "overlap": setup.overlap}


def describe_chunking(chunked: Mapping[str, Any]) -> str:
    """A chunking as ``chunking`` returns it, in words: ``"chunks words 100/20"``, ``"the corpus' own chunks"``."""
    if chunked.get("size") is None:
        return "the corpus' own chunks"
    return f"chunks {chunked.get('chunker')} {chunked['size']}/{chunked.get('overlap')}"


def make_pool(sides: Sequence[RunSide], corpus: Corpus, depth: int) -> Pool:
    """The pool of ``sides``' top ``depth`` chunks over ``corpus``' questions (questions a run ranks that the
    corpus does not have are left out: nobody could judge them).

    Raises ``RanklensError`` when fewer than two runs are given, ``depth`` < 1, or two runs chunk differently.
    """
    if len(sides) < 2:
        raise RanklensError("a pool needs two runs or more")
    if depth < 1:
        raise RanklensError(f"pool depth {depth}: give 1 or more")
    labels = [side.label for side in sides]
    twice = next((label for i, label in enumerate(labels) if label in labels[:i]), None)
    if twice is not None:
        raise RanklensError(f"run {twice!r} is given twice: give each run once")
    chunkings = [chunking(side, corpus) for side in sides]
    for side, chunked in zip(sides[1:], chunkings[1:]):
        if chunked != chunkings[0]:
            raise RanklensError(f"runs {sides[0].label!r} ({describe_chunking(chunkings[0])}) and {side.label!r} "
                                f"({describe_chunking(chunked)}) chunk the corpus differently: a pool needs runs of "
                                "one chunking")
    pairs: list[PoolPair] = []
    size = judged = 0
    texts: dict[str, str] = {}
    for question in corpus.questions:
        found: dict[str, dict[str, int]] = {}
        for side in sides:
            for rank, (chunk, _) in enumerate(side.run.rankings.get(question.id, ())[:depth], 1):
                if chunk not in side.not_chunks:  # nothing a judgment could name: not offered
                    found.setdefault(chunk, {}).setdefault(side.label, rank)
        size += len(found)
        unjudged = [PoolPair(question.id, chunk, ranks) for chunk, ranks in found.items()
                    if not any(chunk in side.qrels.get(question.id, {}) for side in sides)]
        judged += len(found) - len(unjudged)
        unjudged.sort(key=lambda p: (p.best, -len(p.runs), p.id))
        pairs += unjudged
        if unjudged:
            texts[question.id] = question.text
    contributed = {label: sum(1 for p in pairs if label in p.runs) for label in labels}
    only = {label: sum(1 for p in pairs if list(p.runs) == [label]) for label in labels}
    return Pool(depth, labels, pairs, size, judged, contributed, only, texts, chunkings[0])


# -- the judging queue over a saved pool -------------------------------------------------------


@dataclass(frozen=True)
class QueueState:
    """A pool's pairs against the workspace's judgments now: how many are judged, which are left (in order)."""

    total: int
    judged: int
    left: list[PoolPair]

    def progress(self) -> str:
        """``"37 of 120 judged"``."""
        return f"{self.judged} of {self.total} judged"


def queue_state(pool: Pool, judgments: Mapping[str, Mapping[str, int]]) -> QueueState:
    """Which of ``pool``'s pairs ``judgments`` (question id -> {chunk id: grade}: ``judged_now``, or a workspace's
    log replayed) judge."""
    left = [p for p in pool.pairs if p.id not in judgments.get(p.question, {})]
    return QueueState(len(pool.pairs), len(pool.pairs) - len(left), left)


def judged_now(workbench: Workbench, workspace: Workspace, setup: Setup, pool: Pool) -> dict[str, dict[str, int]]:
    """The judgments that count now (the corpus' and ``workspace``'s, read again) as chunk ids of ``pool``'s
    chunking: a chunk judged under another chunking decides the pool's chunks its text reaches
    (engine/judging/positions.py), so the queue does not ask them again."""
    from ranklens.engine.comparing.two_runs import resolved_judgments

    applied, _ = workspace.apply(workbench.corpus)  # applying again is harmless: the same questions, ids, grades
    return resolved_judgments(workbench.with_questions(applied), setup.replace(**pool.chunking))


def pool_path(workspace: Workspace, name: str) -> Path:
    """``pools/NAME.json`` in ``workspace``; a name that is not a plain file name is refused."""
    if not _POOL_NAME.match(name):
        raise RanklensError(f"pool name {name!r}: use letters, digits, '.', '_' and '-' (at most 100)")
    return workspace.root / POOLS / f"{name}.json"


def save_pool(workspace: Workspace, name: str, pool: Pool) -> None:
    """Keep ``pool`` as ``pools/NAME.json`` in ``workspace`` (a pool of that name is replaced)."""
    from ranklens.engine.measuring.trec import atomic_write

    path = pool_path(workspace, name)
    record = {"name": name, "created": datetime.now(UTC).isoformat(timespec="seconds"), **pool.to_dict()}
    with workspace.locked():
        try:
            path.parent.mkdir(exist_ok=True)
        except OSError as error:
            raise RanklensError(f"cannot write {path.parent}: {error.strerror or error}") from None
        atomic_write(path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")


def load_pool(workspace: Workspace, name: str) -> Pool:
    """The pool kept as ``name`` in ``workspace``."""
    from ranklens.engine.storage.json_object import parse_object
    from ranklens.engine.measuring.trec import read_text

    path = pool_path(workspace, name)
    if not path.is_file():
        raise RanklensError(f"no pool named {name!r} in {workspace.root / POOLS}")
    return Pool.from_dict(parse_object(read_text(path), str(path)), str(path))


def pool_names(workspace: Workspace) -> list[str]:
    """The pools kept in ``workspace``, by name."""
    folder = workspace.root / POOLS
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.json") if _POOL_NAME.match(p.stem))
