"""Why does a chunk rank where it does? Its full rank, score and explanation against the top result's.

For a query and one chunk (typically a relevant one outside the top k), ``why`` reports:

- its rank among all chunks (never cut at k; ties ordered as search orders them) and score, or
  that the query does not retrieve it (``engine/topk.py``'s ranking rule: it matches nothing);
- both explanations (``Retriever.explain``: term by term for TF-IDF and BM25);
- ``missing``: the query's terms (after analysis, in the corpus) that the chunk does not contain;
- ``weaker``: terms both contain where the chunk's contribution is below the top result's;
- ``lost``: what analysis did to the query's words before any matching: stop words removed,
  words the token pattern drops (too short), words stemmed to another term, and terms that
  occur in no chunk of the corpus (not in the vocabulary).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.engine.errors import RanklensError
from ranklens.engine.scoring.explain import Explanation
from ranklens.engine.topk import QueryScores, floor_of
from ranklens.engine.workspace.store import known_question

if TYPE_CHECKING:
    from ranklens.engine.corpus import Chunk
    from ranklens.engine.retriever import Retriever

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Lost:
    """A query word analysis changed or dropped: ``reason`` is "stop word", "too short", "stemmed" or
    "not in the vocabulary"; ``term`` is what it became (stemmed) or the term looked up."""

    word: str
    reason: str
    term: str = ""


@dataclass(frozen=True)
class Weaker:
    term: str
    chunk: float  # the term's contribution to the chunk's score
    top: float  # its contribution to the top result's score


@dataclass(frozen=True)
class WhyReport:
    query: str
    chunk: Chunk
    rank: int | None  # 1-based, among all chunks; None: the query does not retrieve it
    score: float
    explanation: Explanation
    top: Chunk
    top_score: float
    top_explanation: Explanation
    k: int
    missing: list[str]  # query terms the chunk lacks
    missing_in_top: list[str]  # of those, the ones the top result has
    weaker: list[Weaker]
    lost: list[Lost]
    note: str = ""  # why search shows nothing for the query, when it shows nothing
    tied: int = 0  # other chunks with exactly the chunk's score (ranked among them in the corpus' order)
    tied_above: int = 0  # of those, the ones ranked above the chunk
    question: str | None = None  # the id of the known question the query asks (matched as typed text is)
    grade: int | None = None  # the chunk's grade for that question under the judgments that count (None: not
    # judged relevant)

    @property
    def in_top_k(self) -> bool:
        """Whether search shows the chunk: retrieved within k, and search shows anything at all."""
        return self.rank is not None and self.rank <= self.k and not self.note

    @property
    def placed(self) -> str:
        """Where the chunk ranks, as a heading says it: "#4", or "not retrieved"."""
        return "not retrieved" if self.rank is None else f"#{self.rank}"

    def summary(self, chunks: int, decimals: int = 4) -> list[str]:
        """The report in sentences, one a line: rank and score against the top result's, the terms the
        chunk lacks, those it has with lower weight, the words lost to analysis (``chunks``: how many
        chunks were ranked)."""
        shown = "shown" if self.in_top_k else "not shown"
        where = (f"is not retrieved (it matches nothing of the query), score {self.score:.{decimals}f}"
                 if self.rank is None else f"ranks {self.rank} of {chunks} with score {self.score:.{decimals}f}")
        lines = [f"{self.chunk.id} {where} (k = {self.k}: {shown}); the top result is {self.top.id} with "
                 f"{self.top_score:.{decimals}f}"]
        if self.tied and self.rank is not None:
            first = self.rank - self.tied_above
            lines.append(f"tied with {self.tied:,} other chunk{'' if self.tied == 1 else 's'} at that score "
                         f"(ranks {first}-{first + self.tied}): its rank among them is the corpus' order")
        if self.question is not None:
            judged = "not judged relevant" if self.grade is None else f"judged relevant, grade {self.grade}"
            lines.append(f"known question {self.question}: the chunk is {judged}")
        if self.note:
            lines.append(f"search shows nothing for this query: {self.note}")
        if self.missing:
            has = f" (the top result has {', '.join(self.missing_in_top)})" if self.missing_in_top else ""
            lines.append(f"query terms the chunk lacks: {', '.join(self.missing)}{has}")
        if self.weaker:
            lines.append("terms it has with lower weight: " + ", ".join(
                f"{w.term} {w.chunk:.{decimals}f} < {w.top:.{decimals}f}" for w in self.weaker))
        if self.lost:
            lines.append("lost to analysis: " + "; ".join(
                f"{lost.word} ({lost.reason}{' to ' + lost.term if lost.reason == 'stemmed' else ''})"
                for lost in self.lost))
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "k": self.k,
            "question": self.question,
            "chunk": {"id": self.chunk.id, "rank": self.rank, "score": self.score, "in_top_k": self.in_top_k,
                      "tied": self.tied, "grade": self.grade,
                      "text": self.chunk.text, "explain": self.explanation.to_dict()},
            "top": {"id": self.top.id, "rank": 1, "score": self.top_score, "text": self.top.text,
                    "explain": self.top_explanation.to_dict()},
            "missing": self.missing,
            "missing_in_top": self.missing_in_top,
            "weaker": [{"term": w.term, "chunk": w.chunk, "top": w.top} for w in self.weaker],
            "lost": [{"word": lost.word, "reason": lost.reason, "term": lost.term} for lost in self.lost],
            "note": self.note,
        }


def why(retriever: Retriever, query: str, chunk_id: str) -> WhyReport:
    """Where ``chunk_id`` ranks for ``query`` under the retriever's setup, and what separates it from the top."""
    position = {c.id: i for i, c in enumerate(retriever.chunks)}.get(chunk_id)
    if position is None:
        close = [c.id for c in retriever.chunks if c.id.startswith(chunk_id)][:3]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise RanklensError(f"no chunk {chunk_id!r} in {retriever.corpus.name} under this chunking{hint}")
    terms = retriever.query(query)
    ranked = QueryScores.of(np.asarray(retriever.scores(terms), dtype=np.float64), floor_of(retriever.scorer, terms))
    scores = ranked.values
    rank = ranked.retrieved_rank(np.array([position]))
    tied = int(np.count_nonzero(scores == scores[position])) - 1 if rank is not None else 0
    above = 0 if rank is None else rank - 1 - int(np.count_nonzero(scores > scores[position]))
    asked = known_question(query, retriever.corpus.questions)
    grade = retriever.relevant(asked).get(position) if asked is not None else None
    found = retriever.search(query, 1)
    top = found.hits[0].index if found.hits else int(np.argmax(scores))
    explanation = retriever.explain(query, position)
    top_explanation = retriever.explain(query, top)

    index = retriever.index
    row = index.counts[position]
    in_chunk = set(row.indices[row.data > 0].tolist())
    top_row = index.counts[top]
    in_top = set(top_row.indices[top_row.data > 0].tolist())
    missing = [str(index.vocabulary[t]) for t in terms.ids.tolist() if t not in in_chunk]
    missing_in_top = [str(index.vocabulary[t]) for t in terms.ids.tolist() if t not in in_chunk and t in in_top]
    top_parts = {t.term: t.contribution for t in top_explanation.terms}
    weaker = [Weaker(t.term, t.contribution, top_parts[t.term]) for t in explanation.terms
              if t.term in top_parts and t.tf > 0 and t.contribution < top_parts[t.term]]
    return WhyReport(query, retriever.chunks[position], rank, float(scores[position]), explanation,
                     retriever.chunks[top], float(scores[top]), top_explanation, retriever.setup.k,
                     missing, missing_in_top, weaker, lost_words(retriever, query), found.note,
                     tied=tied, tied_above=above, question=None if asked is None else asked.id, grade=grade)


def lost_words(retriever: Retriever, query: str) -> list[Lost]:
    """What analysis did to each distinct word of ``query`` that does not reach the index as itself."""
    analyzer = retriever.index.analyzer
    normalised = analyzer.normalise(query)
    tokens = analyzer.tokens(query)
    token_set = set(tokens)
    lost: list[Lost] = []
    for word in dict.fromkeys(_WORD.findall(normalised)):
        if word not in token_set:
            lost.append(Lost(word, "too short" if len(word) < 2 else "not a token"))
    for token in dict.fromkeys(tokens):
        if token in analyzer.stopwords:
            lost.append(Lost(token, "stop word"))
            continue
        term = analyzer.terms_of_tokens([token])[0]
        if term != token:
            lost.append(Lost(token, "stemmed", term))
        if term not in retriever.index.term_ids:
            lost.append(Lost(token, "not in the vocabulary", term))
    return lost
