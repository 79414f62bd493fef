"""What a pushed collection records about its chunks, and what a query over it must match.

The collection's metadata holds the settings that decide chunks, terms and
BM25's tf component, plus digests of the chunk ids, the chunk texts (and the
documents' titles when they are indexed), the vocabulary (sorted terms: term
id = position, the sparse vectors' indices) and the analyzer (a stop-word
file's contents included). A setup whose fingerprint differs would send other
term ids, expect other chunks, or show texts beside scores of other texts: it
is refused, naming the difference.

Digests of the corpus' own columns (``ChunkTable``, ``DocumentTable``) read
their bytes as they lie on disk, with no string made: a million chunks' ids
and texts (260 MB) in about 0.4 s. The corpus cache names a corpus' content by
its sources' digest (``Corpus.fingerprint``, checked on every open), so those
digests are computed once per content and kept under the cache folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.engine.storage.cache import cache_root, texts_key
from ranklens.engine.corpus.tables import ChunkTable, DocumentTable, TextColumn

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever

FORMAT = 2  # 2: the chunk texts' digest; ids and texts digested as strings_digest says
# chunking, analysis, and BM25's chunk side (k1, b, avgdl are applied before pushing)
SETTINGS = ("size", "overlap", "chunker", "index_title", "token_pattern", "lowercase", "fold_accents",
            "stopwords", "stem", "bm25_variant", "k1", "b")
_RUN = 4096  # strings encoded at once when they come one by one


def fingerprint(retriever: Retriever) -> dict[str, Any]:
    """The metadata of a collection holding ``retriever``'s chunks (JSON-ready)."""
    index, chunks, corpus = retriever.index, retriever.chunks, retriever.corpus
    analysis = json.dumps(list(index.analyzer.key), ensure_ascii=False, default=list)
    # the corpus' own chunks (no chunking of the setup's): their digests follow from the sources' content
    known = corpus.fingerprint if chunks is corpus.chunks else ""
    texts = {"texts": _kept(known, "chunk texts", lambda: strings_digest(_column(chunks, "texts", "text")))}
    if retriever.setup.index_title:
        texts["titles"] = _kept(corpus.fingerprint, "titles",
                                lambda: strings_digest(_column(corpus.documents, "titles", "title")))
    return {
        "ranklens": FORMAT,
        "corpus": corpus.name,
        "settings": {name: _portable(name, getattr(retriever.setup, name)) for name in SETTINGS},
        "chunks": len(chunks),
        "terms": int(index.vocabulary.size),
        "chunk_ids": _kept(known, "chunk ids", lambda: strings_digest(_column(chunks, "ids", "id"))),
        **texts,
        "vocabulary": texts_key(["vocabulary"], [str(t) for t in index.vocabulary]),
        "analysis": texts_key(["analysis"], [analysis]),
    }


def strings_digest(strings: Sequence[str]) -> str:
    """A digest of ``strings`` in order: their UTF-8 bytes end to end, then where each ends (so no two lists
    share one). A column of the corpus cache is digested as it lies on disk; any other sequence gives the
    same digest for the same strings, encoded a run at a time."""
    digest = hashlib.sha1(usedforsecurity=False)  # noticing a change, not resisting an attack
    if isinstance(strings, TextColumn):
        digest.update(strings.blob)
        offsets = np.asarray(strings.offsets)
    else:
        lengths = [0]
        for start in range(0, len(strings), _RUN):
            encoded = [s.encode("utf-8", "surrogatepass") for s in strings[start:start + _RUN]]
            digest.update(b"".join(encoded))
            lengths.extend(map(len, encoded))
        offsets = np.cumsum(lengths)
    digest.update(offsets.astype("<i8").tobytes())
    return digest.hexdigest()


def _column(rows: Sequence[Any], column: str, field: str) -> Sequence[str]:
    """A field of every row: the table's own column when the rows are the corpus cache's."""
    if isinstance(rows, (ChunkTable, DocumentTable)):
        return getattr(rows, column)
    return [getattr(row, field) for row in rows]


def _kept(content: str, what: str, compute: Callable[[], str]) -> str:
    """``compute()``, kept under the cache folder by the corpus' content (``content``, its sources' digest;
    "" when unknown: computed every time). A cache that cannot be written is only slower."""
    if not content:
        return compute()
    path = cache_root() / "digests" / texts_key([FORMAT, what, content], ())
    try:
        kept = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        kept = ""
    if len(kept) == 40 and all(c in "0123456789abcdef" for c in kept):
        return kept
    value = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
        temporary.write_text(value, encoding="ascii")
        os.replace(temporary, path)
    except OSError:
        pass
    return value


def _portable(name: str, value: Any) -> Any:
    """A stop-word file by its name: the path is this machine's, its contents are in the analysis digest."""
    return Path(value).name if name == "stopwords" else value


def differences(stored: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """What keeps a collection pushed as ``stored`` from answering for ``wanted``; empty when nothing."""
    if stored.get("ranklens") != FORMAT:
        return [f"it was not pushed by this version of ranklens (format {stored.get('ranklens')!r})"]
    mine, theirs = wanted["settings"], stored.get("settings", {})
    changed = [f"{name}={theirs.get(name)!r} there, {mine[name]!r} here" for name in SETTINGS
               if theirs.get(name) != mine[name]]
    if changed:
        return changed
    if stored.get("chunks") != wanted["chunks"] or stored.get("chunk_ids") != wanted["chunk_ids"]:
        return [f"it holds {stored.get('chunks')} other chunks (of corpus {stored.get('corpus')!r}), "
                f"not the {wanted['chunks']} of {wanted['corpus']!r}"]
    edited = [what for key, what in (("texts", "the chunks' texts"), ("titles", "the documents' titles"))
              if stored.get(key) != wanted.get(key)]
    if edited:
        return [f"it was pushed from an older corpus ({' and '.join(edited)} differ from those of "
                f"{wanted['corpus']!r} here: push it again with --replace)"]
    if stored.get("analysis") != wanted["analysis"]:
        return ["its stop words differ (the same file name, other contents)"]
    if stored.get("vocabulary") != wanted["vocabulary"]:
        return [f"its vocabulary differs ({stored.get('terms')} terms there, {wanted['terms']} here)"]
    return []
