"""Texts analysed in batches for the term index, in this process and in helper processes.

A batch comes back compact (``batch_terms``): int32 arrays of term ids and counts per
text, never token lists. Ids come from a ``TermCounter`` that lives as long as the build: this process'
own for the batches it analyses, a helper's own for a helper's, which then sends only
the terms its vocabulary had not seen before (the parent maps those to its ids once,
and every later batch of that helper with an array lookup). Batches are yielded in
text order whoever analysed them; ids are labels that ``TermIndex.build`` sorts by
term, so the index is the one a single process builds.

A large corpus (``HELPERS_FROM`` texts or more) is shared with helper processes, one
per spare core: each is ``python -c`` importing this module, reading the analyzer's
settings (JSON) and then batches of texts on its stdin and writing their analyses on its
stdout, as plain frames of UTF-8 strings and int32 arrays (nothing is unpickled: the
engine never unpickles, tests/test_hostile_text.py). This process analyses
batches itself whenever every helper has ``IN_FLIGHT`` batches queued, so both cores
work and at most ``IN_FLIGHT`` batches per helper plus ``_AHEAD_BYTES`` of analysed ones are
held at a time. A helper that cannot start or dies is dropped and its batches analysed here; leaving
the ``with`` block (finished, failed or cancelled) kills the helpers and waits for them.
"""
from __future__ import annotations

import contextlib
import gc
import json
import queue
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from typing import IO, NamedTuple

import numpy as np

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.text.batch_terms import AnalysedBatch, TermCounter, Vocabulary
from ranklens.engine.work.cores import usable_cores
from ranklens.engine.work.progress import Progress

BATCH = 2000  # texts per batch: their token lists (~16 MB) are the transient peak of whoever analyses them
HELPERS_FROM = 50_000  # fewer texts take a few seconds at most: not worth starting a process
MAX_HELPERS = 3  # this process merges every batch: more helpers would wait on it
IN_FLIGHT = 4  # batches queued per helper: it never waits while this process analyses one of its own
# Batches analysed here while an older one is with a helper, in bytes of their arrays (the index's own, merged
# soon): a count of 8 made this process wait, idle, whenever a helper got less of a core than it (a busy machine).
_AHEAD_BYTES = 128 << 20
_WAIT_S = 0.2  # how often a wait for a helper checks for cancellation
_PIPE_BYTES = 1 << 20  # a batch's texts or answer (~0.7 MB); Linux's default ceiling for a pipe
_LOST = object()  # a helper's answer stream ended


def default_helpers(n_texts: int) -> int:
    """Helper processes worth starting for ``n_texts``: none for a small corpus, else one per spare core."""
    if n_texts < HELPERS_FROM:
        return 0
    return max(0, min(usable_cores() - 1, MAX_HELPERS))


