"""What the workbench's calls return: ranked chunks, an evaluation, a comparison, a run.

Each holds the engine's own result and shows itself as the command line prints it (``display.py``);
``to_dict`` is the command line's JSON for the same work (a run's is ``{question: {chunk: score}}``,
what ``ranx.Run`` and ``pytrec_eval`` take), and ``to_frame`` a pandas DataFrame of it.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ranklens.display import Printed, data_frame, printed

if TYPE_CHECKING:
    from pathlib import Path

    import pandas

    from ranklens.engine.comparing.two_runs import Comparison as TwoRuns
    from ranklens.engine.comparing.two_runs import MeasureRow
    from ranklens.engine.comparing.many_runs import ManyComparison
    from ranklens.engine.judging.counted import Judged
    from ranklens.engine.retriever import EvalReport, Retriever, SearchResult
    from ranklens.engine.measuring.trec import Run as TrecRun


class Hits(Printed):
    """The chunks a search ranked, best first: ``ranklens search``'s results."""

    def __init__(self, retriever: Retriever, result: SearchResult) -> None:
        self.query = result.query
        self._retriever = retriever
        self._result = result

    def to_dict(self) -> dict[str, Any]:
        """``ranklens search --json``: the query, its terms, ``results`` (rank, id, score, document, text)."""
        return {**self._result.to_dict(self._retriever.corpus), "setup": self._retriever.setup.to_dict()}

    @property
    def results(self) -> list[dict[str, Any]]:
        """One dict per hit, best first: rank, id, score, document, doc_id, text, source."""
        return list(self.to_dict()["results"])

    def __len__(self) -> int:
        return len(self._result.ranked())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.results)

    def to_frame(self) -> pandas.DataFrame:
        """A row per hit, indexed by rank."""
        return data_frame(self.results, index="rank")

    def text(self) -> str:
        from ranklens.cli.commands import print_search

        return printed(print_search, self._retriever, self._result)


class Evaluation(Printed):
    """A setup measured on the corpus' answerable questions: ``ranklens eval``'s report."""

    def __init__(self, retriever: Retriever, report: EvalReport, judged: Judged) -> None:
        self._retriever = retriever
        self._report = report
        self._judged = judged

    @property
    def metrics(self) -> dict[str, float]:
        """Eval's metrics by their JSON keys (``hit@1``, ``mrr``, ``ndcg@10``, ...): fractions in [0, 1]."""
        return dict(self._report.metrics)

    @property
    def per_question(self) -> list[dict[str, Any]]:
        """A dict per question, in file order: id, text, rank (None beyond k) and its metrics."""
        return list(self.to_dict()["per_question"])

    def to_dict(self) -> dict[str, Any]:
        """``ranklens eval --json``."""
        return {**self._report.to_dict(), "setup": self._retriever.setup.to_dict(), "judgments": self._judged.to_dict()}

    def to_frame(self, per_question: bool = False) -> pandas.DataFrame:
        """The metrics as one row indexed by the setup (rows of several setups concatenate into a table), or
        with ``per_question`` a row per question indexed by its id."""
        if per_question:
            return data_frame(self.per_question, index="id")
        return data_frame([{"setup": self._retriever.description, **self.metrics}], index="setup")

    def text(self) -> str:
        from ranklens.cli.commands import print_eval

        return printed(print_eval, self._retriever, self._report, self._judged)


