"""The term index built with helper processes is the one-process index, exactly.

Oracles: the one-process build (same vocabulary order, same counts, same dtypes) and a
direct count of each text's terms with ``collections.Counter``; helper processes are
observed through /proc (Linux), so a cancelled or finished build is seen to leave none.
"""
from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ranklens.engine.text import batch_analysis
from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.errors import Cancelled
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.setup import Setup
from ranklens.engine.text.termindex import TermIndex

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="helpers are observed through /proc")

ANALYSES = {
    "default": Setup(),
    "stemmed, stop words, folded": Setup(stopwords="it", stem="it", fold_accents=True),
}


def generated_texts(n: int = 3000, seed: int = 5) -> list[str]:
    """Italian-ish, Unicode and empty texts, a few of them very long, in random order."""
    rng = np.random.default_rng(seed)
    words = np.array(["perché", "città", "Straße", "İstanbul", "ﬁne", "naïve", "日本語", "ёлка", "x2",
                      "il", "della", "garanzia", "batteria", "dura", "anni", "mesi", "e", "l'uomo"]
                     + [f"parola{i}" for i in range(400)])
    lengths = rng.choice([0, 1, 5, 40, 300, 20_000], size=n, p=[0.05, 0.1, 0.3, 0.45, 0.099, 0.001])
    return [" ".join(words[np.minimum(rng.zipf(1.3, size=length), len(words)) - 1]) for length in lengths]


def assert_same_index(got: TermIndex, expected: TermIndex) -> None:
    assert got.vocabulary.tolist() == expected.vocabulary.tolist()
    assert got.term_ids == expected.term_ids
    for a, b in [(got.counts.indptr, expected.counts.indptr), (got.counts.indices, expected.counts.indices),
                 (got.counts.data, expected.counts.data), (got.doc_freq, expected.doc_freq),
                 (got.doc_len, expected.doc_len)]:
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert got.counts.shape == expected.counts.shape


def helper_pids() -> set[int]:
    """This process' children running a batch-analysis helper."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if ppid == os.getpid() and b"batch_analysis" in command:
            found.add(int(entry.name))
    return found


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many batches from a small corpus, so that helpers and this process share the work."""
    monkeypatch.setattr(batch_analysis, "BATCH", 37)


@pytest.mark.parametrize("setup", ANALYSES.values(), ids=ANALYSES.keys())
def test_helpers_build_the_one_process_index_of_generated_texts(setup: Setup, small_batches: None) -> None:
    texts = generated_texts()
    analyzer = Analyzer.from_setup(setup)
    alone = TermIndex.build(texts, analyzer, helpers=0)
    for helpers in (1, 2):
        assert_same_index(TermIndex.build(texts, analyzer, helpers=helpers), alone)
    # and the one-process index is each text's own term counts
    for row in np.random.default_rng(0).choice(len(texts), 200, replace=False):
        expected = Counter(analyzer.terms(texts[row]))
        start, stop = alone.counts.indptr[row], alone.counts.indptr[row + 1]
        got = {alone.vocabulary[j]: int(c) for j, c in zip(alone.counts.indices[start:stop],
                                                           alone.counts.data[start:stop], strict=True)}
        assert got == expected and alone.doc_len[row] == sum(expected.values())


def test_helpers_build_the_one_process_index_of_a_bundled_corpus(small_batches: None) -> None:
    texts = [c.text for c in load_corpus("studio-alfa", use_cache=False).chunks]
    analyzer = Analyzer.from_setup(Setup(stopwords="it", stem="it"))
    assert_same_index(TermIndex.build(texts, analyzer, helpers=1), TermIndex.build(texts, analyzer, helpers=0))


@pytest.mark.parametrize("helpers", [0, 1])
def test_the_builds_progress_says_chunks_per_second(helpers: int, small_batches: None) -> None:
    texts = generated_texts(500)
    seen: list[tuple[int, int, str]] = []
    TermIndex.build(texts, Analyzer.from_setup(Setup()), lambda *report: seen.append(report), helpers=helpers)
    rated = [(done, label) for done, _, label in seen if label.startswith("analysing · ")]
    assert rated and rated[-1][0] == len(texts)  # every batch merged says its rate; the last, all of them
    assert all(label.endswith(" chunks/s") and float(label.split(" · ")[1].split()[0].replace(",", "")) > 0
               for _, label in rated)


