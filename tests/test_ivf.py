"""Exact and IVF search, and seed 004's IVF table."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from ranklens.engine.errors import Cancelled, RanklensError
from ranklens.engine.ann.exact import exact_topk, top_k_rows as _top_k_rows
from ranklens.engine.ann.ivf import IVFIndex, cell_warnings, probe_ladder
from ranklens.engine.ann.synthetic import synthetic_vectors
from tests.support.examples import examples
from tests.support.ivf_sweep import sweep, sweep_to_dict
from tests.support.shared_builds import SHARED, shared_index_builds

SEED_PROBES = [1, 2, 4, 8, 16, 32, 100]
SEED_COMPARED = [360, 536, 925, 1727, 3314, 6454, 20100]
SEED_RECALL = ["0.505", "0.655", "0.750", "0.828", "0.902", "0.965", "1.000"]


@pytest.fixture(scope="module")
def seed_sweep():
    V, Q = synthetic_vectors()
    with shared_index_builds():
        return sweep(V, Q, cells=100, probes=SEED_PROBES)


@SHARED
def test_seed_ivf_table(seed_sweep) -> None:
    rows = seed_sweep
    assert [r.value for r in rows] == SEED_PROBES
    assert [f"{r.compared_mean:.0f}" for r in rows] == [str(c) for c in SEED_COMPARED]
    assert [f"{r.recall:.3f}" for r in rows] == SEED_RECALL
    assert [f"{r.share:.1%}" for r in rows] == ["1.8%", "2.7%", "4.6%", "8.6%", "16.6%", "32.3%", "100.5%"]
    assert cell_warnings(20000, 100) == ()


@SHARED
def test_sweep_json_shape(seed_sweep) -> None:
    d = sweep_to_dict(seed_sweep)
    assert set(d) == {"rows"}
    assert all(set(r) >= {"n_probe", "compared_mean", "share", "recall@10", "ms_per_query"} for r in d["rows"])
    assert all(r["ms_per_query"] >= 0 for r in d["rows"])


def test_ms_per_query_is_one_search_of_the_batch_in_milliseconds_over_the_queries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that moves 0.25 s per reading makes each batch of 40 queries take 0.25 s: 6.25 ms per query."""
    import types

    from ranklens.engine.ann import sweep as sweep_module

    readings = iter(np.arange(1000) * 0.25)
    monkeypatch.setattr(sweep_module, "time", types.SimpleNamespace(perf_counter=lambda: float(next(readings))))
    rng = np.random.default_rng(5)
    V = rng.standard_normal((400, 8))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    rows = sweep(V, V[:40], cells=4, probes=[1, 4])
    assert [r.ms_per_query for r in rows] == [250 / 40, 250 / 40]


def test_synthetic_vectors_are_the_seeds() -> None:
    # Seed 004's generator, verbatim.
    rng = np.random.default_rng(0)
    n, d, nq = 20000, 64, 200
    centri = rng.standard_normal((50, d)) * 0.5
    etichette = rng.integers(0, 50, n)
    V = centri[etichette] + rng.standard_normal((n, d))
    Q = centri[rng.integers(0, 50, nq)] + rng.standard_normal((nq, d))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    Q /= np.linalg.norm(Q, axis=1, keepdims=True)
    mine_v, mine_q = synthetic_vectors()
    assert mine_v.dtype == np.float64
    assert np.array_equal(mine_v, V) and np.array_equal(mine_q, Q)


def _random_unit(n: int, d: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_exact_topk_equals_argsort_with_ties() -> None:
    rng = np.random.default_rng(1)
    # Small integer vectors: many equal inner products.
    V = rng.integers(-1, 2, size=(300, 4)).astype(float)
    Q = rng.integers(-1, 2, size=(25, 4)).astype(float)
    expected = np.argsort(-(Q @ V.T), axis=1, kind="stable")[:, :10]
    assert np.array_equal(exact_topk(V, Q, 10), expected)


@settings(max_examples=examples(200), deadline=None)
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 30)),
               elements=st.integers(-2, 2).map(float)),
    st.integers(1, 35),
)
def test_row_top_k_equals_stable_argsort(scores: np.ndarray, k: int) -> None:
    expected = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    assert np.array_equal(_top_k_rows(scores, k), expected)


def test_all_cells_probed_gives_exact_results() -> None:
    V, Q = _random_unit(500, 8, 2), _random_unit(20, 8, 3)
    index = IVFIndex.build(V, 10)
    found = index.search(Q, 10, knob=10)
    assert np.array_equal(found.ids, exact_topk(V, Q, 10))
    assert (found.compared == 500 + 10).all()


