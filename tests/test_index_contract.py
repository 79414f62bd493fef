"""The index contract: every kind keeps it, and a new kind is one class plus one registration.

The toy kind below compares every ``stride``-th vector only (its knob, 4 -> 2
-> 1), so what it compares and what it finds are known by hand: at stride 1
it is exact search.
"""
from __future__ import annotations

from typing import Self

import numpy as np
import pytest

from ranklens.engine.experiments.indexes import index_sweep
from ranklens.engine.ann import knobs, registry
from ranklens.engine.ann.base import Found, IndexSettingError, IndexStats, VectorIndex
from ranklens.engine.ann.exact import exact_topk
from ranklens.engine.ann.registry import INDEX_KINDS, register_index
from ranklens.engine.ann.vectors import VectorSet
from ranklens.engine.work.progress import Progress, no_progress
from tests.support.cli import assert_error, run_cli


class StrideIndex(VectorIndex):
    """Every ``stride``-th vector, searched exactly: a toy that trades recall for work."""

    kind = "stride"
    description = "every stride-th vector (a toy)"
    knob = "stride"

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    @classmethod
    def check_settings(cls, param: int | None, knob_values: list[int] | None) -> None:
        for stride in knob_values or ():
            if stride < 1:
                raise IndexSettingError("stride", f"{{setting}} must be at least 1 (got {stride})")

    @classmethod
    def build(cls, vectors: np.ndarray, param: int | None = None, *, seed: int = 0,
              progress: Progress = no_progress) -> Self:
        return cls(vectors)

    def search(self, queries: np.ndarray, k: int, knob: int | None = None) -> Found:
        stride = knob or 1
        kept = np.arange(0, self.vectors.shape[0], stride)
        Q = np.atleast_2d(queries)
        local = exact_topk(self.vectors[kept], Q, k)
        ids = kept[local]
        scores = np.einsum("qkd,qd->qk", self.vectors[ids], Q)
        return Found(ids, scores, np.full(Q.shape[0], kept.size))

    def knob_values(self) -> list[int]:
        return [4, 2, 1]

    @property
    def stats(self) -> IndexStats:
        return IndexStats(0.0, 0)


@pytest.fixture
def stride_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    # the registration ends with the test
    monkeypatch.setattr(registry, "INDEX_KINDS", dict(INDEX_KINDS))
    monkeypatch.setattr(knobs, "DECLARED", dict(knobs.DECLARED))
    register_index(StrideIndex)


def random_set(n: int = 400, d: int = 8, queries: int = 12) -> VectorSet:
    x = np.random.default_rng(3).standard_normal((n + queries, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return VectorSet("random", x[:n], x[n:], default_cells=8)


@pytest.mark.parametrize("kind", sorted(INDEX_KINDS))
def test_every_kind_keeps_the_contract(kind: str) -> None:
    """Shapes, best-first scores, real ids, and exact answers at the knob's most exact value."""
    vectors = random_set()
    index = INDEX_KINDS[kind].build(vectors.vectors, INDEX_KINDS[kind].default_param(vectors))
    exact_value = index.knob_values()[-1] if index.knob_values() else None
    found = index.search(vectors.queries, 5, exact_value)
    assert found.ids.shape == found.scores.shape == (12, 5) and found.compared.shape == (12,)
    assert np.array_equal(found.ids, exact_topk(vectors.vectors, vectors.queries, 5))
    assert np.allclose(found.scores, np.einsum("qkd,qd->qk", vectors.vectors[found.ids], vectors.queries))
    assert (np.diff(found.scores, axis=1) <= 1e-12).all()
    assert (found.compared >= 400).all() and index.stats.bytes >= 0


def test_a_registered_toy_index_goes_through_the_sweep(stride_registered: None) -> None:
    sweep = index_sweep(random_set(), "stride")
    assert [(r.knob, r.value, r.compared_mean) for r in sweep.rows] == [("stride", 4, 100), ("stride", 2, 200),
                                                                        ("stride", 1, 400)]
    assert sweep.rows[-1].recall == 1.0 and sweep.rows[0].recall < 1.0
    assert sweep.to_dict()["rows"][0]["stride"] == 4


def test_a_registered_toy_index_is_on_the_command_line(capsys, stride_registered: None) -> None:
    run = run_cli(capsys, "ann", "studio-alfa", "--index", "stride,exact", "--json")
    assert run.status == 0, run.err
    kinds = {sweep["index"]: sweep for sweep in run.json["indexes"]}
    assert list(kinds) == ["stride", "exact"]
    assert [row["stride"] for row in kinds["stride"]["rows"]] == [4, 2, 1]
    assert kinds["stride"]["rows"][-1]["recall@10"] == kinds["exact"]["rows"][0]["recall@10"] == 1.0
    human = run_cli(capsys, "ann", "studio-alfa", "--index", "stride")
    assert "stride 4" in human.out and human.status == 0


def test_an_unknown_kind_lists_the_registered_ones(capsys, stride_registered: None) -> None:
    assert_error(run_cli(capsys, "ann", "--synthetic", "--index", "annoy"),
                 "unknown index 'annoy' (choose from exact, ivf, hnsw, stride)")


def test_a_kind_name_is_registered_once(stride_registered: None) -> None:
    class Impostor(StrideIndex):
        pass

    register_index(StrideIndex)  # the same class again is harmless
    with pytest.raises(ValueError, match="already registered"):
        register_index(Impostor)


def test_exact_search_pads_when_k_exceeds_the_vectors() -> None:
    vectors = random_set(n=3, queries=2)
    found = INDEX_KINDS["exact"].build(vectors.vectors).search(vectors.queries, 5)
    assert found.ids.shape == (2, 5) and (found.ids[:, 3:] == -1).all() and (found.scores[:, 3:] == -np.inf).all()
    assert sorted(found.ids[0, :3]) == [0, 1, 2]
