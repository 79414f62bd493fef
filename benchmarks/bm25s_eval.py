"""bm25s doing the job of ``ranklens eval`` in a process of its own: load, tokenize, index, answer.

    python -m benchmarks.bm25s_eval FOLDER K1 B

FOLDER is a BEIR folder (``corpus.jsonl``, ``queries.jsonl``); every question
is answered with its top 10 in one ``retrieve`` call. Prints one JSON object
(index_s, queries_per_s, questions). Imports only json, numpy and bm25s, so
the parent's reading of this process' peak memory is bm25s' own.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    folder, k1, b = Path(argv[0]), float(argv[1]), float(argv[2])
    import bm25s

    with open(folder / "corpus.jsonl", encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines]
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        queries = [json.loads(line)["text"] for line in lines]
    options: dict[str, Any] = {"stopwords": [], "stemmer": None, "show_progress": False}
    started = time.perf_counter()
    model = bm25s.BM25(method="lucene", k1=k1, b=b, backend="numpy")
    model.index(bm25s.tokenize(texts, **options), show_progress=False)
    index_s = time.perf_counter() - started
    started = time.perf_counter()
    model.retrieve(bm25s.tokenize(queries, **options), k=10, show_progress=False)
    answer_s = time.perf_counter() - started
    print(json.dumps({"index_s": index_s, "queries_per_s": len(queries) / answer_s, "questions": len(queries)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
