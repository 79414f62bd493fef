"""span_precision@k: the share of the top k chunks' text that is relevant (Chroma's precision)."""
from __future__ import annotations

from ranklens.engine.measuring.measures.covered_text import CoveredText


def span_precision(text: CoveredText) -> float:
    r"""Characters of the relevant text R covered by the top k chunks, divided by the chunks' total length.

    $$\mathrm{span\_precision@}k = \frac{|\bigcup_{i \le k} (C_i \cap R)|}{\sum_{i \le k} |C_i|}$$
    (0 when nothing is retrieved)
    """
    return text.covered / text.retrieved if text.retrieved else 0.0
