"""One retrieval setup: analyzer + scorer + chunking + k.

The CLI, the TUI and the tests all build a ``Setup`` the same way: the
corpus' ``ranklens.toml`` settings first, then explicit overrides, through
``Setup.from_mapping`` (``retriever.setup_for`` adds the corpus). Each field
is declared once with ``setting(...)``: its type, default, range or choices,
help and TUI step; checking, the command-line options and the TUI's keys are
derived from these declarations (``engine/settings.py``).

A scorer may declare settings of its own on its spec (``ScorerSpec.own_settings``);
a setup holds their values in one field, ``declared``, and takes them by name like
its own fields: ``from_mapping({"boost": 2})``, ``replace(boost=2)``, ``value_of("boost")``.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar
from collections.abc import Mapping

from ranklens.engine.chunking.chunkers import CHUNKER_TABLE, CHUNKERS
from ranklens.engine.scoring.registry import fusable_names, scorer_names, spec
from ranklens.engine.scoring.registry import SCORERS
from ranklens.engine.scoring.registry import running_scorers
from ranklens.engine.settings import (
    BM25_VARIANTS, DIMS_LADDER, FUSION_METHODS, LANGUAGES, MAX_DECIMALS, OVERLAP_LADDER,
    SIZE_LADDER, SKLEARN_TOKEN_PATTERN, Setting, SettingError, Step, check_value, setting, settings_of,
)

# Plain words the settings use as values, re-exported for the front ends.
__all__ = ["BM25_VARIANTS", "CHUNKERS", "FUSION_METHODS", "LANGUAGES", "Setup", "all_settings", "setup_settings"]

T = TypeVar("T")

# What ranklens.toml may hold besides settings.
_NOT_SETTINGS = ("description", "name")


def _approximate_kinds() -> tuple[str, ...]:
    from ranklens.engine.ann.knobs import approximate_kinds

    return approximate_kinds()


@dataclass(frozen=True)
class Setup:
    scorer: str = setting("bm25", "how chunks are scored", choices=scorer_names,
                          step=Step("s"), title="scorer")
    k: int = setting(5, "results per query", minimum=1, flag="-k", step=Step(("minus", "plus,equals_sign"), by=1),
                    title="results shown (k)")
    # analysis
    token_pattern: str = setting(SKLEARN_TOKEN_PATTERN, "regular expression of a token (scikit-learn's)",
                                 metavar="REGEX")
    lowercase: bool = setting(True, "lowercase before matching")
    fold_accents: bool = setting(False, "strip accents before matching (è -> e)", step=Step("a"))
    stopwords: str = setting("none", "stop words: it, en, es, a file, or none", metavar="LANG|FILE|none",
                             step=Step("w"), title="stop words")
    stem: str = setting("none", "Snowball stemming: it, en, es or none", choices=("none", *LANGUAGES),
                        metavar="LANG|none", step=Step("t"), title="stemming")
    # tf-idf
    sublinear_tf: bool = setting(False, "TF-IDF with 1+ln(tf)", step=Step("l"), title="sublinear tf")
    # bm25
    bm25_variant: str = setting("lucene", "BM25 variant", choices=BM25_VARIANTS, step=Step("v"),
                                title="BM25 variant")
    k1: float = setting(1.2, "BM25 k1: how fast repeated terms saturate", minimum=0,
                        step=Step(("left_square_bracket", "right_square_bracket"), by=0.1), title="BM25 k1")
    b: float = setting(0.75, "BM25 b: how much chunk length matters", minimum=0, maximum=1,
                       step=Step(("left_curly_bracket", "right_curly_bracket"), by=0.05), title="BM25 b")
    delta: float = setting(0.5, "BM25L/BM25+ delta", minimum=0, title="BM25 delta")
    # lsa
    dims: int = setting(100, "LSA dimensions (clamped below the corpus' chunks and terms)", minimum=1,
                        step=Step(("d", "D"), ladder=DIMS_LADDER), title="LSA dimensions")
    # fusion
    fuse: tuple[str, ...] = setting(("bm25", "lsa"), "scorers fused by the fusion scorer", choices=fusable_names,
                                    metavar="A,B")
    fusion_method: str = setting("rrf", "rrf: reciprocal rank fusion; sum: mean of min-max scores; minmax, "
                                 "zscore: weighted sum of min-max or z-score normalised scores",
                                 choices=FUSION_METHODS)
    rrf_k: int = setting(60, "RRF's k: 1/(rrf_k + rank)", minimum=1)
    fusion_weight: float = setting(0.5, "minmax/zscore fusion: the first fused scorer's weight; the others share "
                                   "the rest", minimum=0, maximum=1,
                                   step=Step(by=0.1), title="fusion weight")
    # neural (the neural extra): a bi-encoder for the dense scorer, a cross-encoder reranking the first stage
    model: str = setting("wordllama", "the dense scorer's model: a local folder, a cached Hugging Face name, "
                         "e5-small (the lessons' multilingual-e5-small, 4-bit) or wordllama (both ship with the "
                         "neural extra; e5-small is the default for it, en and es corpora when installed)",
                         metavar="NAME|PATH", title="dense model")
    rerank: str | None = setting(None, "a cross-encoder (folder or cached name) that rereads the first stage's top "
                                 "results", metavar="MODEL", title="reranker")
    rerank_top: int = setting(5, "first-stage results the reranker rereads", minimum=1, title="reranked results")
    # approximate search: a scorer with vectors (LSA, dense) ranks through an index (engine/ann/ranking.py)
    ann: str | None = setting(None, "rank LSA or dense vectors through an approximate index: hnsw, ivf or "
                              "another registered kind (none: every chunk compared, exactly)",
                              choices=_approximate_kinds, metavar="INDEX", title="approximate index")
    ef_search: int = setting(64, "--ann hnsw: candidates a query keeps while walking the graph", minimum=1,
                             title="HNSW ef_search")
    hnsw_m: int = setting(16, "--ann hnsw: links per node of the graph", minimum=2, title="HNSW M")
    probes: int | None = setting(None, "--ann ivf: cells a query visits (default: the square root of the cells)",
                                 minimum=1, title="IVF probes")
    cells: int | None = setting(None, "--ann ivf: k-means cells (default: the square root of the chunks)",
                                minimum=1, title="IVF cells")
    # chunking of raw documents; None keeps the corpus' own chunks
    size: int | None = setting(None, "re-chunk documents: chunk size in the chunker's unit (words for words and "
                               "sentences, characters for recursive and markdown, model tokens for tokens)",
                               minimum=1, step=Step(ladder=SIZE_LADDER), title="chunk size")
    overlap: int = setting(0, "what consecutive chunks share, in the chunker's unit (sentences for sentences)",
                           minimum=0, step=Step(ladder=OVERLAP_LADDER), title="chunk overlap")
    chunker: str = setting("words", "how documents are cut: words, sentences (whole ones), recursive "
                           "(LangChain's recursive character splitter), markdown (sections by heading, then "
                           "recursive) or tokens (e5-small's tokens, neural extra)", choices=CHUNKERS)
    index_title: bool = setting(False, "index each document's title with its chunks "
                                "(on for BEIR records with titles, unless ranklens.toml says otherwise)")
    language: str | None = setting(None, "the corpus' language", choices=LANGUAGES)
    decimals: int = setting(3, "digits of scores printed", minimum=0, maximum=MAX_DECIMALS)
    # The values given to settings the scorers declare on their specs (``ScorerSpec.own_settings``), as
    # (name, value) pairs sorted by name, a value equal to its default left out: a setup stays hashable and
    # equal to any other that runs alike. Set by name (``boost=2``), never as this field.
    declared: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def from_mapping(cls, *layers: Mapping[str, Any], source: str = "settings") -> Setup:
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
        for key in _NOT_SETTINGS:
            values.pop(key, None)
        setup = cls(**_checked(values, source))
        setup.validate(source)
        return setup

    def replace(self, **changes: Any) -> Setup:
        """A copy with some fields changed, validated like any other setup.

        Unlike a layer of ``from_mapping`` (where None means "not given"), None here
        is a value: ``replace(rerank=None)`` turns the reranker off.
        """
        setup = dataclasses.replace(self, **_checked(changes, "setup", self.declared))
        setup.validate("setup")
        return setup

    def validate(self, source: str = "settings") -> None:
        """What no single setting can check alone; the message names ``source`` and the setting."""
        checks = (
            ("overlap", self.size is None or self.overlap < self.size,
             f"overlap {self.overlap} must be smaller than size {self.size}"),
            ("fuse", len(self.fuse) >= 2,
             f"fuse needs two or more of {', '.join(fusable_names())} (got {list(self.fuse)})"),
        )
        for name, ok, message in checks:
            if not ok:
                raise SettingError(name, message, source)
        _check_token_pattern(self.token_pattern, source)

    def describe(self) -> str:
        """The one-line summary shown on the TUI's setup line and in CLI headers."""
        parts = [spec(self.scorer).describe(self), f"stop={Path(self.stopwords).name}", f"stem={self.stem}"]
        if self.fold_accents:
            parts.append("fold accents")
        if self.size is not None:
            parts.append(f"chunks {CHUNKER_TABLE[self.chunker].window_label(self.size, self.overlap)}")
        if self.rerank:
            parts.append(f"rerank {Path(self.rerank).name} top {self.rerank_top}")
        if self.ann is not None and spec(self.scorer).vectors:  # a lexical scorer ranks exactly
            parts.append(" ".join([f"through {self.ann}", *ann_values(self)]))
        parts.append(f"k={self.k}")
        return " · ".join(parts)

    def value_of(self, name: str) -> Any:
        """The value of the setting ``name``: a field, or a setting a registered scorer declares."""
        if name in setup_settings():
            return getattr(self, name)
        return dict(self.declared).get(name, declared_settings()[name].default)

    def read(self, declaration: type[T]) -> T:
        """A scorer's own settings (its ``own_settings`` dataclass) with this setup's values."""
        given = dict(self.declared)
        return declaration(**{name: given[name] for name in settings_of(declaration) if name in given})

    def to_dict(self) -> dict[str, Any]:
        """Every setting by name, JSON-ready: what a script needs to rebuild this setup (the running
        scorers' own settings too, and any other scorer's given)."""
        values = {name: getattr(self, name) for name in setup_settings()}
        values.update(self.declared)
        values.update((name, self.value_of(name)) for scorer in running_scorers(self) for name in scorer.declared())
        return {key: list(value) if isinstance(value, tuple) else value for key, value in values.items()}


