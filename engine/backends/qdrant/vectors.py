"""What a push puts in each point: BM25 lucene's chunk side as a sparse vector, computed a batch at a time.

Qdrant's IDF modifier adds lucene's idf over the collection's own N and df, so
the chunk side ``tf / (tf + k1·(1 - b + b·dl/avgdl))`` is all a point carries.
A chunk with no terms still gets one entry, 0 at term id ``vocabulary size``
(an id no query has): Qdrant counts a point in N only when its sparse vector
has an entry, and ranklens' N counts every chunk.
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.engine.errors import RanklensError

if TYPE_CHECKING:
    from ranklens.engine.corpus import Chunk
    from ranklens.engine.work.progress import Progress
    from ranklens.engine.retriever import Retriever
    from ranklens.engine.scoring.dense import DenseScorer

Sparse = tuple[list[int], list[float]]  # (term ids, values) of one chunk

# What a collection takes on disk, for the free space a push asks for (an Edge shard of 100,000 Zipf chunks,
# 26 MB of text and 4.4 million terms, takes 74 MB, estimated 80 MB; of 1,000,000 chunks 738 MB, estimated 765 MB)
SPARSE_ENTRY_BYTES = 8  # a term id (u32) and its value (f32)
POINT_BYTES = 128  # a point's id and version records and its payload's keys
COLLECTION_BYTES = 4 << 20  # the shard's own files


def pushable(retriever: Retriever) -> Any:
    """``retriever``'s BM25 lucene scorer; RanklensError for any other (Qdrant's IDF modifier is lucene's idf)."""
    from ranklens.engine.scoring.bm25 import BM25Scorer

    scorer = retriever.scorer
    if not isinstance(scorer, BM25Scorer) or scorer.variant != "lucene":
        raise RanklensError(f"Qdrant's IDF modifier computes BM25 lucene's idf; {retriever.setup.describe()} "
                            "cannot be pushed (use --scorer bm25 --bm25-variant lucene)")
    return scorer


def push_metadata(retriever: Retriever, dense: DenseScorer | None) -> tuple[dict[str, Any], int | None]:
    """(what the collection records about its push, the dense vectors' dimensions or None without them)."""
    from ranklens.engine.backends.fingerprint import fingerprint
    from ranklens.engine.backends.qdrant.connection import DENSE

    metadata = fingerprint(retriever)
    if dense is None:
        return metadata, None
    dims = int(dense.vectors.shape[1])
    metadata[DENSE] = {"model": retriever.setup.model, "dims": dims}
    return metadata, dims


def stored_bytes(retriever: Retriever, dims: int | None) -> int:
    """About the bytes the points of ``retriever``'s chunks take on disk (a little more than Edge takes):
    their payload's strings, sparse vectors (a chunk with no terms: one entry), dense vectors of ``dims``."""
    from ranklens.engine.corpus.tables import ChunkTable

    chunks = retriever.chunks
    if isinstance(chunks, ChunkTable):  # a chunk's document id is about as long as its id
        carried = len(chunks.texts.blob) + 2 * len(chunks.ids.blob)
    else:
        carried = sum(len(c.text.encode("utf-8", "surrogatepass")) + len(c.id) + len(c.doc_id) for c in chunks)
    entries = int(retriever.index.counts.nnz) + len(chunks)
    return (carried + SPARSE_ENTRY_BYTES * entries + (4 * dims if dims else 0) * len(chunks)
            + POINT_BYTES * len(chunks) + COLLECTION_BYTES)


def bm25_rows(retriever: Retriever, start: int, stop: int) -> Any:
    """Chunks ``start:stop`` x terms (CSR) of BM25 lucene's chunk side, float32 as Qdrant keeps it."""
    from ranklens.engine.scoring.bm25 import bm25_tfc, length_norm

    index, scorer = retriever.index, pushable(retriever)
    counts = index.counts[start:stop].tocsr()
    norm = length_norm(index.doc_len[start:stop].astype(np.float64), scorer.avgdl, scorer.b)
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    values = counts.astype(np.float64)
    values.data = bm25_tfc("lucene", values.data, norm[rows], scorer.k1, 0.0)
    return values.astype(np.float32)


def sparse_batches(retriever: Retriever, batch: int, progress: Progress) -> Iterator[tuple[int, list[Sparse]]]:
    """(first chunk, the sparse vectors of ``batch`` chunks from it) in chunk order; only one batch's values
    exist at a time. Progress after each batch says chunks/s (and may raise ``Cancelled``)."""
    total, empty = len(retriever.chunks), int(retriever.index.vocabulary.size)
    started = time.perf_counter()
    progress(0, total, "pushing")
    for start in range(0, total, batch):
        stop = min(start + batch, total)
        values = bm25_rows(retriever, start, stop)
        indptr, indices, data = values.indptr, values.indices.tolist(), values.data.tolist()
        vectors = [(indices[a:b], data[a:b]) if b > a else ([empty], [0.0])
                   for a, b in zip(indptr[:-1].tolist(), indptr[1:].tolist(), strict=True)]
        yield start, vectors
        rate = stop / max(time.perf_counter() - started, 1e-9)
        progress(stop, total, f"pushing · {rate:,.0f} chunks/s")


def payloads(chunks: Sequence[Chunk], start: int, stop: int) -> list[dict[str, str]]:
    """What each point of chunks ``start`` to ``stop`` carries besides its vectors: the chunk's id, its
    document's id and its text (from a cached corpus' columns, with no chunk made)."""
    from ranklens.engine.corpus.tables import ChunkTable

    if isinstance(chunks, ChunkTable):
        ids, docs, texts = chunks.fields(start, stop)
    else:
        part = chunks[start:stop]
        ids, docs, texts = [c.id for c in part], [c.doc_id for c in part], [c.text for c in part]
    return [{"chunk_id": i, "doc_id": d, "text": t} for i, d, t in zip(ids, docs, texts, strict=True)]
