"""The settings a key (or a palette command) steps: one table, read by the app's bindings and the palette.

Each step turns the current setup into the changes to apply; the app passes
them through ``Setup.replace``, so a step that leaves the valid range (b above
1, k below 1) becomes a validation message, not a broken setup.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ranklens.engine.setup import BM25_VARIANTS, LANGUAGES, SCORERS, Setup

# The lesson's LSA table runs 4/8/12/16 dimensions; past those, sizes a real corpus would use.
LSA_DIMS = (2, 4, 8, 12, 16, 24, 32, 50, 64, 100, 128, 200, 256, 300, 400, 512)
K1_STEP = 0.1
B_STEP = 0.05
CHUNK_SIZE_STEP = 10
CHUNK_OVERLAP_STEP = 5
DEFAULT_CHUNK_SIZE = 100  # what the engine uses for raw documents when nothing says otherwise

Changes = dict[str, Any]


@dataclass(frozen=True)
class SettingStep:
    id: str  # the binding id, also the argument of the app's ``setting`` action
    key: str | None  # None: reachable from the command palette only
    description: str
    change: Callable[[Setup, Mapping[str, Any]], Changes]  # (setup, corpus settings) -> changes


def _cycle(options: Sequence[Any], current: Any) -> Any:
    """The option after ``current``; the first one when ``current`` is not among them."""
    options = list(dict.fromkeys(options))
    if current not in options:
        return options[0]
    return options[(options.index(current) + 1) % len(options)]


def _ladder(values: Sequence[int], current: int, up: bool) -> int:
    """The next value of ``values`` above (or below) ``current``, staying at the ends."""
    if up:
        return next((v for v in values if v > current), values[-1])
    return next((v for v in reversed(values) if v < current), values[0])


def _language(setup: Setup, corpus_settings: Mapping[str, Any]) -> str | None:
    language = setup.language or corpus_settings.get("language")
    return str(language) if language else None


def _language_options(setup: Setup, corpus_settings: Mapping[str, Any], own: Any = None) -> list[str]:
    """none, then the corpus' own choice (a stop-word file), then its language or every language."""
    language = _language(setup, corpus_settings)
    options = ["none"]
    if isinstance(own, str) and own != "none":
        options.append(own)
    options.extend([language] if language else LANGUAGES)
    return options


def _stopwords(setup: Setup, corpus_settings: Mapping[str, Any]) -> Changes:
    options = _language_options(setup, corpus_settings, corpus_settings.get("stopwords"))
    return {"stopwords": _cycle(options, setup.stopwords)}


def _stem(setup: Setup, corpus_settings: Mapping[str, Any]) -> Changes:
    return {"stem": _cycle(_language_options(setup, corpus_settings), setup.stem)}


def _chunk_size(delta: int) -> Callable[[Setup, Mapping[str, Any]], Changes]:
    def change(setup: Setup, corpus_settings: Mapping[str, Any]) -> Changes:
        size = (setup.size or DEFAULT_CHUNK_SIZE) + delta
        # Shrinking below the overlap would be refused; pull the overlap down with it.
        return {"size": size, "overlap": min(setup.overlap, max(size - 1, 0))}

    return change


def _chunk_overlap(delta: int) -> Callable[[Setup, Mapping[str, Any]], Changes]:
    def change(setup: Setup, corpus_settings: Mapping[str, Any]) -> Changes:
        return {"size": setup.size or DEFAULT_CHUNK_SIZE, "overlap": setup.overlap + delta}

    return change


SETTING_STEPS: tuple[SettingStep, ...] = (
    SettingStep("scorer", "s", "Next scorer (TF-IDF, BM25, LSA, fusion)",
                lambda s, c: {"scorer": _cycle(SCORERS, s.scorer)}),
    SettingStep("k_up", "plus,equals_sign", "Show one more result (k + 1)", lambda s, c: {"k": s.k + 1}),
    SettingStep("k_down", "minus", "Show one result fewer (k - 1)", lambda s, c: {"k": s.k - 1}),
    SettingStep("variant", "v", "Next BM25 variant", lambda s, c: {"bm25_variant": _cycle(BM25_VARIANTS, s.bm25_variant)}),
    SettingStep("k1_up", "right_square_bracket", f"BM25 k1 + {K1_STEP}", lambda s, c: {"k1": round(s.k1 + K1_STEP, 2)}),
    SettingStep("k1_down", "left_square_bracket", f"BM25 k1 - {K1_STEP}", lambda s, c: {"k1": round(s.k1 - K1_STEP, 2)}),
    SettingStep("b_up", "right_curly_bracket", f"BM25 b + {B_STEP}", lambda s, c: {"b": round(s.b + B_STEP, 2)}),
    SettingStep("b_down", "left_curly_bracket", f"BM25 b - {B_STEP}", lambda s, c: {"b": round(s.b - B_STEP, 2)}),
    SettingStep("stopwords", "w", "Stop words: none / the corpus' list or language", _stopwords),
    SettingStep("stem", "t", "Stemming: none / the corpus' language", _stem),
    SettingStep("dims_up", "D", "More LSA dimensions", lambda s, c: {"dims": _ladder(LSA_DIMS, s.dims, up=True)}),
    SettingStep("dims_down", "d", "Fewer LSA dimensions", lambda s, c: {"dims": _ladder(LSA_DIMS, s.dims, up=False)}),
    SettingStep("sublinear", "l", "Toggle sublinear (log) tf for TF-IDF", lambda s, c: {"sublinear_tf": not s.sublinear_tf}),
    SettingStep("fold_accents", "a", "Toggle folding accents (è -> e)", lambda s, c: {"fold_accents": not s.fold_accents}),
    SettingStep("chunk_size_up", None, f"Chunk size + {CHUNK_SIZE_STEP} words (re-chunks documents)",
                _chunk_size(CHUNK_SIZE_STEP)),
    SettingStep("chunk_size_down", None, f"Chunk size - {CHUNK_SIZE_STEP} words (re-chunks documents)",
                _chunk_size(-CHUNK_SIZE_STEP)),
    SettingStep("overlap_up", None, f"Chunk overlap + {CHUNK_OVERLAP_STEP} words", _chunk_overlap(CHUNK_OVERLAP_STEP)),
    SettingStep("overlap_down", None, f"Chunk overlap - {CHUNK_OVERLAP_STEP} words", _chunk_overlap(-CHUNK_OVERLAP_STEP)),
    SettingStep("native_chunks", None, "Use the corpus' own passages (undo re-chunking)",
                lambda s, c: {"size": None, "overlap": 0}),
)
STEPS_BY_ID = {step.id: step for step in SETTING_STEPS}
