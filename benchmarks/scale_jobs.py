"""One step of the scale benchmark in a process of its own; prints one JSON object.

    python -m benchmarks.scale_jobs tantivy-index FOLDER INDEX_DIR
    python -m benchmarks.scale_jobs tantivy-search INDEX_DIR QUERY
    python -m benchmarks.scale_jobs queries ENGINE FOLDER_OR_INDEX QUERY_FILE
    python -m benchmarks.scale_jobs tantivy-eval FOLDER INDEX_DIR

Run through ``benchmarks.peak`` so the parent reads the process' own peak
memory. tantivy runs on one thread (writer and searcher); ranklens answers as
``ranklens search`` does (``Retriever.search``), from the warm caches under
``RANKLENS_CACHE_DIR``. ``queries`` times the warm open (imports included),
then each query alone (p50) and all of them in a row (queries/s, the median of ``BATCH_PASSES``).
``tantivy-eval`` is tantivy's side of ``ranklens eval`` on the folder's
questions (one judged chunk each): open, each question's top 10, and nDCG@10
(with one relevant chunk, 1 / log2(1 + rank) within the top 10).
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

WRITER_HEAP = 256 << 20  # tantivy's indexing buffer on its one thread
# the queries in a row, timed this many times (the median): 200 rare queries take ~40 ms, within reach of a
# single hiccup of a shared machine
BATCH_PASSES = 3


def tantivy_index(folder: Path, index_dir: Path) -> dict:
    import tantivy

    started = time.perf_counter()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False)
    index_dir.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(builder.build(), path=str(index_dir))
    writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
    chunks = 0
    with open(folder / "corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            writer.add_document(tantivy.Document(id=record["_id"], text=record["text"]))
            chunks += 1
    writer.commit()
    writer.wait_merging_threads()
    return {"index_s": time.perf_counter() - started, "chunks": chunks}


def _tantivy_opened(index_dir: Path) -> Callable[[str], list[str]]:
    import tantivy

    index = tantivy.Index.open(str(index_dir))
    searcher = index.searcher()

    def search(text: str) -> list[str]:
        hits = searcher.search(index.parse_query(text, ["text"]), 10).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    return search


def _ranklens_opened(folder: Path) -> Callable[[str], list[str]]:
    from ranklens.engine.storage.cache import IndexCache
    from ranklens.engine.corpus.loaders import load_corpus
    from ranklens.engine.retriever import Workbench, setup_for

    corpus = load_corpus(folder)
    retriever = Workbench(corpus, IndexCache()).retriever(setup_for(corpus, {"k": 10}))

    def search(text: str) -> list[str]:
        return [hit.chunk.id for hit in retriever.search(text).hits]

    return search


def queries(engine: str, where: Path, query_file: Path) -> dict:
    started = time.perf_counter()
    search = _tantivy_opened(where) if engine == "tantivy" else _ranklens_opened(where)
    open_s = time.perf_counter() - started
    texts = query_file.read_text(encoding="utf-8").splitlines()
    latencies = []
    for text in texts:
        tick = time.perf_counter()
        search(text)
        latencies.append((time.perf_counter() - tick) * 1000)
    passes = []
    for _ in range(BATCH_PASSES):
        started = time.perf_counter()
        for text in texts:
            search(text)
        passes.append(time.perf_counter() - started)
    return {"open_s": open_s, "p50_ms": statistics.median(latencies),
            "queries_per_s": len(texts) / statistics.median(passes), "queries": len(texts)}


def tantivy_search(index_dir: Path, text: str) -> dict:
    return {"ids": _tantivy_opened(index_dir)(text)}


def tantivy_eval(folder: Path, index_dir: Path) -> dict:
    import math

    started = time.perf_counter()
    search = _tantivy_opened(index_dir)
    questions = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            questions[record["_id"]] = record["text"]
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as lines:
        judged = dict(line.split("\t")[:2] for line in list(lines)[1:])
    asked = time.perf_counter()
    gains = []
    for qid, text in questions.items():
        top = search(text)
        gains.append(1 / math.log2(2 + top.index(judged[qid])) if judged[qid] in top else 0.0)
    done = time.perf_counter()
    return {"open_s": asked - started, "queries_per_s": len(questions) / (done - asked),
            "ndcg@10": sum(gains) / len(gains), "questions": len(questions)}


def main(argv: list[str]) -> int:
    job, *args = argv
    if job == "tantivy-index":
        result = tantivy_index(Path(args[0]), Path(args[1]))
    elif job == "tantivy-search":
        result = tantivy_search(Path(args[0]), args[1])
    elif job == "tantivy-eval":
        result = tantivy_eval(Path(args[0]), Path(args[1]))
    elif job == "queries":
        result = queries(args[0], Path(args[1]), Path(args[2]))
    else:
        raise SystemExit(f"unknown job {job!r}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
