"""Every scorer ranklens knows, by name: how to build it, what it reads, how to call it.

Setup validation, the command line's ``--scorer`` choices, the TUI's scorer
cycle, labels, the list of scorers fusion may combine and the metrics table all
read this registry. A new scorer is one module in ``engine/scoring/`` with a
``build(inputs) -> Scorer`` function, plus one ``register`` line below (or an
entry point of another package, engine/registry.py).

A scorer may declare settings of its own (``ScorerSpec.own_settings``: a frozen
dataclass of ``setting(...)`` fields, as ``Setup`` declares its own): their flags,
ranklens.toml keys, API keywords and the TUI's palette entries are derived as for
``Setup``'s, and a setup holds their values (``Setup.declared``) without a field
of its own for each.

Importing this module is cheap (no numpy): the command line and the TUI's
first paint read it; a scorer's module is imported when it is first built.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Sequence

from ranklens.engine.work.progress import Progress, no_progress
from ranklens.engine.settings import DELTA_VARIANTS, WEIGHTED_FUSIONS
from ranklens.engine.settings import Setting
from ranklens.engine.settings import settings_of
from ranklens.engine.registry import Registry

if TYPE_CHECKING:
    from ranklens.engine.scoring.base import Scorer
    from ranklens.engine.setup import Setup
    from ranklens.engine.text.termindex import TermIndex


@dataclass(frozen=True)
class ScorerInputs:
    """What a scorer is built from."""

    index: TermIndex
    setup: Setup
    # another scorer over the same index, through the workbench's cache: (name, setup) -> scorer
    scorer: Callable[[str, Setup], Scorer]
    # the chunks' texts as indexed, made when first asked for (a neural scorer encodes them;
    # term scorers read ``index`` and never pay for the list)
    texts: Callable[[], Sequence[str]] = tuple
    cache_dir: Path | None = None  # where built vectors may be kept between runs (None: nowhere)
    progress: Progress = no_progress  # long builds (encoding chunks) report here and may be cancelled
    # the key ``index`` is kept under in ``cache_dir`` (None: not kept): a scorer's weights may be kept beside it
    index_key: str | None = None


@dataclass(frozen=True)
class ScorerSpec:
    name: str  # what --scorer, ranklens.toml and the setup call it
    label: str  # the short column heading: "BM25"
    build: str  # "module:function" taking ``ScorerInputs``, imported when first built
    settings: tuple[str, ...] = ()  # Setup fields the scorer reads: its cache key; the TUI's "inactive" hint
    # a frozen dataclass declaring settings of the scorer's own with ``setting(...)``, read back with
    # ``setup.read(it)``; with ``settings``, what the scorer reads (``reads``). The built-in scorers keep
    # theirs on ``Setup``, where ranklens.toml files and saved runs already name them.
    own_settings: type | None = None
    # how the setup line names it: the variant ("BM25 lucene") and its parameters ("k1=1.2 b=0.75")
    summary: Callable[[Setup], str] | None = None
    details: Callable[[Setup], str] | None = None
    fusable: bool = True  # may be one of fusion's parts
    ranks_all: bool = False  # ranks every chunk (a cosine may be 0 or below): no "score > 0" cut
    parts: Callable[[Setup], tuple[str, ...]] | None = None  # scorers it is built from (fusion's)
    # measured when every scorer is compared; False for one that loads a model (an optional extra,
    # seconds to minutes of encoding): compared only when it is the setup's own scorer
    compared: bool = True
    # scores the query's raw text (a neural encoder), so a query with no term known to the corpus still ranks
    reads_text: bool = False
    # ranks by chunk vectors (an ``Encoder``): may rank through an approximate index (engine/ann/ranking.py)
    vectors: bool = False

    def describe(self, setup: Setup) -> str:
        """How the setup line names it: the summary, then the details, or else its own settings' values."""
        head = self.summary(setup) if self.summary else self.label
        tail = self.details(setup) if self.details else " ".join(
            f"{name}={_shown(setup.value_of(name))}" for name in self.declared())
        return f"{head} {tail}".strip()

    def declared(self) -> dict[str, Setting]:
        """The settings of its own the scorer declares (``own_settings``), by name."""
        return declared_settings(self.own_settings) if self.own_settings else {}

    def reads(self) -> tuple[str, ...]:
        """Every setting the scorer reads: the ``Setup`` fields it names, then those it declares."""
        return (*self.settings, *self.declared())

    def short(self, setup: Setup) -> str:
        return self.summary(setup) if self.summary else self.label

    def key(self, setup: Setup) -> tuple:
        """What identifies a built scorer on one term index: equal keys, equal scores."""
        own = tuple(setup.value_of(name) for name in self.reads())
        parts = tuple(spec(p).key(setup) for p in self.parts(setup)) if self.parts else ()
        return (self.name, own, parts)

    def needs_terms(self, setup: Setup) -> bool:
        """Whether a query needs a term the corpus knows to score anything (false when any part reads text)."""
        if self.reads_text:
            return False
        return all(spec(p).needs_terms(setup) for p in self.parts(setup)) if self.parts else True

    def builder(self) -> Callable[[ScorerInputs], Scorer]:
        module, function = self.build.split(":")
        return getattr(importlib.import_module(module), function)


