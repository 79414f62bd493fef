"""The table of eval's metrics: every number ``eval`` reports about the questions, declared once.

An entry holds the metric's key (in ``Evaluation.metrics`` and the JSON), the header the
tables print, its definition and cut-off, how the tables show it (a count of questions,
"10/15", or a fraction, "0.786"), its place in the rule for "better" and in the JSON's
per-question rows, and its value for one question. The metric is the mean of that value
over the answerable questions; for every metric here higher is better, in [0, 1].

``engine/measuring/metrics.py`` computes the table's metrics (the JSON's ``metrics`` object), the
command line's tables (``cli/metric_columns.py``) and the Metrics tab
(``tui/metric_text.py``) show its columns in its order, and the experiments' "better"
(``engine/experiments/common.py``) reads its ``better`` places. A new metric is one
``EvalMetric`` with its value function and one ``register_metric`` line.

These are not the measures of runs (``engine/measuring/measures/``, ir_measures' names, for
``compare`` and ``runs``): eval's ``mrr`` reads each question's full rank and is never cut,
where the measure ``MRR@10`` stops at rank 10.

Importing this module is cheap (no numpy): the TUI's first paint reads it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ranklens.engine.measuring.measures.covered_text import CoveredText
from ranklens.engine.measuring.measures.ndcg import ndcg_rows
from ranklens.engine.measuring.measures.span_iou import span_iou
from ranklens.engine.measuring.measures.span_precision import span_precision
from ranklens.engine.measuring.measures.span_recall import span_recall
from ranklens.engine.registry import Registry

if TYPE_CHECKING:
    import numpy as np

NDCG_K = 10
RECALL_K = 10
NDCG = f"ndcg@{NDCG_K}"
RECALL = f"recall@{RECALL_K}"
SPAN_K = 10


def no_text(k: int) -> CoveredText:
    """What a question without relevant text has covered at any k: nothing."""
    return CoveredText()


@dataclass(frozen=True, slots=True)
class Ranked:
    """What a metric reads of one question that has something relevant."""

    # the full rank of the best-ranked relevant chunk, never cut; None: none retrieved, or nothing relevant to
    # rank (an answer span every chunk cuts: only ``reads_text`` metrics have a value)
    rank: int | None
    gains: np.ndarray  # the gain (grade) at each rank of the top ``depth()``, 0 where nothing relevant is
    grades: np.ndarray  # the grade (> 0) of each of the question's relevant chunks
    covered: Callable[[int], CoveredText] = no_text  # what its top k chunks cover of its relevant text


@dataclass(frozen=True)
class EvalMetric:
    """One of eval's metrics, as the JSON keys it, the tables show it and "better" weighs it."""

    key: str  # in Evaluation.metrics and the JSON: "hit@1"
    header: str  # the tables' column: "MRR"
    definition: str  # one line: what the value of one question is
    value: Callable[[Ranked], float]  # one question's value (0 for a question with nothing relevant)
    k: int | None = None  # the cut-off: ranks read (None: the full rank, never cut)
    counted: bool = False  # each question's value is 0 or 1, shown as a count: "10/15"
    better: int | None = None  # its place in the rule for "better" (0 first); None: not in it
    per_question: int | None = None  # its place in the JSON's per-question rows; None: not there (the rank is)
    note: str = ""  # said under the command line's tables
    reads_text: bool = False  # reads only ``Ranked.covered``: measured also when no chunk is relevant (a cut answer)

    def text(self, value: float, questions: int) -> str:
        """How the tables show the metric over ``questions``: ``10/15`` when counted, else ``0.786``."""
        return f"{round(value * questions)}/{questions}" if self.counted else f"{value:.3f}"


METRICS: Registry[EvalMetric] = Registry("eval metric", lambda m: m.key, "ranklens.measures")
register_metric, unregister_metric, registered_metric = METRICS.register, METRICS.unregister, METRICS.registered
# the table, in its order: the order of the JSON's ``metrics`` and of the tables' columns
eval_metrics, metric = METRICS.entries, METRICS.get


