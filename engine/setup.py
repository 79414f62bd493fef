"""One retrieval setup: analyzer + scorer + chunking + k.

The CLI, the TUI and the tests all build a ``Setup`` the same way: the
corpus' ``ranklens.toml`` settings first, then explicit overrides, through
``Setup.from_mapping``. Field names are the toml keys; CLI options map onto
them one to one (``--bm25-variant`` -> ``bm25_variant``).
"""
from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Mapping

from ranklens.engine.errors import RanklensError

SCORERS = ("tfidf", "bm25", "lsa", "fusion")
BM25_VARIANTS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
LANGUAGES = ("it", "en", "es")
CHUNKERS = ("words", "sentences")
FUSION_METHODS = ("rrf", "sum")
SKLEARN_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
MAX_DECIMALS = 12  # a float64 score has no more digits worth printing


@dataclass(frozen=True)
class Setup:
    scorer: str = "bm25"
    k: int = 5
    # analysis
    token_pattern: str = SKLEARN_TOKEN_PATTERN
    lowercase: bool = True
    fold_accents: bool = False
    stopwords: str = "none"  # "none", a language code, or a file path
    stem: str = "none"  # "none" or a language code
    # tf-idf
    sublinear_tf: bool = False
    # bm25
    bm25_variant: str = "lucene"
    k1: float = 1.2
    b: float = 0.75
    delta: float = 0.5  # bm25l / bm25+ only
    # lsa
    dims: int = 100
    # fusion
    fuse: tuple[str, ...] = ("bm25", "lsa")
    fusion_method: str = "rrf"
    rrf_k: int = 60
    # chunking of raw documents; None keeps the corpus' own chunks
    size: int | None = None
    overlap: int = 0
    chunker: str = "words"
    index_title: bool = False
    language: str | None = None
    decimals: int = 3  # how scores are printed; the English and Spanish lessons print 2

    @classmethod
    def from_mapping(cls, *layers: Mapping[str, Any], source: str = "settings") -> "Setup":
        """Build a setup from layers of settings, later layers winning.

        Keys and types are checked; ``source`` names where bad values came
        from (a ranklens.toml path, "command line") in the error message.
        """
        values: dict[str, Any] = {}
        for layer in layers:
            for key, value in layer.items():
                if value is None and key != "size":
                    continue
                values[key] = value
        values.pop("description", None)
        values.pop("name", None)
        checked = {key: _check(key, value, source) for key, value in values.items()}
        setup = cls(**checked)
        setup.validate(source)
        return setup

    def replace(self, **changes: Any) -> "Setup":
        """A copy with some fields changed, validated like any other setup."""
        merged = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return Setup.from_mapping(merged, changes, source="setup")

    def validate(self, source: str = "settings") -> None:
        """Reject values no index can be built or printed with; the message names ``source`` and the key."""
        checks = (
            (self.k >= 1, f"k must be at least 1 (got {self.k})"),
            (self.size is None or self.size >= 1, f"size must be at least 1 (got {self.size})"),
            (self.size is None or 0 <= self.overlap < self.size,
             f"overlap must be >= 0 and smaller than size (got overlap {self.overlap}, size {self.size})"),
            # TOML and float() accept nan and inf, which would make every BM25 score nan or 0
            (math.isfinite(self.k1) and self.k1 >= 0, f"k1 must be a finite number >= 0 (got {self.k1})"),
            (math.isfinite(self.b) and 0 <= self.b <= 1, f"b must be between 0 and 1 (got {self.b})"),
            (math.isfinite(self.delta) and self.delta >= 0,
             f"delta must be a finite number >= 0 (got {self.delta})"),
            (self.dims >= 1, f"dims must be at least 1 (got {self.dims})"),
            (self.rrf_k >= 1, f"rrf_k must be at least 1 (got {self.rrf_k})"),
            (len(self.fuse) >= 2 and "fusion" not in self.fuse,
             f"fuse needs two or more of tfidf, bm25, lsa (got {list(self.fuse)})"),
            (0 <= self.decimals <= MAX_DECIMALS,
             f"decimals must be between 0 and {MAX_DECIMALS} (got {self.decimals})"),
        )
        for ok, message in checks:
            if not ok:
                raise RanklensError(f"{source}: {message}")
        _check_token_pattern(self.token_pattern, source)

    def describe(self) -> str:
        """The one-line summary shown on the TUI's setup line and in CLI headers."""
        if self.scorer == "bm25":
            head = f"BM25 {self.bm25_variant} k1={self.k1:g} b={self.b:g}"
            if self.bm25_variant in ("bm25l", "bm25+"):
                head += f" δ={self.delta:g}"
        elif self.scorer == "tfidf":
            head = "TF-IDF" + (" sublinear" if self.sublinear_tf else "")
        elif self.scorer == "lsa":
            head = f"LSA {self.dims} dims"
        else:
            head = f"fusion {self.fusion_method} of {'+'.join(self.fuse)}"
            if self.fusion_method == "rrf":
                head += f" k={self.rrf_k}"
        parts = [head, f"stop={Path(self.stopwords).name}", f"stem={self.stem}"]
        if self.fold_accents:
            parts.append("fold accents")
        if self.size is not None:
            parts.append(f"chunks {self.chunker} {self.size}/{self.overlap}")
        parts.append(f"k={self.k}")
        return " · ".join(parts)