class _Helper:
    """A helper process: batches go in through a sender thread (a pipe write must never block the
    parent while the helper is blocked writing an answer), answers come back in order through a reader."""

    def __init__(self, analyzer: Analyzer) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from ranklens.engine.text.batch_analysis import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        _widen(self.process.stdin, self.process.stdout)
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.answers: queue.SimpleQueue = queue.SimpleQueue()
        self.queued = 0
        self.lost = False
        self.ids = np.zeros(1024, dtype=np.int32)  # the helper's term id -> this process' id
        self.known = 0  # how many of ``ids`` are set
        self.jobs.put([_analyzer_json(analyzer)])  # the first frame: the analyzer's settings
        self.threads = [threading.Thread(target=self._send, daemon=True),
                        threading.Thread(target=self._receive, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _send(self) -> None:
        sink = self.process.stdin
        assert sink is not None
        try:
            for job in iter(self.jobs.get, _LOST):
                _write_strings(sink, job)
                sink.flush()
        except (OSError, ValueError):  # the helper is gone (or its pipe closed): the reader reports it
            pass

    def _receive(self) -> None:
        source = self.process.stdout
        assert source is not None
        try:
            while True:
                self.answers.put(_read_batch(source))
        except Exception:  # noqa: BLE001 - EOF, a broken pipe or a truncated answer all mean the helper is lost
            self.answers.put(_LOST)

    def submit(self, texts: list[str]) -> None:
        self.queued += 1
        self.jobs.put(texts)

    def ready(self) -> bool:
        return self.lost or not self.answers.empty()

    def answer(self, vocabulary: Vocabulary[str], wait: float) -> AnalysedBatch | None:
        """The oldest queued batch, its ids mapped into ``vocabulary``; None once the helper is lost.

        Raises ``queue.Empty`` when nothing came within ``wait`` seconds.
        """
        if self.lost:
            return None
        got = self.answers.get(timeout=wait)
        if got is _LOST:
            self.lost = True
            return None
        self.queued -= 1
        batch = got
        new = np.fromiter(map(vocabulary.__getitem__, batch.new_words), dtype=np.int32, count=len(batch.new_words))
        if self.known + len(new) > len(self.ids):
            self.ids = np.concatenate([self.ids, np.zeros(max(len(self.ids), len(new)), dtype=np.int32)])
        self.ids[self.known:self.known + len(new)] = new
        self.known += len(new)
        return batch._replace(new_words=[], terms=self.ids[batch.terms])

    def stop(self) -> None:
        self.jobs.put(_LOST)
        self.process.kill()  # every answer wanted has been read, or the build is being abandoned
        self.process.wait()
        for thread in self.threads:
            thread.join()
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):  # a flush into the dead helper's pipe
                pipe.close()  # type: ignore[union-attr]


def _widen(*pipes: IO[bytes] | None) -> None:
    """Pipes that hold a whole batch (Linux): a helper writes its answer at once, instead of waiting
    for each 64 KiB to be read by a thread that needs the interpreter lock this process' analysis holds."""
    try:
        import fcntl

        resize = fcntl.F_SETPIPE_SZ
    except (ImportError, AttributeError):  # not Linux: pipes as they come
        return
    for pipe in pipes:
        if pipe is not None:
            with contextlib.suppress(OSError):  # above the system's ceiling: as they come
                fcntl.fcntl(pipe.fileno(), resize, _PIPE_BYTES)


class _Slot(NamedTuple):
    start: int
    stop: int
    helper: _Helper | None  # None: ``done`` holds the batch analysed here
    done: AnalysedBatch | None


def _nbytes(batch: AnalysedBatch | None) -> int:
    return 0 if batch is None else sum(array.nbytes for array in batch[1:])


class BatchAnalysis:
    """Analysed batches of ``texts`` in order, as ``(first text's index, AnalysedBatch)``, their ids
    from ``vocabulary`` (which ends holding every term of ``texts``).

    Use as a context manager: entering starts the helpers (``helpers``: how many; None:
    ``default_helpers``), leaving stops them. ``progress`` is called with the texts
    yielded so far while waiting for a helper, so a cancelled build stops even if a
    helper is slow.
    """

    def __init__(self, texts: Sequence[str], analyzer: Analyzer, progress: Progress,
                 helpers: int | None = None) -> None:
        self.texts = texts
        self.analyzer = analyzer
        self.progress = progress
        self.batch = BATCH
        self.counter = TermCounter(analyzer)
        self.n_helpers = default_helpers(len(texts)) if helpers is None else helpers
        self.helpers: list[_Helper] = []

    @property
    def vocabulary(self) -> Vocabulary[str]:
        """Every term the batches yielded so far hold, ids in order of first sight (this process' own)."""
        return self.counter.vocabulary

    def __enter__(self) -> BatchAnalysis:
        for _ in range(self.n_helpers):
            try:
                self.helpers.append(_Helper(self.analyzer))
            except OSError:  # no process to be had (a limit reached): this one analyses what is left
                break
        return self

    def __exit__(self, *exc: object) -> None:
        helpers, self.helpers = self.helpers, []
        for helper in helpers:
            helper.stop()

    def __iter__(self) -> Iterator[tuple[int, AnalysedBatch]]:
        total = len(self.texts)
        slots: deque[_Slot] = deque()
        handed = 0
        while handed < total or slots:
            while slots and (slots[0].helper is None or slots[0].helper.ready()):
                yield slots[0].start, self._collect(slots.popleft())
            stop = min(handed + self.batch, total)
            helper = min((h for h in self.helpers if not h.lost and h.queued < IN_FLIGHT),
                         key=lambda h: h.queued, default=None)
            if handed < total and helper is not None:
                helper.submit(list(self.texts[handed:stop]))
                slots.append(_Slot(handed, stop, helper, None))
                handed = stop
            elif handed < total and sum(_nbytes(s.done) for s in slots) < _AHEAD_BYTES:
                slots.append(_Slot(handed, stop, None, self._here(handed, stop)))
                handed = stop
            elif slots:
                yield slots[0].start, self._collect(slots.popleft())

    def _here(self, start: int, stop: int) -> AnalysedBatch:
        return self.counter.count(self.texts[start:stop])

    def _collect(self, slot: _Slot) -> AnalysedBatch:
        """The slot's batch: analysed here, or the helper's answer, waited for with cancellation checks."""
        if slot.helper is None:
            assert slot.done is not None
            return slot.done
        while True:
            try:
                got = slot.helper.answer(self.vocabulary, _WAIT_S)
            except queue.Empty:
                self.progress(slot.start, len(self.texts), "analysing")
                continue
            return got if got is not None else self._here(slot.start, slot.stop)


def serve() -> None:
    """A helper process' loop: an analyzer, then batches of texts, on stdin; their analyses on stdout."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed by accident may corrupt the answers
    gc.disable()  # short-lived token lists hold no cycles (see gc_pause.py); the process ends with the build
    try:
        counter = TermCounter(_analyzer_of(_read_strings(source)[0]))
        while True:
            _write_batch(sink, counter.count(_read_strings(source)))
            sink.flush()
    except EOFError:
        return


# -- the frames on the pipes: an int64 size, then the bytes -------------------------------------------------------


def _analyzer_json(analyzer: Analyzer) -> str:
    return json.dumps({"token_pattern": analyzer.token_pattern, "lowercase": analyzer.lowercase,
                       "fold_accents": analyzer.fold_accents, "stopwords": sorted(analyzer.stopwords),
                       "stem": analyzer.stem})


def _analyzer_of(settings: str) -> Analyzer:
    fields = json.loads(settings)
    return Analyzer(**{**fields, "stopwords": frozenset(fields["stopwords"])})


def _read_exact(source: IO[bytes], size: int) -> bytes:
    data = source.read(size)
    if len(data) < size:
        raise EOFError("the pipe ended inside a frame")
    return data


def _write_array(sink: IO[bytes], array: np.ndarray) -> None:
    sink.write(np.int64(array.size).tobytes())
    sink.write(np.ascontiguousarray(array).tobytes())


def _read_array(source: IO[bytes], dtype: type[np.generic]) -> np.ndarray:
    size = int(np.frombuffer(_read_exact(source, 8), dtype=np.int64)[0])
    return np.frombuffer(_read_exact(source, size * np.dtype(dtype).itemsize), dtype=dtype).copy()


def _write_strings(sink: IO[bytes], strings: Sequence[str]) -> None:
    # surrogatepass: a text read with errors="surrogateescape" holds lone surrogates, and must come back whole
    data = [text.encode("utf-8", "surrogatepass") for text in strings]
    _write_array(sink, np.fromiter(map(len, data), dtype=np.int64, count=len(data)))
    sink.write(b"".join(data))


def _read_strings(source: IO[bytes]) -> list[str]:
    sizes = _read_array(source, np.int64)
    blob = _read_exact(source, int(sizes.sum()))
    ends = np.cumsum(sizes).tolist()
    return [blob[start:end].decode("utf-8", "surrogatepass") for start, end in zip([0, *ends[:-1]], ends)]


def _write_batch(sink: IO[bytes], batch: AnalysedBatch) -> None:
    _write_strings(sink, batch.new_words)
    for array in (batch.lengths, batch.sizes, batch.terms, batch.counts):
        _write_array(sink, array.astype(np.int32, copy=False))


def _read_batch(source: IO[bytes]) -> AnalysedBatch:
    new_words = _read_strings(source)
    lengths, sizes, terms, counts = (_read_array(source, np.int32) for _ in range(4))
    return AnalysedBatch(new_words, lengths, sizes, terms, counts)
