"""Evaluation through an HTTP endpoint (``--backend endpoint:FILE.toml``): what concurrency buys over a network.

    python -m benchmarks.bench_endpoint [--questions 300] [--latency 0.05] [--concurrency 8] [--rounds 3]

A search service in this process (``tests/support/ranking_server.py``: a
ThreadingHTTPServer on 127.0.0.1) answers every request after ``--latency``
seconds with the top k of a ranking it knows (nested JSON read by JMESPath).
Each round opens the endpoint and evaluates the ``--questions`` questions of a
BEIR corpus (40 documents) as ``ranklens eval`` does: every question's top 10
asked ``concurrency`` at a time, then the questions whose relevant documents
are not among them asked again to depth 1000 (their full rank, for MRR). A run (``run --save``, a side of ``compare`` or
``pool``) searches the questions one by one, read ahead 64 at a time. The
table gives each round's seconds, the requests made, the most in flight at
once, and the floor the latency sets: requests / concurrency x latency.
"""
from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from tests.support.files import beir_folder
from tests.support.ranking_server import Ranking, mapping, serving

DOCS = 40


def beir_corpus(folder: Path, questions: int) -> tuple[Path, dict[str, Ranking]]:
    """A BEIR corpus of ``questions`` questions, one relevant document each, and each question's ranking
    (15 documents, the relevant one among them)."""
    rng = random.Random(0)
    docs = [{"_id": f"d{i:02}", "title": "", "text": f"alpha{i} beta{i} gamma"} for i in range(DOCS)]
    queries, qrels, rankings = [], [], {}
    for q in range(questions):
        text = f"question {q} about alpha{q % DOCS}"
        order = rng.sample(range(DOCS), 15)
        queries.append({"_id": f"q{q}", "text": text})
        qrels.append(f"q{q}\td{rng.choice(order):02}\t1\n")
        rankings[text] = [(f"d{d:02}", 20.0 - rank, None) for rank, d in enumerate(order)]
    return beir_folder(folder / "c", docs, queries, "".join(qrels)), rankings


def run_once(corpus: Path, toml: Path) -> float:
    """Seconds to make the run of every question (``run --save``, a side of ``compare`` or ``pool``)."""
    from ranklens.engine.backends.base import attached
    from ranklens.engine.backends.registry import open_target
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for
    from ranklens.engine.measuring.runs import make_run

    loaded = load_corpus(str(corpus))
    with attached(open_target(f"endpoint:{toml}")) as backend:
        retriever = Workbench(loaded, backend=backend).retriever(setup_for(loaded, {"k": 100}))
        started = time.perf_counter()
        make_run(retriever, loaded.questions, 100)
        return time.perf_counter() - started


def evaluate_once(corpus: Path, toml: Path) -> float:
    from ranklens.engine.backends.base import attached
    from ranklens.engine.backends.registry import open_target
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for

    loaded = load_corpus(str(corpus))
    with attached(open_target(f"endpoint:{toml}")) as backend:
        retriever = Workbench(loaded, backend=backend).retriever(setup_for(loaded, {}))
        started = time.perf_counter()
        retriever.evaluate()  # its latency sample searches again: answered from the answers kept
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        corpus, rankings = beir_corpus(Path(folder), args.questions)
        toml = Path(folder) / "search.toml"
        print(f"### Evaluation through an endpoint: {args.questions} questions, {args.latency * 1000:g} ms a "
              f"request, concurrency {args.concurrency}\n")
        print("| round | seconds | requests | most in flight | floor (requests / concurrency x latency) |")
        print("|---|---|---|---|---|")
        for what, measure in (("eval", evaluate_once), ("run", run_once)):
            times = []
            for round_ in range(1, args.rounds + 1):
                with serving(rankings, latency=args.latency) as server:
                    toml.write_text(mapping(server.url, concurrency=args.concurrency), encoding="utf-8")
                    seconds = measure(corpus, toml)
                times.append(seconds)
                floor = len(server.requests) / args.concurrency * args.latency
                print(f"| {what} {round_} | {seconds:.2f} | {len(server.requests)} | {server.most_in_flight} | "
                      f"{floor:.2f} s |")
            print(f"| {what}: median {statistics.median(times):.2f} s, best {min(times):.2f} s | | | | |")


if __name__ == "__main__":
    main()
