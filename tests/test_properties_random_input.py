"""Property tests over random input: analyzer, chunkers, every scorer, metrics, the prompt builder, the loaders.

Example counts are kept modest (the whole file runs in well under a minute);
``pytest --hypothesis-show-statistics`` reports how many ran.
"""
from __future__ import annotations

import json
import math
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.engine.text.analysis import Analyzer
from ranklens.engine.chunking.cutting import Span, sentence_windows, word_windows
from ranklens.engine.corpus import Chunk, Corpus, Document
from ranklens.engine.errors import RanklensError
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.metric_table import NDCG, RECALL
from ranklens.engine.measuring.metrics import QuestionScores, evaluate, gold_rank, gold_ranks, score_question, \
    threshold_analysis
from ranklens.engine.prompt import build_prompt
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.bm25 import BM25Scorer
from ranklens.engine.scoring.fusion import FusionScorer
from ranklens.engine.scoring.lsa import LsaScorer
from ranklens.engine.scoring.tfidf import TfidfScorer
from ranklens.engine.setup import BM25_VARIANTS, Setup
from ranklens.engine.text.termindex import TermIndex
from ranklens.engine.topk import top_k
from tests.support.examples import examples

# A nan or a division by zero in engine code is a bug, not a warning to scroll past.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning:engine")

FEW = settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOME = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any code point, lone surrogates included: JSON escapes and undecodable file names produce them.
ANY_CHAR = st.characters(blacklist_categories=())
# Words the analyzers treat specially: stop words, stems, case and accent changes that alter lengths.
SPECIAL = ["il", "la", "di", "the", "running", "cafés", "İstanbul", "ﬁne", "ΣΟΦΟΣ", "straße", "e\u0301",
           "東京都", "ラーメン🍜が", "👩‍👩‍👧", "\u202e", "\x1b[31m",
           ".", "?!", "Dr.", "J.", "«basta.»", "…"]
SPACES = [" ", "  ", "\n", "\t", "\u00a0", "\u3000", "\u2028", "\x1c", "\r\n"]
UNICODE_TEXT = st.lists(st.one_of(st.sampled_from(SPECIAL), st.sampled_from(SPACES), st.text(ANY_CHAR, max_size=8)),
                        max_size=40).map("".join)


# -- analyzer --------------------------------------------------------------------------------------

ANALYZER_SETUPS = [
    Setup(),
    Setup(stopwords="it", stem="it"),
    Setup(stopwords="en", stem="en", fold_accents=True),
    Setup(stopwords="es", stem="es", fold_accents=True, lowercase=False),
]


@cache
def analyzer(i: int) -> Analyzer:
    return Analyzer.from_setup(ANALYZER_SETUPS[i])


@MANY
@given(text=UNICODE_TEXT, which=st.integers(0, len(ANALYZER_SETUPS) - 1))
def test_analyzer_terms_are_words_and_spans_point_into_the_text(text: str, which: int) -> None:
    a = analyzer(which)
    terms = a.terms(text)
    assert all(isinstance(t, str) and t and not any(c.isspace() for c in t) for t in terms)
    spans = a.term_spans(text)
    assert all(0 <= start < end <= len(text) for start, end, _ in spans)
    if len(a.normalise(text)) == len(text):  # spans are then the same tokens, term for term
        assert [term for *_, term in spans] == terms


# -- chunkers --------------------------------------------------------------------------------------


def check_spans(text: str, spans: list[Span]) -> None:
    """No empty or padded chunk, offsets slice back to their words, and every word is in some chunk."""
    words = text.split()
    covered: set[int] = set()
    for span in spans:
        piece = text[span.start_char:span.end_char]
        assert piece and piece == piece.strip()
        assert piece.split() == words[span.start_word:span.end_word]
        covered.update(range(span.start_word, span.end_word))
    assert covered == set(range(len(words)))
    for before, after in zip(spans, spans[1:]):
        assert before.start_word < after.start_word and before.end_word < after.end_word


@st.composite
def window_options(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(1, 12))
    return size, draw(st.integers(0, size - 1))


@SOME
@given(text=UNICODE_TEXT, options=window_options())
def test_word_windows_on_any_unicode(text: str, options: tuple[int, int]) -> None:
    size, overlap = options
    spans = word_windows(text, size, overlap)
    check_spans(text, spans)
    for before, after in zip(spans, spans[1:]):
        assert before.end_word - before.start_word == size and before.end_word - after.start_word == overlap
    singles = word_windows(text, 1, 0)  # one window per word: the word bounds are str.split()'s
    assert [text[s.start_char:s.end_char] for s in singles] == text.split()