def _checked(values: Mapping[str, Any], source: str, held: tuple[tuple[str, Any], ...] = ()) -> dict[str, Any]:
    """Each value as its setting's type, those of the scorers' own settings merged into ``held`` as the
    ``declared`` field; an unknown key or a bad value names ``source`` and the setting."""
    fields = setup_settings()
    known = fields if all(key in fields for key in values) else all_settings()  # plug-ins' only when asked
    checked, declared = {}, dict(held)
    for key, value in values.items():
        if key not in known:
            raise SettingError(key, f"unknown setting {key!r} (known: {', '.join(sorted(known))})", source)
        try:
            value = check_value(known[key], value)
        except SettingError as error:
            raise SettingError(key, error.message, source) from None
        if key in fields:
            checked[key] = value
        else:
            declared[key] = value
    if known is not fields:
        checked["declared"] = tuple(sorted((key, value) for key, value in declared.items()
                                           if value != known[key].default))
    return checked


def ann_settings() -> tuple[str, ...]:
    """The setup keys of how a scorer's vectors are searched, not made: ``ann`` and its kinds' settings."""
    from ranklens.engine.ann.knobs import kind_knobs

    return ("ann", *dict.fromkeys(knob.setup for _, knob in kind_knobs() if knob.setup))


def ann_values(setup: Setup) -> list[str]:
    """``name=value`` of each setting the setup's ``ann`` kind reads from it and was given."""
    from ranklens.engine.ann.knobs import declared

    return [f"{knob.name}={getattr(setup, knob.setup)}" for knob in declared()[setup.ann or ""].settings
            if knob.setup and getattr(setup, knob.setup) is not None]