class Comparison(Printed):
    """Runs measured against a baseline on the same questions, each measure's difference tested:
    ``ranklens compare``'s report (two runs, or a baseline and several, p-values corrected over the runs)."""

    def __init__(self, comparison: TwoRuns | ManyComparison, judged: Judged) -> None:
        self._comparison = comparison
        self._judged = judged

    @property
    def notes(self) -> list[str]:
        """What the comparison found worth saying: questions missing from a run, low judged coverage."""
        coverage = self._comparison.coverage
        return [*self._comparison.notes, *([coverage.warning] if coverage is not None and coverage.warning else [])]

    def to_dict(self) -> dict[str, Any]:
        """``ranklens compare --json``."""
        return {**self._comparison.to_dict(), "judgments": self._judged.to_dict()}

    def _pairs(self) -> tuple[str, dict[str, float], list[tuple[str, list[MeasureRow], dict[str, float] | None]]]:
        """The baseline's label and means, and each run's label, rows against it and corrected p-values."""
        from ranklens.engine.comparing.many_runs import ManyComparison

        c = self._comparison
        if isinstance(c, ManyComparison):
            return (c.baseline.label, c.baseline_means(),
                    [(run.side.label, run.pair.rows, run.adjusted) for run in c.runs])
        return c.a.label, {row.name: row.a for row in c.rows}, [(c.b.label, c.rows, None)]

    def to_frame(self) -> pandas.DataFrame:
        """A row per (run, measure), the baseline's first: its mean, and for each run Δ against the baseline,
        the p-values (t-test, randomization, corrected over the runs when there are several), the 95 %
        interval of Δ, and wins, ties and losses per question."""
        baseline, means, runs = self._pairs()
        rows: list[dict[str, Any]] = [{"run": baseline, "measure": name, "mean": mean} for name, mean in means.items()]
        correction = getattr(self._comparison, "correction", None)
        for label, measure_rows, adjusted in runs:
            rows += [{"run": label, "measure": row.name, "mean": row.b, "delta": row.delta, "p_ttest": row.p_ttest,
                      "p_randomization": row.p_randomization,
                      **({} if adjusted is None else {f"p_{correction}": adjusted[row.name]}),
                      "ci95_low": row.ci95[0], "ci95_high": row.ci95[1],
                      "wins": row.wins, "ties": row.ties, "losses": row.losses} for row in measure_rows]
        return data_frame(rows, index=["run", "measure"])

    def text(self) -> str:
        from ranklens.cli.many_runs import print_many
        from ranklens.cli.relevance import print_comparison
        from ranklens.engine.comparing.many_runs import ManyComparison

        if isinstance(self._comparison, ManyComparison):
            return printed(print_many, self._judged, self._comparison)
        return printed(print_comparison, self._judged, self._comparison)


class Run(Printed):
    """Every question of the corpus ranked by one setup: ``ranklens run``'s TREC run and its sidecar."""

    def __init__(self, run: TrecRun, meta: dict[str, Any], qrels: dict[str, dict[str, int]], judged: Judged,
                 describe: str) -> None:
        self.run = run
        self.meta = meta  # the sidecar: setup, corpus identity, depth, date, headline measures
        self.qrels = qrels  # the judgments it is measured by, as chunk ids under its chunking: {question: {id: grade}}
        self._judged = judged
        self._describe = describe

    @property
    def name(self) -> str:
        return self.run.tag

    @property
    def metrics(self) -> dict[str, float]:
        """The headline measures (nDCG@10 MRR@10 P@5 R@100 MAP) against the judgments it was made with."""
        return dict(self.meta["metrics"])

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{question id: {chunk id: score}}``: what ``ranx.Run`` and ``pytrec_eval`` take."""
        return {qid: dict(ranking) for qid, ranking in self.run.rankings.items()}

    def to_trec(self, path: str | os.PathLike[str]) -> Path:
        """The run as a TREC run file at ``path`` (written atomically; ``-``: standard output)."""
        from pathlib import Path

        from ranklens.engine.measuring.trec import write_run

        write_run(path, self.run, self.name)
        return Path(path)

    def to_frame(self) -> pandas.DataFrame:
        """A row per (question, rank): the chunk id and its score, as a TREC run file's lines."""
        return data_frame([{"question": qid, "rank": rank, "id": chunk, "score": score}
                           for qid, ranking in self.run.rankings.items()
                           for rank, (chunk, score) in enumerate(ranking, 1)], index=["question", "rank"])

    def text(self) -> str:
        from ranklens.cli.relevance import print_run

        return printed(print_run, self._judged, self._describe, self.run, self.meta["k"], self.metrics)
