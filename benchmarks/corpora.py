"""Deterministic synthetic corpora with a Zipf vocabulary, and the real collections.

A synthetic corpus of n chunks is fully determined by (n, seed) and the
constants below: pseudo-words made of consonant-vowel syllables (frequent
words are short, as in natural language), word ranks drawn from a Zipf law
with exponent 1.1 over 200,000 words, lengths lognormal with a mean of 60
words. Generation is vectorised (bytes assembled with numpy, 100k chunks per
block) and cached under ``benchmarks/.cache/`` as plain text, one chunk per
line, so a 1M-chunk corpus is generated once and then read in seconds.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.common import REPO

CACHE = REPO / "benchmarks" / ".cache"
DATA = REPO.parent / "shared" / "data"  # the real collections live beside the repo, when they do

VOCABULARY = 200_000
ZIPF_EXPONENT = 1.1
MEAN_WORDS = 60
LENGTH_SIGMA = 0.5  # lognormal spread: most chunks between 25 and 150 words
MIN_WORDS, MAX_WORDS = 3, 400
QUERY_WORDS = (2, 8)  # inclusive range of words per query
RARE_TERMS = 4  # words per rare-term query: the rarest distinct words of one chunk
GENERATOR_VERSION = 1  # bump when the output of the generator changes: it names the cache files
_BLOCK = 100_000  # chunks generated per block: bounds the generator's memory

_CONSONANTS = "bcdfglmnprstv"
_VOWELS = "aeiou"


def pseudo_words(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(table, lengths): word r spelled as bytes in row r of ``table``, then one space, then zeros.

    Word r is r written in bijective base 65 with syllables as digits: the 65
    most frequent words have one syllable, the next 4,225 two, and so on.
    """
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    base = len(syllables)
    syl_bytes = np.frombuffer("".join(syllables).encode(), dtype=np.uint8).reshape(base, 2)
    ranks = np.arange(n, dtype=np.int64)
    n_syl = np.ones(n, dtype=np.int64)
    start, block = 0, base
    while start + block <= ranks[-1]:
        start += block
        n_syl[ranks >= start] += 1
        block *= base
    longest = int(n_syl.max())
    table = np.zeros((n, 2 * longest + 1), dtype=np.uint8)
    first_rank = np.cumsum([0, 0] + [base**i for i in range(1, longest)])  # first rank with s syllables
    rest = ranks - first_rank[n_syl]
    for position in range(longest):  # syllable ``position`` is digit (s - 1 - position), most significant first
        has = position < n_syl
        digit = (rest[has] // base ** (n_syl[has] - 1 - position)) % base
        table[has, 2 * position] = syl_bytes[digit, 0]
        table[has, 2 * position + 1] = syl_bytes[digit, 1]
    lengths = 2 * n_syl
    table[ranks, lengths] = ord(" ")
    return table, lengths


@dataclass(frozen=True)
class Synthetic:
    n: int
    seed: int = 0
    queries: int = 1000

    @property
    def stem(self) -> str:
        return f"zipf-{self.n}-seed{self.seed}-v{GENERATOR_VERSION}"

    @property
    def corpus_path(self) -> Path:
        return CACHE / f"{self.stem}.txt"

    @property
    def queries_path(self) -> Path:
        return CACHE / f"{self.stem}.q{self.queries}.txt"

    def texts(self) -> list[str]:
        self.ensure()
        return self.corpus_path.read_text(encoding="ascii").splitlines()

    def query_texts(self) -> list[str]:
        self.ensure()
        return self.queries_path.read_text(encoding="ascii").splitlines()

    def rare_queries(self, texts: list[str] | None = None, n: int | None = None) -> tuple[list[str], list[int]]:
        """(query texts, the chunk each was drawn from): the rare-term query mix.

        Each query is the ``RARE_TERMS`` rarest distinct words (highest Zipf
        rank) of one chunk drawn at random, so its postings are short and the
        chunk it came from is a natural relevant answer. Without ``texts`` the
        drawn chunks are read from the corpus file line by line (10M chunks do
        not fit in memory as strings).
        """
        n = min(n or self.queries, self.n)
        path = CACHE / f"{self.stem}.rare{n}.txt"  # cached: the spelling table costs 20 MB in every worker
        if not path.exists():
            rng = np.random.default_rng([self.seed, 2])
            chunks = rng.choice(self.n, size=n, replace=False)
            drawn = dict(zip(chunks.tolist(), (texts[c] for c in chunks.tolist()))) if texts is not None \
                else self._lines(set(chunks.tolist()))
            rank = word_ranks()
            lines = []
            for c in chunks.tolist():  # a loop over queries, not over the corpus
                words = sorted(set(drawn[c].split()), key=rank.__getitem__, reverse=True)
                lines.append(f"{c}\t{' '.join(words[:RARE_TERMS])}\n")
            CACHE.mkdir(parents=True, exist_ok=True)
            _write_atomically(path, "".join(lines).encode("ascii"))
        pairs = [line.split("\t") for line in path.read_text(encoding="ascii").splitlines()]
        return [q for _, q in pairs], [int(c) for c, _ in pairs]

    def _lines(self, wanted: set[int]) -> dict[int, str]:
        """The corpus lines (chunk texts) numbered ``wanted``, streamed from the file."""
        self.ensure()
        with open(self.corpus_path, encoding="ascii") as lines:
            return {i: line.rstrip("\n") for i, line in enumerate(lines) if i in wanted}

    def beir_folder(self, questions: int) -> Path:
        """The corpus as a BEIR folder with ``questions`` rare-term questions, each judged on its own chunk.

        What ``ranklens eval`` reads; written once per (size, seed, questions) under the cache.
        """
        folder = CACHE / f"{self.stem}.beir{questions}"
        if (folder / "qrels" / "test.tsv").exists():
            return folder
        queries, chunks = self.rare_queries(None, questions)
        tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
        (tmp / "qrels").mkdir(parents=True, exist_ok=True)
        with open(tmp / "corpus.jsonl", "w", encoding="ascii") as out, \
                open(self.corpus_path, encoding="ascii") as texts:  # streamed: bounded memory at 10M
            stripped = (line.rstrip("\n") for line in texts)
            out.writelines(f'{{"_id": "d{i}", "title": "", "text": "{t}"}}\n' for i, t in enumerate(stripped))
        lines = "".join(f'{{"_id": "q{i}", "text": "{q}"}}\n' for i, q in enumerate(queries))
        (tmp / "queries.jsonl").write_text(lines, encoding="ascii")
        qrels = "".join(f"q{i}\td{c}\t1\n" for i, c in enumerate(chunks))
        (tmp / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + qrels, encoding="ascii")
        tmp.replace(folder)
        return folder

    def ensure(self) -> None:
        if not (self.corpus_path.exists() and self.queries_path.exists()):
            generate(self)


def word_ranks() -> dict[str, int]:
    """Spelling -> Zipf rank (0 = most frequent) of every pseudo-word."""
    table, lengths = pseudo_words(VOCABULARY)
    return {table[r, :lengths[r]].tobytes().decode("ascii"): r for r in range(VOCABULARY)}


def zipf_cdf(vocabulary: int = VOCABULARY, exponent: float = ZIPF_EXPONENT) -> np.ndarray:
    weights = np.arange(1, vocabulary + 1, dtype=np.float64) ** -exponent
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def generate(spec: Synthetic) -> None:
    """Write the corpus and its queries to the cache, a block at a time (memory bounded by the block, not n),
    atomically: a reader never sees half a file."""
    CACHE.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.seed)
    table, word_len = pseudo_words(VOCABULARY)
    cdf = zipf_cdf()
    mu = math.log(MEAN_WORDS) - LENGTH_SIGMA**2 / 2  # so that the mean length is MEAN_WORDS
    seen = np.zeros(VOCABULARY, dtype=bool)
    tmp = spec.corpus_path.with_name(f"{spec.corpus_path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as out:
            for start in range(0, spec.n, _BLOCK):
                count = min(_BLOCK, spec.n - start)
                lengths = np.clip(np.rint(rng.lognormal(mu, LENGTH_SIGMA, count)), MIN_WORDS,
                                  MAX_WORDS).astype(np.int64)
                ids = np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right")
                seen[ids] = True
                out.write(_assemble(table, word_len, ids, lengths))
        queries = _queries(np.random.default_rng([spec.seed, 1]), cdf, seen, spec.queries)
        lines = "".join(" ".join(_spell(table, word_len, q)) + "\n" for q in queries)
        tmp.replace(spec.corpus_path)
    finally:
        tmp.unlink(missing_ok=True)
    _write_atomically(spec.queries_path, lines.encode("ascii"))


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _assemble(table: np.ndarray, word_len: np.ndarray, ids: np.ndarray, lengths: np.ndarray) -> bytes:
    """Chunks as lines of space-separated words, built without a Python loop over words."""
    rows = table[ids]
    flat = rows[rows != 0]
    ends = np.cumsum(word_len[ids] + 1)  # one past the space after each word
    last_word = np.cumsum(lengths) - 1
    flat[ends[last_word] - 1] = ord("\n")
    return flat.tobytes()


def _queries(rng: np.random.Generator, cdf: np.ndarray, seen: np.ndarray, n: int) -> list[np.ndarray]:
    """Queries whose words follow the corpus' own Zipf law, restricted to words the corpus has."""
    lengths = rng.integers(QUERY_WORDS[0], QUERY_WORDS[1] + 1, n)
    present = np.flatnonzero(seen)
    weights = np.diff(cdf, prepend=0.0)[present]
    present_cdf = np.cumsum(weights) / weights.sum()
    ids = present[np.searchsorted(present_cdf, rng.random(int(lengths.sum())), side="right")]
    return np.split(ids, np.cumsum(lengths)[:-1])


def _spell(table: np.ndarray, word_len: np.ndarray, ids: np.ndarray) -> list[str]:
    return [table[i, :word_len[i]].tobytes().decode("ascii") for i in ids]


@dataclass(frozen=True)
class RealCollection:
    name: str
    language: str  # stop words and stemming, as the collection's README runs BM25

    @property
    def path(self) -> Path:
        return DATA / self.name


REAL_COLLECTIONS = (RealCollection("cranfield", "en"), RealCollection("squad_it", "it"),
                    RealCollection("xquad_es", "es"))


def real_collections() -> list[RealCollection]:
    """The real collections present on this machine (none on a fresh clone without shared data)."""
    return [c for c in REAL_COLLECTIONS if (c.path / "corpus.jsonl").is_file()]
