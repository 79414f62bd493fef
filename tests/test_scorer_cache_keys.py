"""Every setting a scorer reads is in its cache key: a Workbench that already built one setup scores the
next one as a fresh Workbench does.

Driven by the scorer registry and the settings table, so a new scorer or a new setting is covered
without touching this file: for every registered scorer and every setting, the setting is changed on
one shared Workbench (which keeps every scorer it built) and the scores are compared with a fresh
Workbench's. Settings with a few values (choices, flags) are also tried as the context of every other
change, since some settings count only under others (BM25's delta under BM25L and BM25+, the fusion
weight under minmax and zscore, BM25's k1 inside fusion). The oracle is the fresh Workbench: the test
never reads the keys themselves. A setting a scorer reads (``ScorerSpec.settings``, or one it declares
of its own) must also move its scores somewhere here, or the test would say nothing about it.
"""
from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import Any

import numpy as np
import pytest

from ranklens.engine.corpus import Chunk, Corpus, Document
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.registry import SCORERS, fusable_names, spec
from ranklens.engine.setup import Setup, all_settings, setup_settings

TEXTS = [
    "the cat sat on the mat",
    "a dog chased the cat around the garden garden garden",
    "cats and dogs are pets that people keep at home",
    "the stock market fell as traders sold their shares in the market today",
    "shares of the market leader rose today today today",
    "a garden needs water sun and care",
    "cat cat cat dog",
    "market garden cat water",
]
QUERIES = ("cat garden today", "market shares water", "dog")

# Values to try where the settings table cannot give one: free text, and settings no scorer reads (a
# reranker loads a model; k cuts the results, decimals prints them; language only names the defaults of
# stop words and stemming, tried themselves). A new setting without choices or a range must be added
# here, or test_every_setting_has_values_to_try fails.
OTHER_VALUES: dict[str, tuple[Any, ...]] = {
    "token_pattern": (r"(?u)\b\w+\b",),
    "stopwords": ("en",),
    "model": ("another-model",),  # read by the dense scorer only, which is not built here
    "size": (4,),
    "probes": (1,), "cells": (2,),  # --ann ivf's knobs: no default of their own (the square roots of the sizes)
    "rerank": (), "rerank_top": (), "decimals": (), "k": (), "language": (),
}
# What decides the text indexed (chunking, analysis): keyed with the term index, not the scorer.
# Each is changed once on the shared Workbench; the rest are also the context of every other change.
INDEXED = ("token_pattern", "lowercase", "fold_accents", "stopwords", "stem", "size", "overlap", "chunker",
           "index_title")


def corpus() -> Corpus:
    docs = [Document(f"d{i}", f"title {i}", t) for i, t in enumerate(TEXTS)]
    return Corpus("keys", docs, [Chunk(d.id, d.id, 0, 0, len(d.text), d.text) for d in docs])


CORPUS = corpus()


@cache
def values_to_try(name: str) -> tuple[Any, ...]:
    """Values of the setting other than its default: every choice, the other truth value, a number inside its
    range, pairs and a triple of the scorers fusion may combine (built here)."""
    if name in OTHER_VALUES:
        return OTHER_VALUES[name]
    setting = all_settings()[name]
    default = setting.default
    if setting.kind is tuple:
        names = [n for n in fusable_names() if spec(n).compared]
        fused = [*combinations(names, 2), tuple(names[:3])]
        return tuple(f for f in fused if f != tuple(default))
    if setting.kind is bool:
        return (not default,)
    if setting.allowed() is not None:
        return tuple(c for c in setting.allowed() or () if c != default)
    if setting.kind in (int, float):
        if setting.step and setting.step.ladder:  # LSA dims: two rungs under the corpus' size
            return setting.step.ladder[:2]
        if default == 0:
            return (1,)
        other = default * 2 if setting.maximum is None else (default + setting.maximum) / 2
        return (setting.kind(other),)
    raise AssertionError(f"no values to try for {name}: add them to OTHER_VALUES")


def scores(workbench: Workbench, setup: Setup) -> np.ndarray:
    retriever = workbench.retriever(setup)
    return np.stack([retriever.scores(retriever.query(q)) for q in QUERIES])


@cache
def fresh_scores(setup: Setup) -> np.ndarray:
    """The scores of a Workbench that never built anything else (kept: the tests ask for a setup often)."""
    return scores(Workbench(CORPUS), setup)


def with_value(setup: Setup, name: str, value: Any) -> Setup:
    if name == "overlap" and setup.size is None:  # overlap counts only when documents are re-chunked
        setup = setup.replace(size=4)
    return setup.replace(**{name: value})


def contexts(scorer: str) -> list[Setup]:
    """The scorer's default setup, and that setup with each value of each few-valued scorer setting."""
    base = setup_for(CORPUS, {"scorer": scorer})
    few = [name for name, s in setup_settings().items()
           if name not in INDEXED and name != "scorer" and (s.kind in (bool, tuple) or s.allowed() is not None)]
    return [base, *(base.replace(**{name: value}) for name in few for value in values_to_try(name))]


BUILT = [s.name for s in SCORERS.entries() if s.compared]  # the dense scorer loads a model: tests/test_neural_*


def test_every_setting_has_values_to_try() -> None:
    assert set(OTHER_VALUES) <= set(setup_settings()) and set(INDEXED) <= set(setup_settings())
    for name in setup_settings():
        values_to_try(name)


def _tried(name: str) -> bool:
    try:
        return bool(values_to_try(name))
    except AssertionError:  # test_every_setting_has_values_to_try says which
        return True


SETTINGS = [name for name in all_settings() if name != "scorer" and _tried(name)]


@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("scorer", BUILT)
def test_changing_a_setting_on_a_used_workbench_scores_as_a_fresh_one(scorer: str, name: str) -> None:
    shared = Workbench(CORPUS)
    moved = False
    for context in contexts(scorer)[:1] if name in INDEXED else contexts(scorer):
        before = scores(shared, context)
        for value in values_to_try(name):
            changed = with_value(context, name, value)
            fresh = fresh_scores(changed)
            np.testing.assert_allclose(scores(shared, changed), fresh, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{scorer}: {name}={value!r} after {context.describe()}")
            moved = moved or before.shape != fresh.shape or not np.allclose(before, fresh)
    if name in spec(scorer).reads():
        assert moved, f"{scorer} declares {name} but no value tried here moves its scores"
