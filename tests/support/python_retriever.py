"""The user's own retriever as a Python module a test writes: a LangChain-style vector store answering from
rankings the test knows (``rankings.json`` beside it, question text -> [(id, score, text or None)]), and the
functions wrapping it, good and bad, for ``--backend python:PATH:FUNCTION``."""
from __future__ import annotations

import json
from pathlib import Path

# A LangChain-style store and the function wrapping it: the store's documents carry their id in metadata
# and their text as page_content; the wrapper is what a user writes in a few lines.
RETRIEVER = '''
import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Document:
    page_content: str
    metadata: dict = field(default_factory=dict)


class RankedStore:
    def __init__(self, rankings):
        self.rankings = rankings

    def similarity_search_with_score(self, query, k=4):
        return [(Document(text or "", {"id": ident}), score) for ident, score, text in self.rankings[query][:k]]


store = RankedStore(json.loads((Path(__file__).parent / "rankings.json").read_text()))


def search(query, k):
    return [{"id": doc.metadata["id"], "score": score, "text": doc.page_content or None}
            for doc, score in store.similarity_search_with_score(query, k=k)]


def pairs(query, k):
    return [(doc.metadata["id"], score) for doc, score in store.similarity_search_with_score(query, k=k)]


def negative(query, k):  # scores as a negated distance: all below 0, in the same order
    return [{"id": hit["id"], "score": hit["score"] - 1000.0} for hit in search(query, k)]


def not_a_list(query, k):
    return {"hits": []}


def bad_score(query, k):
    return [{"id": "d01", "score": "high"}]


def raises(query, k):
    raise ConnectionError("the vector store is down")


def flaky(query, k):
    if query.startswith("question 4 "):
        raise TimeoutError("the store took too long")
    return search(query, k)


NOT_CALLABLE = 3
'''


def module(folder: Path, rankings: dict) -> Path:
    """``my_retriever.py`` written into ``folder``, answering from ``rankings``; its path."""
    (folder / "rankings.json").write_text(json.dumps(rankings), encoding="utf-8")
    path = folder / "my_retriever.py"
    path.write_text(RETRIEVER, encoding="utf-8")
    return path

