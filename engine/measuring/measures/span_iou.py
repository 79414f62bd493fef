"""span_iou@k: the relevant text covered over the top k chunks' text plus the relevant text missed (Chroma's IoU)."""
from __future__ import annotations

from ranklens.engine.measuring.measures.covered_text import CoveredText


def span_iou(text: CoveredText) -> float:
    r"""Characters of R covered by the top k chunks, divided by the chunks' total length plus the length of R
    they do not cover.

    $$\mathrm{span\_iou@}k = \frac{c}{\sum_{i \le k} |C_i| + |R| - c}, \quad c = |\bigcup_{i \le k} (C_i \cap R)|$$
    (0 when both are empty)
    """
    denominator = text.retrieved + text.relevant - text.covered
    return text.covered / denominator if denominator else 0.0
