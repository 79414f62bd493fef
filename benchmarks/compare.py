"""Parent side of the text-retrieval sections: run each library in its own worker, compare, tabulate.

Every section (BM25, TF-IDF, the real collections) is a list of contenders
measured on one corpus after another; each peer is compared with the
ranklens run that got the same input (its own tokenizer, or the same tokens).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from benchmarks.common import Table, fmt_bytes, fmt_ms, fmt_rate, fmt_ratio, fmt_seconds, fmt_size
from benchmarks.measure import agreement
from benchmarks.peers import installed
from benchmarks.worker import TaskFailed, run_task

OWN = "own"
SAME = "same"
TOKEN_LABELS = {OWN: "own tokenizer", SAME: "same tokens"}


@dataclass(frozen=True)
class Contender:
    library: str
    tokens: str = OWN  # OWN: the library analyses the texts itself; SAME: it gets ranklens' tokens
    max_chunks: int | None = None  # above this, the library is not run (say why in ``limit_reason``)
    limit_reason: str = ""
    install: str = ""  # what to pip install when the library is missing

    @property
    def pretokenized(self) -> bool:
        return self.tokens == SAME


@dataclass
class Outcome:
    contender: Contender
    result: dict[str, Any] | None = None
    failure: str = ""
    against: dict[str, float] | None = None  # agreement with ranklens on the same input


@dataclass(frozen=True)
class Options:
    quick: bool
    queries: int
    latency_queries: int
    sample_queries: int
    eval_job: bool = True  # BM25: also time `ranklens eval` against bm25s, each a whole process

    def repeats(self, chunks: int) -> int:
        # a batch over a million chunks takes a minute: one run is itself a long average
        return 1 if self.quick or chunks >= 1_000_000 else 3

    def timeout(self, chunks: int) -> float:
        return 600 + chunks * 0.006


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_contenders(label: str, source: dict[str, Any], chunks: int, setup: dict[str, Any],
                   contenders: list[Contender], options: Options, language: str | None = None) -> list[Outcome]:
    outcomes = []
    for contender in contenders:
        outcome = Outcome(contender)
        if not installed(contender.library):
            outcome.failure = f"not installed (pip install {contender.install or contender.library})"
        elif contender.max_chunks is not None and chunks > contender.max_chunks:
            outcome.failure = contender.limit_reason
        else:
            args = {"source": source, "setup": setup, "library": contender.library,
                    "pretokenized": contender.pretokenized, "language": language,
                    "latency_queries": options.latency_queries, "sample_queries": options.sample_queries,
                    "repeats": options.repeats(chunks)}
            started = time.perf_counter()
            try:
                outcome.result = run_task("benchmarks.measure", "engine_task", args, options.timeout(chunks))
            except TaskFailed as failed:
                outcome.failure = str(failed)
            log(f"  {label} · {contender.library} ({TOKEN_LABELS[contender.tokens]}): "
                f"{outcome.failure or 'done'} in {time.perf_counter() - started:.0f} s")
        if outcome.failure:
            log(f"  {label} · {contender.library}: {outcome.failure}")
        outcomes.append(outcome)
    for outcome in outcomes:
        reference = _reference(outcomes, outcome.contender.tokens)
        if outcome.result and reference and reference.result:
            outcome.against = agreement(reference.result, outcome.result)
    return outcomes


def run_synthetic_sizes(name: str, sizes: list[int], setup: dict[str, Any], contenders: list[Contender],
                        options: Options, rare: bool = False) -> list[tuple[str, list[Outcome]]]:
    """Every contender on the Zipf corpus of each size: one (size label, outcomes) group per size.

    ``rare``: also answer the rare-term query mix (``Synthetic.rare_queries``), as many queries.
    """
    return [(fmt_size(n), run_contenders(f"{name} {fmt_size(n)}",
                                         {"synthetic": n, "queries": options.queries, "rare": rare},
                                         n, setup, contenders, options))
            for n in sizes]


def _reference(outcomes: list[Outcome], tokens: str) -> Outcome | None:
    """The ranklens run a peer is compared with: the one on the same input, else any ranklens run
    (ranklens' own tokenizer produces exactly the "same tokens" it hands to peers)."""
    ours = [o for o in outcomes if o.contender.library == "ranklens"]
    return next((o for o in ours if o.contender.tokens == tokens), ours[0] if ours else None)


# -- tables ----------------------------------------------------------------------------------------

Column = tuple[str, Callable[[dict[str, Any]], str]]

SPEED_COLUMNS: list[Column] = [
    ("index build", lambda r: fmt_seconds(r["build_s"])),
    ("peak memory (build)", lambda r: fmt_bytes(r["peak_bytes"])),
    ("queries/s (batch)", lambda r: fmt_rate(r["queries_per_s"])),
    ("p50 ms", lambda r: fmt_ms(r["p50_ms"])),
    ("p99 ms", lambda r: fmt_ms(r["p99_ms"])),
    ("peak memory (query batch)", lambda r: fmt_bytes(r["batch_peak_bytes"])),
]
PROCESS_COLUMN: Column = ("peak memory (whole process)", lambda r: fmt_bytes(r.get("process_peak_bytes")))
# the BM25 tables: both query mixes side by side, and the whole worker process' peak
MIX_COLUMNS: list[Column] = [
    ("index build", lambda r: fmt_seconds(r["build_s"])),
    ("peak memory (build)", lambda r: fmt_bytes(r["peak_bytes"])),
    ("queries/s (batch)", lambda r: fmt_rate(r["queries_per_s"])),  # unnamed mix: the Zipf one, as before
    ("queries/s rare (batch)", lambda r: fmt_rate(r.get("queries_per_s_rare"))),
    ("p50 ms", lambda r: fmt_ms(r["p50_ms"])),
    ("p50 ms rare", lambda r: fmt_ms(r.get("p50_ms_rare"))),
    ("p99 ms", lambda r: fmt_ms(r["p99_ms"])),
    ("p99 ms rare", lambda r: fmt_ms(r.get("p99_ms_rare"))),
    ("peak memory (query batch)",
     lambda r: fmt_bytes(max(r["batch_peak_bytes"] or 0, r.get("batch_peak_bytes_rare") or 0))),
    PROCESS_COLUMN,
]
QUALITY_COLUMNS: list[Column] = [
    ("nDCG@10", lambda r: f"{r['ndcg@10']:.4f}"),
    ("recall@100", lambda r: f"{r['recall@100']:.4f}"),
]


def results_table(title: str, key_name: str, groups: list[tuple[str, list[Outcome]]],
                  columns: list[Column]) -> Table:
    header = [key_name, "library", "input", *(c[0] for c in columns),
              "same top-10", "same top-10 up to ties", "max abs score diff"]
    table = Table(title, header)
    for key, outcomes in groups:
        for o in outcomes:
            lead = [key, o.contender.library, TOKEN_LABELS[o.contender.tokens]]
            if o.result is None:
                table.add(*lead, o.failure, *["—"] * (len(header) - 4))
                continue
            a = o.against
            checks = ["—"] * 3 if a is None or o.contender.library == "ranklens" else [
                f"{a['same_top']:.3f}", f"{a['same_up_to_ties']:.3f}", f"{a['max_score_diff']:.1e}"]
            table.add(*lead, *(fmt(o.result) for _, fmt in columns), *checks)
    return table


RATIOS: list[tuple[str, str]] = [("build time", "build_s"), ("peak memory", "peak_bytes"),
                                 ("queries/s", "queries_per_s"), ("p50 latency", "p50_ms")]
MIX_RATIOS: list[tuple[str, str]] = [
    ("build time", "build_s"), ("peak memory (build)", "peak_bytes"), ("queries/s", "queries_per_s"),
    ("queries/s rare", "queries_per_s_rare"), ("p50 latency", "p50_ms"), ("p50 rare", "p50_ms_rare"),
    ("peak memory (whole process)", "process_peak_bytes")]


def ratio_table(title: str, key_name: str, groups: list[tuple[str, list[Outcome]]],
                ratios: list[tuple[str, str]] = RATIOS) -> Table:
    """ranklens / peer for each peer row: below 1 is better for times and memory, above 1 for queries/s."""
    table = Table(title, [key_name, "input", "peer", *(label for label, _ in ratios)])
    for key, outcomes in groups:
        for o in outcomes:
            reference = _reference(outcomes, o.contender.tokens)
            if o.contender.library == "ranklens" or not (o.result and reference and reference.result):
                continue
            ours, theirs = reference.result, o.result
            table.add(key, TOKEN_LABELS[o.contender.tokens], o.contender.library,
                      *(fmt_ratio(ours.get(name), theirs.get(name)) for _, name in ratios))
    table.notes.append("ratio = ranklens / peer on the same input: below 1× is better for build time, "
                       "memory and latency, above 1× is better for queries/s.")
    return table
