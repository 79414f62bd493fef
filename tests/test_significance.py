"""Paired significance (engine/comparing/significance.py): scipy's ttest_rel, a seeded permutation reference, the
bootstrap."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ranklens.engine.comparing.significance import bootstrap_ci, paired_t_test, randomization_test, wins_ties_losses


@pytest.mark.parametrize(("seed", "n"), [(0, 2), (1, 5), (2, 30), (3, 225), (4, 1000)])
def test_the_t_test_is_scipys_ttest_rel(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + rng.normal(0.02, 0.1, n)
    expected = stats.ttest_rel(a, b, alternative="two-sided").pvalue
    assert paired_t_test(a, b) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_the_t_test_without_variance() -> None:
    assert paired_t_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]) == 1.0
    assert paired_t_test([0.5, 0.25], [0.75, 0.5]) == 0.0  # both differences exactly 0.25
    assert math.isnan(paired_t_test([0.5], [0.7]))


def _reference_randomization(a: np.ndarray, b: np.ndarray, permutations: int, seed: int) -> float:
    """The documented procedure one permutation at a time, in plain Python."""
    d = [y - x for x, y in zip(a.tolist(), b.tolist())]
    observed = abs(sum(d) / len(d))
    rng = np.random.default_rng(seed)
    count = 0
    for _ in range(permutations):
        draws = rng.random(len(d))
        mean = sum(-v if u < 0.5 else v for u, v in zip(draws.tolist(), d)) / len(d)
        count += abs(mean) >= observed - 1e-12
    return (count + 1) / (permutations + 1)


@pytest.mark.parametrize(("seed", "n", "permutations"), [(5, 12, 2_500), (6, 40, 10_000), (7, 225, 3_001)])
def test_the_randomization_test_equals_a_seeded_reference(seed: int, n: int, permutations: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + rng.normal(0.05, 0.2, n)
    assert randomization_test(a, b, permutations, seed=99) == _reference_randomization(a, b, permutations, 99)


def test_the_randomization_test_is_near_the_exact_one() -> None:
    # 12 questions: all 4,096 sign vectors give the exact p; 100,000 random ones must come close
    rng = np.random.default_rng(8)
    a = rng.random(12)
    b = a + rng.normal(0.1, 0.2, 12)
    d = b - a
    observed = abs(d.mean())
    exact = np.mean([abs((np.array(s) * d).mean()) >= observed - 1e-12
                     for s in itertools.product((1, -1), repeat=12)])
    estimate = randomization_test(a, b, permutations=100_000)
    assert abs(estimate - exact) < 4 * math.sqrt(exact * (1 - exact) / 100_000) + 1e-5
    assert 0.001 < exact < 0.5  # a case where the test has something to say


def test_the_randomization_test_is_seeded_and_bounded() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.random(50), rng.random(50)
    assert randomization_test(a, b) == randomization_test(a, b)
    assert randomization_test(a, a) == 1.0
    far = randomization_test(np.zeros(30), np.ones(30), permutations=10_000)
    assert far == 1 / 10_001  # never 0


def test_the_bootstrap_equals_a_seeded_reference() -> None:
    rng = np.random.default_rng(10)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.1, 40)
    d = b - a
    ref = np.random.default_rng(7)
    means = []
    for _ in range(2_000):
        picks = [min(int(u * 40), 39) for u in ref.random(40).tolist()]
        means.append(sum(d[i] for i in picks) / 40)
    expected = tuple(np.percentile(means, [2.5, 97.5]))
    assert bootstrap_ci(a, b, samples=2_000, seed=7) == pytest.approx(expected, abs=1e-12)
    low, high = bootstrap_ci(a, b)
    assert low < d.mean() < high


def test_wins_ties_losses() -> None:
    assert wins_ties_losses([0.5, 0.5, 0.2, 0.0], [0.7, 0.5, 0.1, 0.0]) == (1, 2, 1)


def test_unpaired_values_are_refused() -> None:
    with pytest.raises(ValueError, match="one length"):
        paired_t_test([1.0, 2.0], [1.0])


@pytest.mark.parametrize("method", ["holm", "bonferroni"])
@pytest.mark.parametrize(("seed", "m"), [(0, 1), (1, 2), (2, 3), (3, 7), (4, 40)])
def test_corrections_are_statsmodels_multipletests(method: str, seed: int, m: int) -> None:
    from statsmodels.stats.multitest import multipletests

    from ranklens.engine.comparing.significance import CORRECTIONS

    rng = np.random.default_rng(seed)
    # small p-values, large ones (adjusted past 1: capped) and exact ties, as real families have
    p = np.concatenate([rng.random(m) ** 3, rng.random(m)])[rng.permutation(2 * m)][:m]
    if m > 2:
        p[1] = p[2]
    expected = multipletests(p, method=method)[1]
    assert CORRECTIONS[method](list(p)) == pytest.approx(list(expected), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("method", ["holm", "bonferroni"])
def test_a_nan_p_value_stays_nan_and_is_not_counted(method: str) -> None:
    from statsmodels.stats.multitest import multipletests

    from ranklens.engine.comparing.significance import CORRECTIONS

    p = [0.04, math.nan, 0.01, 0.3]
    adjusted = CORRECTIONS[method](p)
    assert math.isnan(adjusted[1])
    kept = [0.04, 0.01, 0.3]
    expected = multipletests(kept, method=method)[1]
    assert [adjusted[0], adjusted[2], adjusted[3]] == pytest.approx(list(expected), rel=1e-12)


def test_holm_by_hand() -> None:
    from ranklens.engine.comparing.significance import holm

    # sorted 0.01, 0.02, 0.04 times 3, 2, 1: 0.03, 0.04, 0.04 (the running maximum keeps the last from 0.04 → 0.04)
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1
    assert holm([]) == []