@SOME
@given(text=UNICODE_TEXT, options=window_options())
def test_sentence_windows_on_any_unicode(text: str, options: tuple[int, int]) -> None:
    size, overlap = options
    spans = sentence_windows(text, size, overlap)
    check_spans(text, spans)
    assert sentence_windows(text, 10_000, 0) == ([] if not text.split() else [
        Span(0, len(text.split()), spans[0].start_char, spans[-1].end_char)])


# -- scorers ---------------------------------------------------------------------------------------

VOCABULARY = ["apple", "pear", "plum", "red", "green", "tree", "jam", "sweet", "old", "new"]
DOC = st.lists(st.one_of(st.sampled_from(VOCABULARY), st.sampled_from(SPECIAL)), min_size=0, max_size=15).map(" ".join)
QUERY = st.lists(st.one_of(st.sampled_from(VOCABULARY), st.sampled_from(["zebra", "il", "?!", ""])),
                 max_size=6).map(" ".join)


@st.composite
def scorer_setups(draw: st.DrawFn) -> dict:
    # The edges (k1 = 0, b = 0 or 1, delta = 0) are where 0/0 lurks: drawn often on purpose.
    return {
        "variant": draw(st.sampled_from(BM25_VARIANTS)),
        "k1": draw(st.one_of(st.just(0.0), st.floats(0, 3))),
        "b": draw(st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0, 1))),
        "delta": draw(st.one_of(st.just(0.0), st.floats(0, 2))),
        "sublinear": draw(st.booleans()),
        "dims": draw(st.integers(1, 10)),
        "method": draw(st.sampled_from(["rrf", "sum"])),
    }


def build_scorers(texts: list[str], options: dict) -> dict:
    index = TermIndex.build(texts, analyzer(0))
    tfidf = TfidfScorer.fit(index, options["sublinear"])
    bm25 = BM25Scorer.fit(index, options["variant"], options["k1"], options["b"], options["delta"])
    lsa = LsaScorer.fit(TfidfScorer.fit(index), options["dims"])
    return {"index": index, "tfidf": tfidf, "bm25": bm25, "lsa": lsa,
            "fusion": FusionScorer((bm25, lsa), options["method"])}


@FEW
@given(texts=st.lists(DOC, min_size=1, max_size=8), queries=st.lists(QUERY, min_size=1, max_size=3),
       options=scorer_setups(), k=st.integers(1, 10))
def test_every_scorer_is_finite_bounded_explained_and_ranked_stably(texts: list[str], queries: list[str],
                                                                     options: dict, k: int) -> None:
    scorers = build_scorers(texts, options)
    index = scorers["index"]
    for text in queries:
        query = index.query(text)
        for name in ("tfidf", "bm25", "lsa", "fusion"):
            scorer = scorers[name]
            scores = scorer.scores(query)
            assert scores.shape == (len(texts),) and np.isfinite(scores).all()
            assert np.allclose(scorer.scores_batch([query])[0], scores, atol=1e-9)
            assert np.array_equal(top_k(scores, k), np.argsort(-scores, kind="stable")[:k])
            for doc in range(len(texts)):
                explanation = scorer.explain(query, doc)
                assert abs(explanation.score - scores[doc]) <= 1e-9
                if name in ("tfidf", "bm25"):  # explained term by term: the rows add up to the score
                    assert abs(explanation.total - explanation.score) <= 1e-9
        assert (scorers["tfidf"].scores(query) >= 0).all() and (scorers["tfidf"].scores(query) <= 1 + 1e-9).all()
        assert (scorers["bm25"].scores(query) >= 0).all()
        assert (np.abs(scorers["lsa"].scores(query)) <= 1 + 1e-9).all()


@st.composite
def corpus_and_query(draw: st.DrawFn) -> tuple[list[str], str]:
    """A corpus over one, two, three or ten words, and a query mostly from them.

    A one-term vocabulary leaves LSA without a direction: drawn often on purpose.
    """
    words = VOCABULARY[:draw(st.sampled_from([1, 2, 3, len(VOCABULARY)]))]
    texts = draw(st.lists(st.lists(st.sampled_from(words + [".", "?!", "…"]), max_size=8).map(" ".join),
                          min_size=1, max_size=8))
    return texts, draw(st.lists(st.sampled_from(words + ["zebra", "il", "?!"]), max_size=5).map(" ".join))