def test_a_small_corpus_starts_no_helper() -> None:
    assert batch_analysis.default_helpers(batch_analysis.HELPERS_FROM - 1) == 0
    seen: list[set[int]] = []
    TermIndex.build(generated_texts(300), Analyzer.from_setup(Setup()),
                    progress=lambda done, total, label: seen.append(helper_pids()))
    assert seen and not any(seen)


@needs_proc
def test_a_cancelled_build_leaves_no_helper_process(small_batches: None) -> None:
    started: set[int] = set()

    def progress(done: int, total: int, label: str) -> None:
        started.update(helper_pids())
        if done > total // 3:
            raise Cancelled(label)

    with pytest.raises(Cancelled):
        TermIndex.build(generated_texts(), Analyzer.from_setup(Setup()), progress, helpers=2)
    assert len(started) == 2
    assert not helper_pids()
    assert not any(Path(f"/proc/{pid}").exists() for pid in started)  # killed and reaped: not even a zombie


@needs_proc
def test_a_helper_killed_midway_is_replaced_by_this_process(small_batches: None) -> None:
    texts = generated_texts()
    analyzer = Analyzer.from_setup(Setup())
    killed: list[int] = []

    def progress(done: int, total: int, label: str) -> None:
        if not killed and done > total // 4:
            killed.extend(helper_pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    got = TermIndex.build(texts, analyzer, progress, helpers=1)
    assert killed
    assert_same_index(got, TermIndex.build(texts, analyzer, helpers=0))
    assert not helper_pids()


def test_no_process_to_be_had_means_one_process(small_batches: None, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = generated_texts(500)
    analyzer = Analyzer.from_setup(Setup())
    alone = TermIndex.build(texts, analyzer, helpers=0)

    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(batch_analysis.subprocess, "Popen", refused)
    assert_same_index(TermIndex.build(texts, analyzer, helpers=2), alone)


def test_the_pipe_frames_carry_any_text_and_the_analyzer_whole() -> None:
    import io

    from ranklens.engine.text.batch_analysis import (_analyzer_json, _analyzer_of, _read_batch, _read_strings,
                                                _write_batch, _write_strings)
    from ranklens.engine.text.batch_terms import TermCounter

    texts = ["", "caffè ☕ 東京", "nul\x00inside", "a lone \udcff surrogate", "x" * 100_000, "[/] [bold]x"]
    pipe = io.BytesIO()
    _write_strings(pipe, texts)
    analyzer = Analyzer(r"(?u)\b\w\w+\b", fold_accents=True, stopwords=frozenset({"inside", "è"}), stem="it")
    _write_strings(pipe, [_analyzer_json(analyzer)])
    batch = TermCounter(analyzer).count(texts)
    _write_batch(pipe, batch)
    pipe.seek(0)
    assert _read_strings(pipe) == texts
    assert _analyzer_of(_read_strings(pipe)[0]) == analyzer
    back = _read_batch(pipe)
    assert back.new_words == batch.new_words
    for got, sent in zip(back[1:], batch[1:]):
        assert got.dtype == sent.dtype and np.array_equal(got, sent)
    with pytest.raises(EOFError):
        _read_strings(io.BytesIO(pipe.getvalue()[:20]))  # a frame cut short is the end of the helper


def test_a_helper_answers_batches_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    # the equality tests above would pass if every helper failed and this process analysed all: count its answers
    answered = []
    original = batch_analysis._Helper.answer

    def counted(self, vocabulary, wait):  # noqa: ANN001, ANN202
        got = original(self, vocabulary, wait)
        answered.append(got is not None)
        return got

    monkeypatch.setattr(batch_analysis._Helper, "answer", counted)
    texts = [f"word{i % 997} other{i % 31} text number {i}" for i in range(40_000)]
    with batch_analysis.BatchAnalysis(texts, Analyzer(r"(?u)\b\w\w+\b"), lambda *_: None, helpers=1) as analysis:
        assert sum(1 for _ in analysis) == len(texts) // batch_analysis.BATCH
    assert any(answered)
