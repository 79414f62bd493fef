"""Is B better than A on these questions, or is it noise? Paired tests over per-question values.

Every function takes the two systems' values of one measure, paired by question (``a[i]``
and ``b[i]`` are the same question), and looks at the differences ``d = b - a``:

- ``paired_t_test``: two-sided paired Student's t-test, equal to ``scipy.stats.ttest_rel``;
- ``randomization_test``: Fisher's randomization test (Smucker et al., CIKM 2007) by sign
  flips: under the null hypothesis each question's A and B are exchangeable, so each
  difference is as likely to have the other sign. ``permutations`` random flips of all signs
  at once (seeded: the same inputs give the same p every time) estimate how often the mean
  difference is at least as far from 0 as the observed one;
- ``bootstrap_ci``: a percentile bootstrap confidence interval of the mean difference
  (questions resampled with replacement, seeded).

Several systems tested against one baseline make a family of p-values, one per system;
``holm`` and ``bonferroni`` adjust such a family (``CORRECTIONS`` names them) so that a
p-value below alpha after adjustment keeps the family-wise error rate at alpha.

ranx's ``compare`` runs the same randomization test by shuffling each question's pair; its
p is the share of permutations at least as extreme, ours adds one to both counts
(``(b + 1) / (n + 1)``, Phipson and Smyth 2010), so a p is never 0 from a finite sample.
ranx also compares ``>=`` on raw floats: for a measure with few values (P@5 moves in steps of
0.2) many permutations give exactly the observed |mean| in exact arithmetic, and float
rounding then counts some of them out. Here they count (within 1e-12), so on such measures
our p is the larger one (Cranfield, BM25 against TF-IDF, P@5: 0.649, ranx 0.623; by the
strict comparison on our own draws 0.587); on measures with many distinct values the two
differ by the Monte Carlo error of different draws (ranx's draws also change from run to run:
its seeded permutations run on numba's parallel threads).

numpy is imported here; the command line imports this module only when it compares.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

PERMUTATIONS = 10_000
BOOTSTRAP_SAMPLES = 10_000
SEED = 42  # ranx's default seed; any fixed one would do
_BATCH = 1_000  # random draws per batch: (batch x questions) doubles at a time
# Permuted means within this of the observed one count as "as extreme": sums of the same
# floats in another order differ in the last bits.
_TOLERANCE = 1e-12


def _differences(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired values need two 1-d sequences of one length (got {x.shape} and {y.shape})")
    return y - x


def paired_t_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the paired t-test of mean(b - a) = 0, as ``scipy.stats.ttest_rel(a, b)``.

    With fewer than two questions there is no test: nan. When every difference is the same,
    the variance is 0: p is 1.0 if they are all 0 (no difference at all) and 0.0 otherwise
    (scipy returns nan for both).
    """
    d = _differences(a, b)
    n = d.size
    if n < 2:
        return math.nan
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    t = mean / (sd / math.sqrt(n))
    from scipy.special import stdtr  # the t distribution's CDF, without scipy.stats' import cost

    return float(min(1.0, 2.0 * stdtr(n - 1, -abs(t))))


def randomization_test(a: Sequence[float], b: Sequence[float], permutations: int = PERMUTATIONS,
                       seed: int = SEED) -> float:
    """Two-sided p-value of Fisher's randomization test by sign flips, ``(count + 1) / (permutations + 1)``.

    ``count`` is the number of random sign vectors ``s`` with ``|mean(s * d)| >= |mean(d)|``.
    The signs are drawn as ``rng.random((batch, n)) < 0.5`` from ``numpy.random.default_rng(seed)``,
    in batches of 1,000 rows: permutation ``j`` uses the ``j``-th run of ``n`` doubles of
    that generator, whatever the batch size. All differences 0: p = 1.
    """
    if permutations < 1:
        raise ValueError(f"permutations must be at least 1 (got {permutations})")
    d = _differences(a, b)
    if d.size == 0:
        return math.nan
    observed = abs(float(d.mean()))
    if not np.any(d):
        return 1.0
    rng = np.random.default_rng(seed)
    count = 0
    for start in range(0, permutations, _BATCH):
        rows = min(_BATCH, permutations - start)
        flips = rng.random((rows, d.size)) < 0.5
        means = np.abs(np.where(flips, -d, d).mean(axis=1))
        count += int(np.count_nonzero(means >= observed - _TOLERANCE))
    return (count + 1) / (permutations + 1)


def bootstrap_ci(a: Sequence[float], b: Sequence[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = SEED,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(b - a) at ``level`` (0.95: the 2.5th and 97.5th percentiles).

    Each sample draws ``n`` question positions as ``floor(rng.random(n) * n)`` from
    ``numpy.random.default_rng(seed)`` (in batches, in order); percentiles are numpy's
    linear interpolation. No questions: (nan, nan).
    """
    d = _differences(a, b)
    n = d.size
    if n == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = np.empty(samples)
    for start in range(0, samples, _BATCH):
        rows = min(_BATCH, samples - start)
        picks = np.minimum((rng.random((rows, n)) * n).astype(np.intp), n - 1)
        means[start:start + rows] = d[picks].mean(axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return (float(low), float(high))


def wins_ties_losses(a: Sequence[float], b: Sequence[float], tolerance: float = 1e-12) -> tuple[int, int, int]:
    """Questions where B beats A, ties it (within ``tolerance``), loses to it."""
    d = _differences(a, b)
    wins = int(np.count_nonzero(d > tolerance))
    losses = int(np.count_nonzero(d < -tolerance))
    return wins, d.size - wins - losses, losses


def bonferroni(p_values: Sequence[float]) -> list[float]:
    """Bonferroni-adjusted p-values: ``min(1, m * p_i)``, ``m`` the number of p-values that are not NaN.

    A NaN (no test) stays NaN and is not counted in the family. Equal to statsmodels'
    ``multipletests(p, method="bonferroni")[1]`` on the p-values that are not NaN.
    """
    m = sum(1 for p in p_values if p == p)
    return [p if p != p else min(1.0, m * p) for p in p_values]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979), in the order given.

    With the ``m`` p-values that are not NaN sorted ascending, ``p_(1) <= ... <= p_(m)``, the
    adjusted ``p~_(j) = min(1, max over i <= j of (m - i + 1) * p_(i))``: each is at least its
    predecessor's (the running maximum keeps the step-down's order), and never above 1. A NaN
    (no test) stays NaN and is not counted in the family. Equal to statsmodels'
    ``multipletests(p, method="holm")[1]`` on the p-values that are not NaN.
    """
    order = sorted((i for i, p in enumerate(p_values) if p == p), key=lambda i: p_values[i])
    m = len(order)
    adjusted = list(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


CORRECTIONS = {"holm": holm, "bonferroni": bonferroni}  # --correction's choices, the default first