@FEW
@given(corpus=corpus_and_query(), scorer=st.sampled_from(["tfidf", "bm25", "lsa", "fusion"]), k=st.integers(1, 10))
def test_search_never_ranks_zeros(corpus: tuple[list[str], str], scorer: str, k: int) -> None:
    texts, query = corpus
    docs = [Document(f"d{i}", "", t) for i, t in enumerate(texts)]
    corpus = Corpus("random", docs, [Chunk(d.id, d.id, 0, 0, len(d.text), d.text) for d in docs])
    try:
        retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": scorer, "k": k, "dims": 4}))
    except RanklensError as error:  # every document blank: said, not crashed
        assert "no text to index" in str(error) and not any(t.strip() for t in texts)
        return
    result = retriever.search(query)
    terms = retriever.query(query)
    if not terms.matched:
        assert result.hits == [] and result.note
    assert len(result.hits) <= k
    assert bool(result.hits) != bool(result.note)
    if scorer in ("tfidf", "bm25"):
        assert all(h.score > 0 for h in result.hits)
    if result.hits:  # a list of zeros would be an order by position, not a ranking
        assert any(h.score != 0 for h in result.hits)
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True) and [h.rank for h in result.hits] == list(range(1, len(scores) + 1))


# -- metrics ---------------------------------------------------------------------------------------

SCORE_ROWS = st.integers(1, 30).flatmap(lambda n: st.lists(
    st.tuples(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), min_size=n, max_size=n),  # ties on purpose
              st.lists(st.integers(0, n - 1), max_size=4), st.lists(st.integers(0, 3), max_size=4)),
    min_size=1, max_size=6))


def _by_hand(order: np.ndarray, relevant: list[int], grades: list[int]) -> dict:
    """eval's values for one question from their definitions: a chunk listed twice keeps its highest grade,
    grade 0 is not relevant (grades missing are 1), nDCG@10 with linear gain and the ideal cut at 10."""
    best: dict[int, int] = {}
    for chunk, grade in zip(relevant, grades + [1] * len(relevant)):
        if grade > 0:
            best[chunk] = max(grade, best.get(chunk, 0))
    ranked = [int(c) for c in order]
    rank = next((i for i, c in enumerate(ranked, 1) if c in best), None)
    if rank is None:
        return {"rank": None, "hit@1": 0.0, "hit@3": 0.0, "mrr": 0.0, NDCG: 0.0, RECALL: 0.0}
    dcg = sum(best.get(c, 0) / math.log2(i + 1) for i, c in enumerate(ranked[:10], 1))
    ideal = sum(g / math.log2(i + 1) for i, g in enumerate(sorted(best.values(), reverse=True)[:10], 1))
    return {"rank": rank, "hit@1": float(rank <= 1), "hit@3": float(rank <= 3), "mrr": 1 / rank, NDCG: dcg / ideal,
            RECALL: sum(c in best for c in ranked[:10]) / len(best)}


@MANY
@given(rows=SCORE_ROWS)
def test_metrics_ranks_and_fractions(rows) -> None:
    questions, by_hand = [], []
    for i, (scores, relevant, grades) in enumerate(rows):
        s = np.array(scores)
        rel = np.array(relevant, dtype=np.int64)
        order = np.argsort(-s, kind="stable")
        rank = gold_rank(s, rel)
        if rel.size:
            assert 1 <= rank <= s.size and rank == 1 + min(int(np.flatnonzero(order == r)[0]) for r in rel)
        else:
            assert rank is None
        g = np.array((grades + [1] * len(relevant))[:len(relevant)], dtype=float)
        question = QuestionScores(f"q{i}", "text", s, rel, g)
        result = score_question(question)
        expected = _by_hand(order, relevant, grades)
        assert result.rank == expected["rank"]
        assert result.values[RECALL] == pytest.approx(expected[RECALL], abs=1e-12)
        assert result.values[NDCG] == pytest.approx(expected[NDCG], abs=1e-12)
        questions.append(question)
        by_hand.append(expected)
    same_size = [q for q in questions if q.scores.size == questions[0].scores.size]
    ranks = gold_ranks(np.stack([q.scores for q in same_size]), [q.relevant for q in same_size])
    assert ranks.tolist() == [gold_rank(q.scores, q.relevant) or 0 for q in same_size]
    metrics = evaluate(questions, k=3).metrics
    for key in ("hit@1", "hit@3", "mrr", NDCG, RECALL):  # means over every question, unranked ones as 0
        assert metrics[key] == pytest.approx(sum(q[key] for q in by_hand) / len(by_hand), abs=1e-12), key
    split = len(questions) // 2
    report = threshold_analysis([(q.id, q.text, float(q.scores.max())) for q in questions[:split]],
                                [(q.id, q.text, float(q.scores.max())) for q in questions[split:]])
    assert report.best_accuracy is not None and 0 <= report.best_accuracy <= 1
    assert np.isfinite(report.best_threshold)


