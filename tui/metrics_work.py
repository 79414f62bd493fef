"""The Metrics tab's work, done in thread workers, and its export.

``measure`` is ``engine.experiments.scorers.compare_scorers``: every scorer
under the setup's analysis and chunking settings, then the current scorer's
threshold analysis; ``rerank`` is the setup's ranking reranked
(``engine.rerank.evaluate_reranking``), a run of its own so that changing only
the reranker does not measure the scorers again; ``tune`` is the fusion
sweep; ``strata`` groups the measured scorers' numbers by a question field.
``first_stage`` and ``whole_setup`` say what each result depends on.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ranklens.engine.work.progress import Progress
from ranklens.tui.context import Context
from ranklens.tui.heap import keep_built
from ranklens.tui.metric_text import metric_columns

if TYPE_CHECKING:  # numpy comes with the engine's results; the first paint must not wait for it
    from ranklens.engine.experiments.scorers import ScorerComparison
    from ranklens.engine.experiments.weights import FusionSweep
    from ranklens.engine.neural.rerank import Reranking
    from ranklens.engine.comparing.strata import StratumMeans

RERANKED = "rerank"  # the reranked ranking's name: its row's key, its column of ranks, its row exported


def safe_name(name: str) -> str:
    """A corpus name as part of a file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "corpus"


@dataclass(frozen=True)
class Reranked:
    """The setup's first stage reranked, as the tab shows it."""

    label: str  # "BM25 lucene → rerank mmarco top 5"
    step: str  # the label less its first stage, for a row under the first stage's: "rerank mmarco top 5"
    reranking: Reranking


def table_text(target: Path, result: ScorerComparison, reranked: Reranked | None) -> str:
    """The table as JSON (``.json``: the comparison's to_dict, as ``compare-scorers --json``, plus ``rerank``
    as ``eval --rerank --json`` has it, with a reranker) or CSV (a row per scorer: its name, label and
    metrics; the reranked ranking's named ``rerank``)."""
    if target.suffix.lower() == ".json":
        data = result.to_dict()
        if reranked is not None:
            data["rerank"] = {"scorer": result.current, "label": reranked.label, **reranked.reranking.to_dict()}
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    keys = [key for _, key in metric_columns()]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["scorer", "label", *keys])
    for r in result.scorers:
        writer.writerow([r.scorer, r.label, *(r.evaluation.metrics[key] for key in keys)])
    if reranked is not None:
        writer.writerow([RERANKED, reranked.label, *(reranked.reranking.evaluation.metrics[key] for key in keys)])
    return out.getvalue()


def first_stage(context: Context) -> Hashable:
    """What the scorers' table depends on: the workbench and the setup less its reranker (and so its top)."""
    return (context.workbench, dataclasses.replace(context.setup, rerank=None, rerank_top=1))


def whole_setup(context: Context) -> Hashable:
    """What a reranked ranking depends on: the workbench and the whole setup."""
    return (context.workbench, context.setup)


def measure(context: Context, progress: Progress) -> ScorerComparison:
    """Every scorer under the context's settings, then the current scorer's threshold (in a worker)."""
    from ranklens.engine.experiments.scorers import compare_scorers  # numpy: loaded off the first paint

    return compare_scorers(context.workbench, context.setup, progress=progress, checkpoint=keep_built)


def rerank(context: Context, progress: Progress) -> Reranked:
    """The setup's scorer reranked by its reranker over the answerable questions (in a worker)."""
    from ranklens.engine.experiments.common import scorer_label
    from ranklens.engine.neural.rerank import evaluate_reranking, reranker_for

    retriever = context.workbench.retriever(context.setup, progress)
    progress(0, 0, f"loading reranker {context.setup.rerank}")
    reranking = evaluate_reranking(retriever, reranker_for(retriever), progress=progress)
    step = f"rerank {Path(reranking.reranker).name} top {reranking.top}"
    return Reranked(f"{scorer_label(retriever.setup)} → {step}", step, reranking)


def tune(context: Context, progress: Progress) -> FusionSweep:
    """The fusion sweep of the context's fusion (in a worker)."""
    from ranklens.engine.experiments.weights import fusion_sweep

    return fusion_sweep(context.workbench.retriever(context.setup, progress), progress=progress)


@dataclass(frozen=True)
class StrataTable:
    """The measured scorers' metrics per stratum of a question field, as the tab shows them."""

    by: str  # the field (or "length")
    fields: tuple[str, ...]  # every field the corpus' questions can be grouped by, "length" last
    scorers: tuple[str, ...]  # the scorers' registered names, in the table's order
    questions: int  # the questions measured (a question may count in several strata)
    strata: tuple[StratumMeans, ...]


def strata(context: Context, result: ScorerComparison, by: str | None, progress: Progress) -> StrataTable:
    """``result``'s scorers by the question field ``by``, or by the first field when ``by`` is None or no
    longer a field of the corpus' questions (in a worker)."""
    from ranklens.engine.comparing.strata import field_paths, scorer_strata

    questions = context.corpus.questions
    progress(0, 0, "grouping the questions")
    fields = tuple(field_paths(questions))
    chosen = by if by in fields else fields[0]
    return StrataTable(chosen, fields, tuple(r.scorer for r in result.scorers), result.question_count,
                       tuple(scorer_strata(result, questions, chosen)))