SCORERS: Registry[ScorerSpec] = Registry("scorer", lambda s: s.name, "ranklens.scorers")
register, unregister, registered, spec = SCORERS.register, SCORERS.unregister, SCORERS.registered, SCORERS.get


def scorer_names() -> tuple[str, ...]:
    return SCORERS.names()


def running_scorers(setup: Setup) -> tuple[ScorerSpec, ...]:
    """The scorers ``setup`` runs: its scorer and the parts it is built from (fusion's)."""
    active = spec(setup.scorer)
    return (active, *(spec(part) for part in active.parts(setup))) if active.parts else (active,)


def readers(setting: str) -> list[ScorerSpec]:
    """The scorers that read the setting ``setting`` (a ``Setup`` field they name, or one they declare)."""
    return [scorer for scorer in SCORERS.entries() if setting in scorer.reads()]


@cache
def declared_settings(declaration: type) -> dict[str, Setting]:
    """The settings a dataclass declares (a scorer's ``own_settings``), read once per class."""
    return settings_of(declaration)


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def fusable_names() -> tuple[str, ...]:
    return tuple(s.name for s in SCORERS.entries() if s.fusable)


def _bm25_details(setup: Setup) -> str:
    text = f"k1={setup.k1:g} b={setup.b:g}"
    return text + (f" δ={setup.delta:g}" if setup.bm25_variant in DELTA_VARIANTS else "")


def _fusion_details(setup: Setup) -> str:
    if setup.fusion_method == "rrf":
        return f"rrf rrf_k={setup.rrf_k}"
    if setup.fusion_method in WEIGHTED_FUSIONS:
        return f"{setup.fusion_method} w={setup.fusion_weight:g}"
    return setup.fusion_method


def _model_label(setup: Setup) -> str:
    from ranklens.engine.neural.model_names import bundled_label

    return bundled_label(setup.model) or Path(setup.model.rstrip("/\\")).name or setup.model


register(ScorerSpec(
    "tfidf", "TF-IDF", "ranklens.engine.scoring.tfidf:build", settings=("sublinear_tf",),
    summary=lambda s: "TF-IDF sublinear" if s.sublinear_tf else "TF-IDF"))
register(ScorerSpec(
    "bm25", "BM25", "ranklens.engine.scoring.bm25:build", settings=("bm25_variant", "k1", "b", "delta"),
    summary=lambda s: f"BM25 {s.bm25_variant}", details=_bm25_details))
register(ScorerSpec(
    "lsa", "LSA", "ranklens.engine.scoring.lsa:build", settings=("dims",), ranks_all=True, vectors=True,
    summary=lambda s: f"LSA {s.dims} dims"))
register(ScorerSpec(
    "fusion", "fusion", "ranklens.engine.scoring.fusion:build",
    settings=("fuse", "fusion_method", "rrf_k", "fusion_weight"),
    fusable=False, parts=lambda s: s.fuse,
    summary=lambda s: f"fusion {'+'.join(s.fuse)}", details=_fusion_details))
register(ScorerSpec(
    "dense", "dense", "ranklens.engine.scoring.dense:build", settings=("model",), ranks_all=True, compared=False,
    reads_text=True, vectors=True,
    summary=lambda s: f"dense {_model_label(s)}"))
