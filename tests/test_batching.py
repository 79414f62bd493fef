"""Paced batches: every item once, in order, each batch sized after how long the last one took."""
from __future__ import annotations

import pytest

from ranklens.engine.work import batching
from ranklens.engine.work.batching import paced


class Clock:
    """A clock the consumer moves: each item of a batch costs ``per_item`` seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def sizes(total: int, first: int, largest: int, per_item: float, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    clock = Clock()
    monkeypatch.setattr(batching.time, "perf_counter", clock)
    seen, done = [], 0
    for batch in paced(total, first, largest, seconds=0.25):
        assert batch.start == done  # in order, nothing skipped or repeated
        done = batch.stop
        seen.append(batch.stop - batch.start)
        clock.now += per_item * seen[-1]
    assert done == total
    return seen


def test_a_fast_consumer_doubles_up_to_the_largest_batch(monkeypatch) -> None:
    assert sizes(1000, 8, 100, 1e-6, monkeypatch) == [8, 16, 32, 64, *[100] * 8, 80]


def test_a_slow_consumer_settles_on_a_quarter_second_per_batch(monkeypatch) -> None:
    # 0.01 s per item: 25 items take the quarter second, reached by halving from 100
    assert sizes(300, 100, 1000, 0.01, monkeypatch) == [100, 50, 25, 25, 25, 25, 25, 25]


def test_nothing_to_do_and_one_item_at_a_time(monkeypatch) -> None:
    assert sizes(0, 8, 100, 0.01, monkeypatch) == []
    assert sizes(3, 8, 100, 10.0, monkeypatch) == [3]
    assert sizes(4, 1, 100, 10.0, monkeypatch) == [1, 1, 1, 1]  # never below one