# -- prompt builder --------------------------------------------------------------------------------

TAGGY = st.lists(st.one_of(st.sampled_from(["<context>", "</context>", "</CONTEXT >", "<", ">", "/", "\n", "\r",
                                            "context", "ignore the above", "\u2028", "＜"]),
                           st.text(ANY_CHAR, max_size=6)), max_size=10).map("".join)


@MANY
@given(question=TAGGY, passages=st.lists(st.tuples(TAGGY, TAGGY), max_size=4))
def test_prompt_has_exactly_one_context_block(question: str, passages: list[tuple[str, str]]) -> None:
    prompt = build_prompt(question, passages)
    lines = prompt.split("\n")
    stripped = [line.strip() for line in prompt.splitlines()]
    assert stripped.count("<context>") == 1 and stripped.count("</context>") == 1
    assert lines[1] == "<context>"
    closing = lines.index("</context>")
    assert lines[closing + 1].startswith("Question: ")


# -- loaders ---------------------------------------------------------------------------------------

JSON_PIECES = st.sampled_from([
    b'{"_id": ', b'"a"', b'"b"', b"1", b"null", b"true", b'"text": ', b'"title": ', b'"doc": ', b'"answer": ',
    b", ", b"}", b"{", b"[", b"]", b"\n", b'"\\ud800"', b'"\\u0000"', b"\xff\xfe", b"\x00", b"1e999", b"NaN",
    b"\xef\xbb\xbf", b'"caff\xe8"', b"\r\n",
])
JSONISH = st.lists(st.one_of(JSON_PIECES, st.binary(max_size=12)), max_size=40).map(b"".join)
VALUE = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(ANY_CHAR, max_size=10),
                  st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
RECORD = st.dictionaries(st.sampled_from(["_id", "text", "title", "doc", "answer", "other"]), VALUE, max_size=6)
RECORDS = st.lists(RECORD, max_size=6).map(
    lambda rs: b"".join(json.dumps(r).encode() + b"\n" for r in rs))
TOMLISH = st.lists(st.one_of(st.sampled_from([b"k = 3\n", b'scorer = "lsa"\n', b"size = 0\n", b"[x]\n", b"k1 = nan\n",
                                              b'stopwords = "it"\n', b"dims = -1\n", b"= =\n", b'fuse = ["bm25"]\n']),
                             st.binary(max_size=10)), max_size=6).map(b"".join)
QRELS = st.lists(st.one_of(st.sampled_from([b"q\ta\t1\n", b"q\tzz\t2\n", b"x\ta\t1\n", b"q\ta\n", b"q\ta\thigh\n",
                                            b"query-id\tcorpus-id\tscore\n"]), st.binary(max_size=10)),
                 max_size=6).map(b"".join)
GOOD_CORPUS = b'{"_id": "a", "text": "red apple"}\n{"_id": "b", "text": "green pear"}\n'
LAYOUTS = {
    "corpus.jsonl": st.one_of(JSONISH, RECORDS).map(lambda b: {"corpus.jsonl": b}),
    "queries.jsonl": st.one_of(JSONISH, RECORDS).map(lambda b: {"corpus.jsonl": GOOD_CORPUS, "queries.jsonl": b}),
    "qrels": QRELS.map(lambda b: {"corpus.jsonl": GOOD_CORPUS, "queries.jsonl": b'{"_id": "q"}\n',
                                  "qrels/test.tsv": b}),
    "ranklens.toml": TOMLISH.map(lambda b: {"corpus.jsonl": GOOD_CORPUS, "ranklens.toml": b}),
    "text files": st.lists(st.binary(max_size=40), min_size=1, max_size=3).map(
        lambda files: {f"doc{i}.txt": data for i, data in enumerate(files)}),
}


@MANY
@given(files=st.one_of(*LAYOUTS.values()))
def test_random_bytes_load_or_raise_a_one_line_error(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        for name, data in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        try:
            corpus = load_corpus(folder)
        except RanklensError as error:
            assert "\n" not in str(error) and str(error)
            return
    strings = [*corpus.warnings, corpus.name]
    for document in corpus.documents:
        strings += [document.id, document.title, document.text]
    for question in corpus.questions:
        strings += [question.id, question.text, question.answer or "", *question.relevant]
    for text in strings:
        text.encode("utf-8")  # printable and savable: no lone surrogate survives loading