_CHOICES: dict[str, tuple[str, ...]] = {
    "scorer": SCORERS,
    "bm25_variant": BM25_VARIANTS,
    "chunker": CHUNKERS,
    "fusion_method": FUSION_METHODS,
    "language": LANGUAGES,
}
_FIELD_TYPES: dict[str, type] = {
    "scorer": str, "k": int, "token_pattern": str, "lowercase": bool, "fold_accents": bool,
    "stopwords": str, "stem": str, "sublinear_tf": bool, "bm25_variant": str, "k1": float,
    "b": float, "delta": float, "dims": int, "fuse": tuple, "fusion_method": str, "rrf_k": int,
    "size": int, "overlap": int, "chunker": str, "index_title": bool, "language": str,
    "decimals": int,
}


def _check(key: str, value: Any, source: str) -> Any:
    expected = _FIELD_TYPES.get(key)
    if expected is None:
        known = ", ".join(sorted(_FIELD_TYPES))
        raise RanklensError(f"{source}: unknown setting {key!r} (known: {known})")
    if key == "size" and value is None:
        return None
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if expected is tuple and isinstance(value, (list, tuple)):
        value = tuple(str(v) for v in value)
        bad = [v for v in value if v not in ("tfidf", "bm25", "lsa")]
        if bad:
            raise RanklensError(f"{source}: fuse takes tfidf, bm25, lsa (got {bad[0]!r})")
        return value
    if expected is tuple and isinstance(value, str):
        return _check(key, [v.strip() for v in value.split(",") if v.strip()], source)
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise RanklensError(
            f"{source}: {key} must be {expected.__name__}, got {type(value).__name__} {value!r}"
        )
    choices = _CHOICES.get(key)
    if choices is not None and value not in choices:
        raise RanklensError(f"{source}: unknown {key} {value!r} (choose from {', '.join(choices)})")
    if key == "stem" and value not in ("none", *LANGUAGES):
        raise RanklensError(f"{source}: unknown stem language {value!r} (choose from none, {', '.join(LANGUAGES)})")
    return value


def _check_token_pattern(pattern: str, source: str) -> None:
    """A pattern the analyzer can use: compiles, never matches nothing, has at most one group."""
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise RanklensError(
            f"{source}: token_pattern {pattern!r} is not a valid regular expression ({error})") from None
    # findall returns empty terms for a pattern that can match nothing, tuples for several groups
    if compiled.fullmatch(""):
        raise RanklensError(f"{source}: token_pattern {pattern!r} matches the empty string")
    if compiled.groups > 1:
        raise RanklensError(f"{source}: token_pattern {pattern!r} has more than one capturing group")
