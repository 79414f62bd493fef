"""What the experiments share: stages of progress, the rule for "better", scorer labels."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ranklens.engine.measuring.metric_table import better_key
from ranklens.engine.work.progress import Progress

if TYPE_CHECKING:  # numpy comes with these; importing this module must stay cheap
    from ranklens.engine.measuring.metrics import Evaluation
    from ranklens.engine.setup import Setup

Checkpoint = Callable[[], None]


def no_checkpoint() -> None:
    """The default: nothing to do between stages."""


def stage(progress: Progress, index: int, count: int, name: str) -> Progress:
    """Progress of stage ``index`` (0-based) of ``count``, reported as progress of the whole.

    The returned reporter is called once at the start of its stage, which
    also gives a cancellable ``progress`` its chance to stop between stages.
    """

    def report(done: int, total: int, label: str) -> None:
        part = min(done / total, 1.0) if total else 0.0
        progress(round((index + part) * 1000), count * 1000, f"{name}: {label}")

    return report


def ranking(evaluation: Evaluation) -> tuple[float, ...]:
    """What "better" means when settings compete: the metrics of the table with a ``better`` place, in
    order (MRR, then hit@1, then recall@10; ``engine/measuring/metric_table.py``).

    ``max`` over this key keeps the first of equal settings, so callers list
    the cheaper settings first.
    """
    return better_key(evaluation.metrics)


def scorer_label(setup: Setup) -> str:
    """The scorer with the parameters that tell it apart, e.g. ``BM25 lucene`` or ``LSA 18 dims``.

    ``setup`` is the one a retriever ran (``Retriever.setup``): its LSA dims are the clamped ones.
    """
    from ranklens.engine.scoring.registry import spec

    return spec(setup.scorer).short(setup)
