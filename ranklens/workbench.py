"""``ranklens.open``: a corpus opened once, then searched, evaluated, compared and run from Python.

The work is the command line's, through the same pieces: the corpus loaded with the judgments
that count (``cli/sides.py``'s ``load_with_workspace``, as ``ranklens compare`` loads it), setups
built by ``setup_for`` from the command line's words or keywords (``setups.py``), runs named as
``compare`` names them (``cli/sides.py``'s ``side``). So every number equals the command line's
JSON for the same setup and judgments. The workbench keeps what setups share (chunkings, term
indexes, scorers) between calls. Warnings and notes go to standard error as the command line's do.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ranklens.results import Comparison, Evaluation, Hits, Run
from ranklens.setups import setup_overrides

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ranklens.engine.comparing.two_runs import RunSide
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.retriever import Workbench as Bench
    from ranklens.engine.setup import Setup
    from ranklens.engine.workspace.store import Workspace

RunLike = str | os.PathLike[str] | Run  # a saved run's name, a TREC run file, an inline setup, or a Run made here


def open(corpus: str | os.PathLike[str], *, workspace: str | os.PathLike[str] | None = None,  # noqa: A001
         no_workspace: bool = False) -> Workbench:
    """A bundled corpus by name (``"studio-alfa"``) or a corpus at a path (a BEIR folder, a folder of documents,
    a .jsonl file), with the judgments that count: its own plus its workspace's (``workspace``: the folder, as
    ``--workspace``; default the corpus' folder under the XDG data folder), or its own alone with
    ``no_workspace`` (as ``--no-workspace``). Raises ``RanklensError`` for a corpus that cannot be read."""
    import argparse

    from ranklens.cli.sides import load_with_workspace

    # the command line's loading, given what its options would hold
    args = argparse.Namespace(corpus=os.fspath(corpus), no_workspace=no_workspace,
                              workspace=None if workspace is None else os.fspath(workspace))
    return Workbench(*load_with_workspace(args))


class Workbench:
    """A corpus with its judgments and workspace: ``search``, ``evaluate``, ``compare`` and ``run`` on it.

    A setup is the command line's setup options as one string (``"bm25 --k1 0.9 --stem en"``; a first word
    without dashes is the scorer), settings as keywords (``scorer="bm25", stem="en", k=10``), or both (the
    keywords win); none is the corpus' default setup.
    """

    def __init__(self, judged: Judged, workspace: Workspace, bench: Bench) -> None:
        self.judged = judged
        self.workspace = workspace
        self._bench = bench

    @property
    def corpus(self) -> Corpus:
        """The corpus with the judgments that count."""
        return self.judged.corpus

    def __repr__(self) -> str:
        corpus = self.corpus
        return (f"<ranklens workbench: {corpus.name} · {len(corpus.documents)} documents · "
                f"{self.judged.describe()}>")

    def search(self, query: str, setup: str | None = None, /, **settings: Any) -> Hits:
        """The top ``k`` chunks for ``query`` (``ranklens search``)."""
        from ranklens.engine.corpus.loaders import valid_unicode

        retriever = self._retriever(self._setup(setup, settings))
        return Hits(retriever, retriever.search(valid_unicode(query)))

    def evaluate(self, setup: str | None = None, /, **settings: Any) -> Evaluation:
        """hit@1, hit@3, MRR, nDCG@10 and recall@10 on the corpus' answerable questions (``ranklens eval``)."""
        from ranklens.cli.output import TerminalProgress

        retriever = self._retriever(self._setup(setup, settings))
        with TerminalProgress() as progress:
            report = retriever.evaluate(progress)
        return Evaluation(retriever, report, self.judged)

    def run(self, setup: str | None = None, /, *, name: str | None = None, **settings: Any) -> Run:
        """Every question ranked to depth ``k`` (default 100), as ``ranklens run`` makes it; ``name`` is its
        TREC tag (default: the setup's words, or ``run``)."""
        from ranklens.cli.output import TerminalProgress
        from ranklens.cli.sides import run_setup
        from ranklens.engine.comparing.two_runs import setup_run

        overrides, source = setup_overrides(setup, settings)
        chosen = run_setup(self.corpus, overrides, source)
        self._refuse_reranking(chosen)
        with TerminalProgress() as progress:
            run, meta, qrels = setup_run(self._bench, chosen, name or setup or "run", progress)
        meta["judgments"] = self.judged.to_dict()
        retriever = self._retriever(chosen)
        return Run(run, meta, qrels, self.judged, retriever.setup.describe())

    def compare(self, baseline: RunLike, *runs: RunLike, metrics: str | Iterable[str] | None = None,
                permutations: int = 10_000, seed: int = 42, correction: str = "holm") -> Comparison:
        # the defaults are the engine's (significance.PERMUTATIONS, SEED), written out: that module loads numpy
        """Each run against ``baseline`` on the judged questions (``ranklens compare BASE R1 [R2 ...]``): every
        measure of ``metrics`` (ir_measures names, default ``"nDCG@10 MRR@10 P@5 R@100 MAP"``), Δ, a paired
        t-test, a randomization test of ``permutations`` sign flips from ``seed``, and with several runs the
        p-values corrected over them (``correction``: holm or bonferroni)."""
        from ranklens.cli.output import TerminalProgress
        from ranklens.cli.relevance import tell_findings
        from ranklens.engine.comparing.two_runs import compare_runs
        from ranklens.engine.comparing.many_runs import compare_many
        from ranklens.engine.errors import RanklensError
        from ranklens.engine.measuring.measures import DEFAULT_MEASURES, parse_measures

        if not runs:
            raise RanklensError("compare: give a baseline and at least one run to compare with it")
        labels = [spec.name if isinstance(spec, Run) else os.fspath(spec) for spec in (baseline, *runs)]
        twice = next((label for i, label in enumerate(labels) if label in labels[:i]), None)
        if twice is not None:  # as the command line refuses it: the report would name two runs alike
            raise RanklensError(f"compare: {twice!r} is given twice: give each run once (a Run by its name)")
        measures = parse_measures(DEFAULT_MEASURES if metrics is None else metrics)
        questions = self.corpus.questions
        sides = [self._side(spec) for spec in (baseline, *runs)]
        comparison: Any
        if len(sides) == 2:
            comparison = compare_runs(sides[0], sides[1], questions, measures, permutations, seed)
        else:
            with TerminalProgress() as progress:
                comparison = compare_many(sides[0], sides[1:], questions, measures, permutations, seed, correction,
                                          progress)
        tell_findings(comparison)
        return Comparison(comparison, self.judged)

    # -- setups and sides --------------------------------------------------------------------

    def _setup(self, setup: str | None, settings: dict[str, Any]) -> Setup:
        from ranklens.engine.retriever import setup_for

        overrides, source = setup_overrides(setup, settings)
        chosen = setup_for(self.corpus, overrides, source=source)
        self._refuse_reranking(chosen)
        return chosen

    @staticmethod
    def _refuse_reranking(setup: Setup) -> None:
        from ranklens.engine.errors import RanklensError

        if setup.rerank:
            raise RanklensError("rerank: a reranker's two stages are not in the Python API yet; "
                                "use ranklens search or eval with --rerank")

    def _retriever(self, setup: Setup) -> Retriever:
        """The setup's retriever, indexed; its notes and the cache's problems told, as the command line does."""
        from ranklens.cli.output import TerminalProgress, tell

        with TerminalProgress() as progress:
            retriever = self._bench.retriever(setup, progress)
        for note in [*retriever.notes, *(self._bench.cache.problems if self._bench.cache else [])]:
            tell("note", note)
        return retriever

    def _side(self, spec: RunLike) -> RunSide:
        from pathlib import Path

        from ranklens.cli.output import tell
        from ranklens.cli.sides import side
        from ranklens.engine.comparing.two_runs import saved_side
        from ranklens.engine.workspace.store import SavedRun

        if not isinstance(spec, Run):
            return side(os.fspath(spec), self.corpus, self.workspace, self._bench)
        made = saved_side(SavedRun(spec.name, spec.run, spec.meta, Path(spec.name)), self._bench)
        for note in made.notes:
            tell("warning", note)
        return made