@cache
def setup_settings() -> dict[str, Setting]:
    """Every setting of ``Setup`` by field name, in declaration order."""
    return settings_of(Setup)


def declared_settings() -> dict[str, Setting]:
    """The settings the registered scorers declare on their specs, by name (loads the plug-ins).

    A name is one setting: one that ``Setup`` has, or that another scorer declares, would give two
    settings one flag and one ranklens.toml key, and is refused naming both."""
    fields = setup_settings()
    found: dict[str, Setting] = {}
    owners: dict[str, str] = {}
    for scorer in SCORERS.entries():
        for name, declared in scorer.declared().items():
            if name in fields or name in found:
                owner = "the setup" if name in fields else f"scorer {owners[name]}"
                raise SettingError(name, f"scorer {scorer.name} declares a setting {name!r}, which {owner} "
                                   "has already")
            found[name], owners[name] = declared, scorer.name
    return found


def all_settings() -> dict[str, Setting]:
    """Every setting a setup takes by name: its fields', then the scorers' own (the plug-ins' loaded)."""
    return {**setup_settings(), **declared_settings()}


def _check_token_pattern(pattern: str, source: str) -> None:
    """A pattern the analyzer can use: compiles, never matches nothing, has at most one group."""
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise SettingError("token_pattern",
                           f"token_pattern {pattern!r} is not a valid regular expression ({error})", source) from None
    # findall returns empty terms for a pattern that can match nothing, tuples for several groups
    if compiled.fullmatch(""):
        raise SettingError("token_pattern", f"token_pattern {pattern!r} matches the empty string", source)
    if compiled.groups > 1:
        raise SettingError("token_pattern", f"token_pattern {pattern!r} has more than one capturing group", source)