def depth() -> int:
    """How many top ranks a question's ``Ranked.gains`` holds: the deepest cut-off of the table."""
    return max((m.k for m in METRICS.entries() if m.k is not None), default=1)


def better_metrics() -> tuple[EvalMetric, ...]:
    """The metrics "better" compares, first to last (the experiments' ``ranking``)."""
    return tuple(sorted((m for m in METRICS.entries() if m.better is not None), key=lambda m: m.better or 0))


def better_rule() -> str:
    """The rule for "better" in words: ``MRR, then hit@1, then recall@10``."""
    return ", then ".join(m.header for m in better_metrics())


def per_question_metrics() -> tuple[EvalMetric, ...]:
    """The metrics of the JSON's per-question rows, in their order."""
    listed = (m for m in METRICS.entries() if m.per_question is not None)
    return tuple(sorted(listed, key=lambda m: m.per_question or 0))


def better_key(metrics: Mapping[str, float]) -> tuple[float, ...]:
    """What "better" compares of a ``metrics`` mapping: the ``better`` metrics in order, rounded to 1e-9
    so that values equal but for float noise tie (and ``max`` keeps the first)."""
    return tuple(round(metrics[m.key], 9) for m in better_metrics())


def _hit(k: int) -> Callable[[Ranked], float]:
    return lambda q: 1.0 if q.rank is not None and q.rank <= k else 0.0


def _reciprocal_rank(q: Ranked) -> float:
    return 0.0 if q.rank is None else 1.0 / q.rank


def _ndcg(q: Ranked) -> float:
    return float(ndcg_rows(q.gains[None, :], q.grades, NDCG_K)[0])


def _recall(q: Ranked) -> float:
    return int((q.gains[:RECALL_K] > 0).sum()) / q.grades.size


register_metric(EvalMetric("hit@1", "hit@1", "1 when a relevant chunk ranks first", _hit(1), k=1, counted=True,
                           better=1))
register_metric(EvalMetric("hit@3", "hit@3", "1 when a relevant chunk is in the top 3", _hit(3), k=3, counted=True))
register_metric(EvalMetric(
    "mrr", "MRR", "1 / the full rank of the best-ranked relevant chunk (uncut: a chunk at rank 40 adds 1/40)",
    _reciprocal_rank, better=0, note="MRR uncut: the full rank counts (runs' and compare's MRR@10 stop at 10)"))
register_metric(EvalMetric(NDCG, f"nDCG@{NDCG_K}", "graded: linear gain, log2(rank + 1) discount, divided by "
                           f"the ideal top {NDCG_K}'s (engine/measuring/measures/ndcg.py)", _ndcg, k=NDCG_K,
                           per_question=1))
register_metric(EvalMetric(RECALL, f"recall@{RECALL_K}", f"the share of the relevant chunks in the top {RECALL_K}",
                           _recall, k=RECALL_K, better=2, per_question=0))


def _span(measure: Callable[[CoveredText], float]) -> Callable[[Ranked], float]:
    return lambda q: measure(q.covered(SPAN_K))


# Chroma's chunking evaluation, over the text: engine/measuring/measures/covered_text.py
register_metric(EvalMetric(f"span_recall@{SPAN_K}", f"sRec@{SPAN_K}", f"the share of the relevant text the top "
                           f"{SPAN_K} chunks cover", _span(span_recall), k=SPAN_K, reads_text=True))
register_metric(EvalMetric(f"span_precision@{SPAN_K}", f"sPrec@{SPAN_K}", f"the share of the top {SPAN_K} chunks' "
                           "text that is relevant", _span(span_precision), k=SPAN_K, reads_text=True))
register_metric(EvalMetric(f"span_iou@{SPAN_K}", f"IoU@{SPAN_K}", f"the relevant text covered over the top {SPAN_K} "
                           "chunks' text plus the relevant text missed", _span(span_iou), k=SPAN_K, reads_text=True,
                           note=f"sRec, sPrec, IoU@{SPAN_K}: span recall, precision and IoU, the relevant text (judged "
                           f"and answer spans) the top {SPAN_K} chunks cover (Chroma's chunking evaluation)"))
