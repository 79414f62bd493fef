"""One retrieval setup: analyzer + scorer + chunking + k.

The CLI, the TUI and the tests all build a ``Setup`` the same way: the
corpus' ``ranklens.toml`` settings first, then explicit overrides, through
``Setup.from_mapping``. Field names are the toml keys; CLI options map onto
them one to one (``--bm25-variant`` -> ``bm25_variant``).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Mapping

from engine.errors import RanklensError

SCORERS = ("tfidf", "bm25", "lsa", "fusion")
BM25_VARIANTS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
LANGUAGES = ("it", "en", "es")
CHUNKERS = ("words", "sentences")
FUSION_METHODS = ("rrf", "sum")
SKLEARN_TOKEN_PATTERN = r"(?u)\b\w\w+\b"


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
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

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
        merged = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}
        return Setup.from_mapping(merged, changes, source="setup")

    def validate(self, source: str = "settings") -> None:
        if self.k < 1:
            raise RanklensError(f"{source}: k must be at least 1 (got {self.k})")
        if self.size is not None:
            if self.size < 1:
                raise RanklensError(f"{source}: size must be at least 1 (got {self.size})")
            if self.overlap < 0 or self.overlap >= self.size:
                raise RanklensError(
                    f"{source}: overlap must be >= 0 and smaller than size "
                    f"(got overlap {self.overlap}, size {self.size})"
                )
        if self.k1 < 0 or self.b < 0 or self.b > 1 or self.delta < 0:
            raise RanklensError(f"{source}: need k1 >= 0, 0 <= b <= 1 and delta >= 0 "
                                f"(got k1 {self.k1}, b {self.b}, delta {self.delta})")
        if self.dims < 1:
            raise RanklensError(f"{source}: dims must be at least 1 (got {self.dims})")
        if self.rrf_k < 1:
            raise RanklensError(f"{source}: rrf_k must be at least 1 (got {self.rrf_k})")
        if len(self.fuse) < 2 or "fusion" in self.fuse:
            raise RanklensError(f"{source}: fuse needs two or more of tfidf, bm25, lsa (got {list(self.fuse)})")

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
