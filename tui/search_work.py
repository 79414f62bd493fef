"""The Search tab's work, done in thread workers, and what it hands the tab to draw.

``find`` runs the context's query into rows with snippets (the query's terms
marked), the grades of a known question's judged chunks and what analysis
dropped from the query; ``explain`` explains one row's score; ``why_not`` says
why a chunk ranks where it does; ``list_documents`` groups the chunks by
document for the tree. The judging functions are the workspace changes the tab
sends (``ChangeWorkspace``), run by the app.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from rich.text import Text

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.work.progress import Progress
from ranklens.engine.setup import Setup
from ranklens.engine.corpus.source import citation
from ranklens.tui.context import Context
from ranklens.tui.safe import one_line, safe_text
from ranklens.tui.widgets.highlight import highlighted, snippet
from ranklens.tui.widgets.result_detail import Why, explained_why

if TYPE_CHECKING:
    from ranklens.engine.corpus import Chunk, Corpus
    from ranklens.engine.neural.models import Reranker
    from ranklens.engine.retriever import Hit, Retriever, SearchResult
    from ranklens.engine.scoring.explain import Explanation
    from ranklens.engine.workspace.store import Workspace

SNIPPET_CHARS = 300  # characters cut for a snippet; the column shows what fits


@lru_cache(maxsize=16)
def analyzer_for(setup: Setup) -> Analyzer:
    """The setup's analyzer, cached: a stop list may be read from disk."""
    return Analyzer.from_setup(setup)


