"""Encoding speed of the neural extra's models on this CPU: chunks/s for bi-encoders, pairs/s for rerankers.

    python -m benchmarks.bench_dense                    # 2,000 chunks of 100 words
    python -m benchmarks.bench_dense --chunks 500 --words 60 --out dense.md
    python -m benchmarks.bench_dense --threads 1       # torch on one thread (a machine shared with other work)
    python -m benchmarks.bench_dense --model minilm=PATH --reranker NAME_OR_PATH   # more rows, any model folder

Rows: the tiny models the tests build (a model2vec static model, a one-layer
random BERT bi-encoder and cross-encoder), the wordllama static model shipped
with the extra, and the lesson's two models, intfloat/multilingual-e5-small and
cross-encoder/mmarco-mMiniLMv2-L12-H384-v1, when they are in the local Hugging
Face cache (skipped otherwise: ranklens never downloads). Every model is loaded
through ``ranklens.engine.neural.models``, as ``ranklens --scorer dense`` and
``--rerank`` load them; texts are random draws of the studio-alfa corpus' words
(seed 0). Needs the neural extra.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a benchmark never downloads either

import numpy as np  # noqa: E402

from benchmarks.common import report  # noqa: E402

LESSON_ENCODER = "intfloat/multilingual-e5-small"
LESSON_RERANKER = "cross-encoder/mmarco-mMiniLMv2-L12-H384-v1"


def sample_texts(chunks: int, words: int, seed: int = 0) -> list[str]:
    from ranklens.engine.corpus.loaders import load_corpus

    vocabulary = sorted({w for c in load_corpus("studio-alfa").chunks for w in c.text.split()})
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(vocabulary, size=words)) for _ in range(chunks)]


def encoder_row(label: str, name: str, texts: list[str]) -> list[str]:
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.neural.models import load_encoder

    started = time.perf_counter()
    try:
        model = load_encoder(name)
    except RanklensError as error:
        return [label, "-", "-", "-", f"skipped: {error}"]
    load_s = time.perf_counter() - started
    model.encode_passages(texts[: model.batch_size])  # warm-up: first-call allocations, lazy imports
    started = time.perf_counter()
    model.encode_passages(texts)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    for text in texts[:50]:
        model.encode_queries([text[:80]])
    query_ms = (time.perf_counter() - started) / min(50, len(texts)) * 1000
    rate = len(texts) / seconds  # a 4-bit transformer on a busy core makes 2 a second: keep its decimals
    return [label, f"{model.dims}", f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}", f"{query_ms:.2f}",
            f"load {load_s:.2f} s"]


def reranker_row(label: str, name: str, texts: list[str]) -> list[str]:
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.neural.models import load_reranker

    started = time.perf_counter()
    try:
        model = load_reranker(name)
    except RanklensError as error:
        return [label, "-", "-", "-", f"skipped: {error}"]
    load_s = time.perf_counter() - started
    query = "come richiedo un permesso per il dentista"
    model.scores(query, texts[:5])  # warm-up
    pairs = texts[: max(5, len(texts) // 4)]
    started = time.perf_counter()
    for start in range(0, len(pairs), 5):  # the lesson's top 5, one question at a time
        model.scores(query, pairs[start:start + 5])
    seconds = time.perf_counter() - started
    per_question_ms = seconds / max(1, len(pairs) // 5) * 1000
    rate = f"{len(pairs) / seconds:,.0f} pairs/s"
    return [label, "-", rate, f"{per_question_ms:.1f} (top 5)", f"load {load_s:.2f} s"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--words", type=int, default=100)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--threads", type=int, help="torch's intra-op threads (default: torch's own choice)")
    parser.add_argument("--model", action="append", default=[], metavar="[LABEL=]NAME_OR_PATH",
                        help="another bi-encoder to measure (repeatable)")
    parser.add_argument("--reranker", action="append", default=[], metavar="[LABEL=]NAME_OR_PATH",
                        help="another cross-encoder to measure (repeatable)")
    args = parser.parse_args(argv)
    try:
        from tests.support import tiny_models
    except ImportError as error:  # the extra (torch, transformers...) is what tiny_models needs
        print(f"bench_dense: needs the neural extra: pip install 'ranklens[neural]' ({error})", file=sys.stderr)
        return 2
    import torch

    if args.threads:
        # torch spins its threads: on cores other processes also use, one thread can be 10x faster than two
        torch.set_num_threads(args.threads)
    texts = sample_texts(args.chunks, args.words)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        rows = [
            encoder_row("tiny model2vec (16 dims)", str(tiny_models.static_model(root / "static")), texts),
            encoder_row("tiny BERT bi-encoder (1 layer, 32)", str(tiny_models.bi_encoder(root / "bi")), texts),
            encoder_row("wordllama l2_supercat (static)", "wordllama", texts),
            encoder_row(LESSON_ENCODER, LESSON_ENCODER, texts),
            reranker_row("tiny BERT cross-encoder", str(tiny_models.cross_encoder(root / "ce")), texts),
            reranker_row(LESSON_RERANKER, LESSON_RERANKER, texts),
        ]
        for given, row in [*((m, encoder_row) for m in args.model), *((r, reranker_row) for r in args.reranker)]:
            label, _, name = given.rpartition("=")
            rows.append(row(label or name, name, texts))
    head = ["model", "dims", "chunks/s (encoding)", "ms per query", "notes"]
    lines = [f"Encoding on {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch on "
             f"{torch.get_num_threads()} thread(s): {args.chunks:,} chunks of {args.words} words.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
