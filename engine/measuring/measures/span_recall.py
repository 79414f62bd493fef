"""span_recall@k: the share of a question's relevant text its top k chunks cover (Chroma's recall)."""
from __future__ import annotations

from ranklens.engine.measuring.measures.covered_text import CoveredText


def span_recall(text: CoveredText) -> float:
    r"""Characters of the relevant text R covered by the top k chunks, divided by the length of R.

    $$\mathrm{span\_recall@}k = \frac{|\bigcup_{i \le k} (C_i \cap R)|}{|R|}$$  (0 without relevant text)
    """
    return text.covered / text.relevant if text.relevant else 0.0