def test_all_cells_probed_is_exact_with_duplicate_vectors() -> None:
    base = _random_unit(100, 6, 4)
    V = np.concatenate([base, base, base])  # every score tied three ways
    Q = _random_unit(10, 6, 5)
    found = IVFIndex.build(V, 12).search(Q, 7, knob=12)
    assert np.array_equal(found.ids, exact_topk(V, Q, 7))


def test_full_probe_sweep_recall_is_one() -> None:
    V, Q = _random_unit(400, 8, 6), _random_unit(15, 8, 7)
    result = sweep(V, Q, cells=8, probes=[1, 8])
    assert result[-1].recall == 1.0
    assert result[0].compared_mean < result[-1].compared_mean == 408


def test_inverted_lists_are_csr() -> None:
    V = _random_unit(300, 5, 8)
    index = IVFIndex.build(V, 6)
    assert index.offsets[0] == 0 and index.offsets[-1] == 300
    assert np.array_equal(np.sort(index.ids), np.arange(300))
    assert index.vectors is V  # the caller's array, not a copy; the float32 copy is cell by cell
    for c in range(6):
        cell = index.ids[index.offsets[c]:index.offsets[c + 1]]
        assert np.all(np.diff(cell) > 0)
        assert np.array_equal(index.cell_blocks[c], V[cell].T.astype(np.float32))


def test_fewer_candidates_than_k_are_padded() -> None:
    V = _random_unit(40, 4, 9)
    index = IVFIndex.build(V, 40)  # one vector per cell
    found = index.search(V[:3], 5, knob=2)
    assert (found.ids[:, 2:] == -1).all() and (found.ids[:, :2] >= 0).all()
    assert (found.scores[:, 2:] == -np.inf).all()
    assert (found.compared == 2 + 40).all()


def test_errors() -> None:
    V = _random_unit(50, 4, 10)
    with pytest.raises(RanklensError, match=r"cells \(51\) is larger than the number of vectors \(50\)"):
        IVFIndex.build(V, 51)
    index = IVFIndex.build(V, 5)
    with pytest.raises(RanklensError, match="n_probe"):
        index.search(V[:2], 3, knob=6)
    with pytest.raises(RanklensError):
        sweep(V, V[:2], cells=5, probes=[1, 6])


def test_few_points_per_cell_warns() -> None:
    V = _random_unit(100, 4, 11)
    assert IVFIndex.build(V, 2).warnings == ()  # 50 per cell
    assert "39" in IVFIndex.build(V, 3).warnings[0]  # 33 per cell
    assert cell_warnings(3900, 100) == () and len(cell_warnings(3899, 100)) == 1


def test_sweep_reports_progress_and_can_be_cancelled() -> None:
    V, Q = _random_unit(200, 4, 12), _random_unit(5, 4, 13)
    calls = []
    sweep(V, Q, cells=4, probes=[1, 2, 4], progress=lambda d, t, label: calls.append((d, t)))
    assert calls[-3:] == [(1, 3), (2, 3), (3, 3)]

    def stop(done: int, total: int, label: str) -> None:
        if done == 1:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        sweep(V, Q, cells=4, probes=[1, 2, 4], progress=stop)


def test_probing_every_cell_of_a_corpus_finds_every_neighbour(capsys) -> None:
    """Near-zero LSA scores tie up to rounding; visiting all cells must still count as recall 1."""
    from tests.support.cli import run_cli

    rows = run_cli(capsys, "ivf", "studio-alfa", "--json").json["rows"]
    assert rows[-1]["recall@10"] == 1.0


def test_any_encoder_can_go_behind_the_index() -> None:
    """A stand-in neural encoder (fixed random projection of letter counts) through the same sweep."""
    from ranklens.engine.scoring.dense import unit_rows
    from ranklens.engine.ann.vectors import encoder_set

    class LetterEncoder:
        name = "letters"

        def __init__(self, texts: list[str]) -> None:
            self._projection = np.random.default_rng(0).standard_normal((26, 8))
            self.vectors = self.encode(texts)

        def encode(self, texts):  # noqa: ANN001, ANN202
            counts = np.array([[t.count(chr(97 + i)) for i in range(26)] for t in texts], dtype=float)
            return unit_rows(counts @ self._projection)

    words = ("ferie", "copie", "fatture", "rimborso", "password") * 20
    texts = [f"{w} {'x' * (i % 7)}{'q' * (i % 11)}" for i, w in enumerate(words)]
    source = encoder_set(LetterEncoder(texts), ["copie", "password"], "letters")
    rows = sweep(source.vectors, source.queries, source.default_cells, probe_ladder(source.default_cells))
    assert rows[-1].recall == 1.0
    assert [r.value for r in rows] == probe_ladder(source.default_cells)