def matched_spans(analyzer: Analyzer, text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Where the query's terms occur in ``text`` (after the same analysis as the index)."""
    wanted = set(terms)
    return [(start, end) for start, end, term in analyzer.term_spans(text) if term in wanted]


@dataclass(frozen=True)
class Reread:
    """What the reranker made of a result: its first-stage place and both scores."""

    first_rank: int
    first_score: float
    score: float | None  # None below the reranked top


@dataclass(frozen=True)
class ResultRow:
    hit: Hit  # with the rank-deciding score: the reranker's for the reranked top
    document: str  # the document's title or id, cleaned
    snippet: Text
    reread: Reread | None = None  # set when the setup has a reranker


@dataclass(frozen=True)
class Found:
    """A search's rows, for the context they were computed for."""

    context: Context
    rows: list[ResultRow]
    note: str  # shown when there are no rows
    terms: tuple[str, ...] = ()  # the analysed query
    relevant: frozenset[int] = frozenset()  # positions of chunks judged relevant, when the query is a known question
    known: bool = False  # the query is one of the corpus' questions with an answer
    lost: str = ""  # what analysis dropped from the query: words not in the corpus, stop words
    grades: Mapping[int, int] = field(default_factory=dict)  # position -> grade of judged chunks (0 too)
    unseen: tuple[str, ...] = ()  # ids of relevant chunks the rows do not show, best grade first
    not_reranked: str = ""  # why the setup's reranker did not reread the rows (they are the first stage's)


@dataclass(frozen=True)
class Explained:
    heading: Text
    text: Text
    explanation: Explanation


@dataclass(frozen=True)
class Documents:
    context: Context
    chunks: Sequence[Chunk]
    by_document: Mapping[str, Sequence[int]]  # positions in ``chunks``, documents in corpus order



# -- the work, in thread workers ----------------------------------------------------------------


def find(context: Context, progress: Progress) -> Found:
    """Run the context's query; each row carries its snippet with the query's terms marked."""
    from ranklens.engine.why import lost_words
    from ranklens.engine.workspace.store import known_question

    retriever = context.workbench.retriever(context.setup, progress)
    analyzer = analyzer_for(context.setup)
    not_reranked, reranker = "", None
    if context.setup.rerank:
        from ranklens.engine.errors import RanklensError
        from ranklens.engine.neural.rerank import reranker_for

        progress(0, 1, f"loading the reranker {context.setup.rerank}")
        try:
            reranker = reranker_for(retriever)  # loaded once per process: seconds
        except RanklensError as error:  # the first stage's results stand, and say why they are not reranked
            not_reranked = f"{error}; the first stage's results, not reranked"
    if reranker is not None:
        result, rows = _reranked(retriever, analyzer, context.query, reranker, progress)
    else:
        result = retriever.search(context.query)
        rows = [_row(retriever, analyzer, hit, result.terms) for hit in result.hits]
    # A known question (sent from Metrics, or typed: case, spaces, end punctuation aside): its relevant chunks get
    # a ✓. Grades and ✓ come from the judgments the numbers count (the context's judged corpus), one source: a
    # grade read from the workspace beside them showed 0 next to a ✓ the corpus' qrels gave.
    question = known_question(context.query, retriever.corpus.questions)
    grades = retriever.judged(question) if question is not None else {}
    relevant = frozenset(i for i, grade in grades.items() if grade > 0)
    shown = {row.hit.index for row in rows}
    unseen = tuple(retriever.chunks[i].id for i in sorted((i for i in relevant if i not in shown),
                                                          key=lambda i: (-grades.get(i, 1), i)))
    lost = lost_words(retriever, context.query)
    said = [("not in the corpus", [w.word for w in lost if w.reason == "not in the vocabulary"]),
            ("stop words", [w.word for w in lost if w.reason == "stop word"]),
            # a user's retriever's hits the corpus cannot place: their ranks are the table's missing ones
            ("hits not in the corpus", [f"#{u.rank} {u.run_id}" for u in result.unplaced])]
    return Found(context, rows, result.note or "No chunk matches.", tuple(result.terms), relevant,
                 question is not None and question.answerable,
                 " · ".join(f"{name}: {', '.join(words)}" for name, words in said if words), grades, unseen,
                 not_reranked)


def _reranked(retriever: Retriever, analyzer: Analyzer, text: str, reranker: Reranker,
              progress: Progress) -> tuple[SearchResult, list[ResultRow]]:
    """The first stage's results reread by the setup's reranker."""
    from ranklens.engine.neural.rerank import rerank_search
    from ranklens.engine.retriever import Hit

    progress(0, 1, f"reranking with {retriever.setup.rerank}")
    reranked = rerank_search(retriever, text, reranker=reranker)
    rows = [_row(retriever, analyzer,
                 Hit(hit.rank, hit.index, hit.chunk, hit.first_score if hit.rerank_score is None else hit.rerank_score),
                 reranked.first.terms, Reread(hit.first_rank, hit.first_score, hit.rerank_score))
            for hit in reranked.hits]
    return reranked.first, rows


def why_not(context: Context, chunk: str, progress: Progress) -> Why:
    """engine/why.py's report on ``chunk`` for the context's query."""
    return explained_why(context.workbench.retriever(context.setup, progress), context.query, chunk)


def grade_result(text: str, chunk: Chunk, grade: int | None, workspace: Workspace, corpus: Corpus) -> str:
    """Grade ``chunk`` (with the text it covers) for the question asking ``text`` (saved as one first if it is
    not): a ChangeWorkspace."""
    question, added = workspace.question_for(text, corpus)
    workspace.judge(question.id, chunk.id, grade, span=chunk.text_span)
    return f"saved the query as question {question.id}" if added else ""


def save_question(text: str, workspace: Workspace, corpus: Corpus) -> str:
    question, added = workspace.question_for(text, corpus)
    return f"saved as question {question.id}" if added else f"already a question: {question.id}"


def undo_judgment(workspace: Workspace, corpus: Corpus) -> str:
    from ranklens.engine.judging.raters import shown_rater

    undone = workspace.undo()
    if undone is None:
        return f"no judgment of {shown_rater(workspace.rater)}'s to undo"
    back = "unjudged" if undone.grade is None else f"grade {undone.grade}"
    return f"undone: {undone.id} for question {undone.question} is {back} again"


def _row(retriever: Retriever, analyzer: Analyzer, hit: Hit, terms: Sequence[str],
         reread: Reread | None = None) -> ResultRow:
    document = retriever.corpus.document(hit.chunk.doc_id)
    text = hit.chunk.text[:SNIPPET_CHARS * 4]  # spans past the snippet are never shown
    return ResultRow(hit, one_line(document.title or document.id, 40),
                     snippet(text, matched_spans(analyzer, text, terms), SNIPPET_CHARS), reread)


def explain(context: Context, row: ResultRow, terms: tuple[str, ...], progress: Progress) -> Explained:
    """The row's score term by term (the first stage's, when a reranker reread it), and its chunk with
    the query's terms marked."""
    hit = row.hit
    retriever = context.workbench.retriever(context.setup, progress)
    explanation = retriever.explain(context.query, hit.index)
    text = highlighted(hit.chunk.text, matched_spans(analyzer_for(context.setup), hit.chunk.text, terms))
    document = retriever.corpus.document(hit.chunk.doc_id)
    heading = Text(f"#{hit.rank}  {_scores(row)}  ", style="bold")
    heading.append_text(safe_text(f"{document.title or document.id} · {hit.chunk.id}", keep_newlines=False))
    if document.file:  # where the chunk came from: its file, page and heading path
        heading.append("\n")
        heading.append_text(safe_text(citation(document, hit.chunk), keep_newlines=False))
    return Explained(heading, text, explanation)


def _scores(row: ResultRow) -> str:
    reread = row.reread
    if reread is None:
        return f"score {row.hit.score:.4f}"
    first = f"first stage #{reread.first_rank}, score {reread.first_score:.4f}"
    if reread.score is None:
        return f"{first} (below the reranked top)"
    return f"rerank score {reread.score:.4f} ({first}; explained below)"


def list_documents(context: Context, progress: Progress) -> Documents:
    """The context's chunks grouped by document, for the tree (the chunks only: the app builds the index and
    the scorer, and says how that goes on the setup line)."""
    from ranklens.engine.corpus.tables import DocumentTable

    chunks = context.workbench.chunks(context.setup, progress)
    documents = context.corpus.documents
    if chunks is context.corpus.chunks and isinstance(documents, DocumentTable):
        return Documents(context, chunks, documents.chunks_by_document())  # read from the cache's columns
    by_document: dict[str, list[int]] = {}
    for position, chunk in enumerate(chunks):
        by_document.setdefault(chunk.doc_id, []).append(position)
    return Documents(context, chunks, by_document)


def placeholder_for(corpus: Corpus) -> str:
    """The query box's hint, with one of the corpus' own questions as the example (in its language)."""
    example = next((q.text for q in corpus.questions if q.text.strip()), "")
    if not example:
        return "Ask a question about the documents"
    return f"Ask a question, e.g. {one_line(example, 60)}"

