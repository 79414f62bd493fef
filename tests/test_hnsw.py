"""HNSW behind the index contract (usearch): recall against exact search, its knob, its costs.

The oracle is exact search (``exact_topk``): recall@10 is measured against it,
and FAISS' IndexHNSWFlat at equal M, ef_construction and ef_search, when it is
installed, must reach a recall close to ours (benchmarks/bench_hnsw.py measures
both at the synthetic set's size).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("usearch", reason="usearch is not installed: pip install 'ranklens[hnsw]'")

from ranklens.engine.errors import Cancelled, RanklensError  # noqa: E402
from ranklens.engine.experiments.indexes import index_sweep  # noqa: E402
from ranklens.engine.ann.exact import exact_topk  # noqa: E402
from ranklens.engine.ann.hnsw import EF_LADDER, HNSWIndex  # noqa: E402
from ranklens.engine.ann.vectors import VectorSet  # noqa: E402
from tests.support.cli import assert_error, run_cli  # noqa: E402
from tests.support.shared_builds import SHARED, shared_builds  # noqa: E402, F401


def clustered(n: int, d: int, queries: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around 20 topics, and queries near them: neighbours worth finding."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(20, d))
    vectors = centres[rng.integers(0, 20, n)] + 0.8 * rng.normal(size=(n, d))
    asked = centres[rng.integers(0, 20, queries)] + 0.8 * rng.normal(size=(queries, d))
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    return unit(vectors), unit(asked)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    return clustered(3000, 32, 100)


@pytest.fixture(scope="module")
def index(data) -> HNSWIndex:
    return HNSWIndex.build(data[0])


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / truth.shape[1] for f, t in zip(found, truth)]))


def test_recall_and_work_grow_with_ef_search_up_to_exact(data, index: HNSWIndex) -> None:
    V, Q = data
    truth = exact_topk(V, Q, 10)
    recalls, compared = [], []
    for ef in (10, 32, 128, 512):
        found = index.search(Q, 10, ef)
        recalls.append(recall(found.ids, truth))
        compared.append(float(found.compared.mean()))
    assert recalls == sorted(recalls) and recalls[-1] >= 0.99
    assert compared == sorted(compared) and compared[0] < len(V) / 4  # a graph walk, not a scan
    found = index.search(Q, 10, 512)
    exact_scores = np.einsum("qkd,qd->qk", V[found.ids], Q)
    assert np.allclose(found.scores, exact_scores, atol=1e-5)  # scores are inner products
    assert (np.diff(found.scores, axis=1) <= 1e-6).all()  # best first


def test_the_same_vectors_build_the_same_graph(data, index: HNSWIndex) -> None:
    V, Q = data
    again = HNSWIndex.build(V)
    assert np.array_equal(again.search(Q, 10, 32).ids, index.search(Q, 10, 32).ids)


def test_the_contract_stats_padding_and_settings(data, index: HNSWIndex) -> None:
    V, Q = data
    assert index.param_value == 16 and index.knob_values() == list(EF_LADDER)
    assert index.stats.build_s > 0 and index.stats.bytes > V.shape[0] * V.shape[1] * 4
    small = HNSWIndex.build(V[:3], 4)
    found = small.search(Q[:2], 5)
    assert (found.ids[:, 3:] == -1).all() and np.isneginf(found.scores[:, 3:]).all()
    assert sorted(found.ids[0, :3]) == [0, 1, 2]
    with pytest.raises(RanklensError, match="M must be at least 2"):
        HNSWIndex.build(V[:10], 1)
    with pytest.raises(RanklensError, match="ef_search must be at least 1"):
        index.search(Q, 10, 0)


def test_a_build_reports_progress_and_can_be_cancelled(data) -> None:
    V = np.concatenate([data[0]] * 3)  # 9,000 vectors: two progress reports before the end

    def cancel(done: int, total: int, label: str) -> None:
        if done > 0:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        HNSWIndex.build(V, progress=cancel)


def test_recall_is_close_to_faiss_hnsw_at_equal_settings(data) -> None:
    faiss = pytest.importorskip("faiss", reason="faiss-cpu (the bench extra) is not installed")
    V, Q = data
    truth = exact_topk(V, Q, 10)
    theirs = faiss.IndexHNSWFlat(V.shape[1], 16, faiss.METRIC_INNER_PRODUCT)
    theirs.hnsw.efConstruction = 128
    theirs.add(V.astype(np.float32))
    ours = HNSWIndex.build(V, 16)
    for ef in (16, 64):
        theirs.hnsw.efSearch = ef
        faiss_recall = recall(theirs.search(Q.astype(np.float32), 10)[1], truth)
        assert recall(ours.search(Q, 10, ef).ids, truth) >= faiss_recall - 0.05


def test_the_index_sweep_measures_every_ef(data) -> None:
    V, Q = data
    sweep = index_sweep(VectorSet("clustered", V, Q, default_cells=50), "hnsw", values=[16, 64])
    assert [r.value for r in sweep.rows] == [16, 64] and sweep.knob == "ef_search" and sweep.param == "M"
    assert sweep.rows[0].recall <= sweep.rows[1].recall
    assert sweep.to_dict()["rows"][0]["ef_search"] == 16


def test_ann_on_the_command_line(capsys) -> None:
    run = run_cli(capsys, "ann", "studio-alfa", "--index", "exact,hnsw", "--json")
    assert run.status == 0, run.err
    kinds = {sweep["index"]: sweep for sweep in run.json["indexes"]}
    assert [row["ef_search"] for row in kinds["hnsw"]["rows"]] == list(EF_LADDER)
    assert kinds["hnsw"]["rows"][-1]["recall@10"] == 1.0  # 18 chunks: the graph holds them all
    human = run_cli(capsys, "ann", "studio-alfa", "--index", "hnsw")
    assert human.status == 0 and "ef_search 64" in human.out


@SHARED
@pytest.mark.usefixtures("shared_builds")
def test_ann_synthetic_with_ivf_and_hnsw(capsys) -> None:
    run = run_cli(capsys, "ann", "--synthetic", "--index", "ivf,hnsw", "--json")
    assert run.status == 0, run.err
    ivf, hnsw = run.json["indexes"]
    # the seed's IVF table stays exactly as it was
    assert [row["recall@10"] for row in ivf["rows"]][:7] == pytest.approx([0.505, 0.655, 0.75, 0.828, 0.902, 0.965,
                                                                            0.996], abs=5e-4)
    recalls = [row["recall@10"] for row in hnsw["rows"]]
    assert recalls == sorted(recalls) and recalls[-1] >= 0.99
    assert (hnsw["M"], hnsw["ef_construction"]) == (16, 128)  # the defaults


def test_without_usearch_the_message_says_how_to_get_it(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "usearch", None)
    monkeypatch.setitem(sys.modules, "usearch.index", None)
    assert_error(run_cli(capsys, "ann", "studio-alfa", "--index", "hnsw"), "pip install 'ranklens[hnsw]'")


@SHARED
@pytest.mark.usefixtures("shared_builds")
def test_ann_takes_the_hnsw_build_settings_and_ef_values(capsys) -> None:
    run = run_cli(capsys, "ann", "--synthetic", "--index", "exact,hnsw", "--hnsw-m", "8", "--ef-construction", "64",
                  "--ef-search", "16,64", "--json")
    assert run.status == 0, run.err
    exact, hnsw = run.json["indexes"]
    assert hnsw["M"] == 8 and hnsw["ef_construction"] == 64
    rows = run.json["rows"]
    assert [(row["index"], row["knob"]) for row in rows] == [("exact", {}), ("hnsw", {"ef_search": 16}),
                                                             ("hnsw", {"ef_search": 64})]
    # one thread, fixed vectors: the same graph every run, so its recall is pinned
    assert [row["recall@10"] for row in rows] == pytest.approx([1.0, 0.5175, 0.781], abs=1e-9)
    human = run_cli(capsys, "ann", "--synthetic", "--index", "hnsw", "--hnsw-m", "8", "--ef-construction", "64",
                    "--ef-search", "32")  # the graph above, shared
    assert human.status == 0 and "# hnsw: M 8, ef_construction 64" in human.out and "ef_search 32" in human.out


@pytest.mark.parametrize(("argv", "message"), [
    (("--index", "hnsw", "--hnsw-m", "1"), "--hnsw-m must be at least 2"),
    (("--index", "hnsw", "--ef-construction", "0"), "--ef-construction must be at least 1"),
    (("--index", "hnsw", "--ef-search", "0,4"), "--ef-search values must be at least 1"),
    (("--index", "exact,ivf", "--ef-construction", "64"), "--ef-construction: only the hnsw index uses it"),
])
def test_bad_hnsw_settings_are_one_line_errors(capsys, argv: tuple[str, ...], message: str) -> None:
    assert_error(run_cli(capsys, "ann", "--synthetic", *argv), message)


def test_one_query_is_searched_like_a_batch(data, index: HNSWIndex) -> None:
    V, Q = data
    # usearch answers a single query with another type (Matches, without counts)
    assert np.array_equal(index.search(Q[:1], 10, 64).ids, index.search(Q[:2], 10, 64).ids[:1])
