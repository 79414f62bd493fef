"""What a pushed collection records about its chunks, and what a query over it must match.

The collection's metadata holds the settings that decide chunks, terms and
BM25's tf component, plus digests of the chunk ids, the vocabulary (sorted
terms: term id = position, the sparse vectors' indices) and the analyzer
(a stop-word file's contents included). A setup whose fingerprint differs would
send other term ids or expect other chunks: it is refused, naming the difference.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranklens.engine.cache import texts_key

if TYPE_CHECKING:
    from ranklens.engine.retriever import Retriever

FORMAT = 1
# chunking, analysis, and BM25's chunk side (k1, b, avgdl are applied before pushing)
SETTINGS = ("size", "overlap", "chunker", "index_title", "token_pattern", "lowercase", "fold_accents",
            "stopwords", "stem", "bm25_variant", "k1", "b")


def fingerprint(retriever: Retriever) -> dict[str, Any]:
    """The metadata of a collection holding ``retriever``'s chunks (JSON-ready)."""
    index = retriever.index
    analysis = json.dumps(list(index.analyzer.key), ensure_ascii=False, default=list)
    return {
        "ranklens": FORMAT,
        "corpus": retriever.corpus.name,
        "settings": {name: _portable(name, getattr(retriever.setup, name)) for name in SETTINGS},
        "chunks": len(retriever.chunks),
        "terms": int(index.vocabulary.size),
        "chunk_ids": texts_key(["chunk ids"], [c.id for c in retriever.chunks]),
        "vocabulary": texts_key(["vocabulary"], [str(t) for t in index.vocabulary]),
        "analysis": texts_key(["analysis"], [analysis]),
    }


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
    if stored.get("analysis") != wanted["analysis"]:
        return ["its stop words differ (the same file name, other contents)"]
    if stored.get("vocabulary") != wanted["vocabulary"]:
        return [f"its vocabulary differs ({stored.get('terms')} terms there, {wanted['terms']} here)"]
    return []
