"""Questions by a field (engine/comparing/strata.py): grouping against hand-made groups, and the measures per stratum
against the per-question values grouped by hand."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.engine.comparing.two_runs import compare_runs, setup_side
from ranklens.engine.corpus import Question
from ranklens.engine.errors import RanklensError
from ranklens.engine.experiments.scorers import compare_scorers
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.comparing.strata import (LENGTH, NONE, check_field, compare_strata, field_paths, length_bucket,
                                    scorer_strata, stratify)
from tests.support.seeds import SEED_TFIDF_RANKS
from tests.support.tagged import studio_answerable, tagged_corpus, tags_of



def q(qid: str, text: str = "a question", **fields: object) -> Question:
    return Question(qid, text, {"c0": 1}, fields=fields)


QUESTIONS = [
    q("q1", tags=["hr", "it"], metadata={"type": "list", "year": 2020}),
    q("q2", tags=["it"], metadata={"type": "fact", "year": 2021}),
    q("q3", tags=[], metadata={"type": "fact"}),
    q("q4", tags=["hr", "hr"], level=2),
    q("q5", level=10, flag=True),
    q("q6", tags=None, level=2.5),
]


def groups(strata: list) -> dict[str, list[str]]:
    return {s.name: [QUESTIONS[i].id for i in s.members] for s in strata}


def test_a_list_puts_a_question_in_one_stratum_per_element() -> None:
    assert groups(stratify(QUESTIONS, "tags")) == {"hr": ["q1", "q4"], "it": ["q1", "q2"],
                                                   NONE: ["q3", "q5", "q6"]}  # [], missing and null alike


def test_a_dotted_path_reads_inside_an_object_and_numbers_sort_as_numbers() -> None:
    assert groups(stratify(QUESTIONS, "metadata.type")) == {"fact": ["q2", "q3"], "list": ["q1"],
                                                            NONE: ["q4", "q5", "q6"]}
    assert list(groups(stratify(QUESTIONS, "level"))) == ["2", "2.5", "10", NONE]  # not "10" before "2"
    assert groups(stratify(QUESTIONS, "flag")) == {"true": ["q5"], NONE: ["q1", "q2", "q3", "q4", "q6"]}


def test_the_fields_there_are_and_length_last() -> None:
    assert field_paths(QUESTIONS) == ["flag", "level", "metadata.type", "metadata.year", "tags", LENGTH]


@pytest.mark.parametrize(("words", "bucket"), [(1, "1-4 words"), (4, "1-4 words"), (5, "5-8 words"),
                                               (8, "5-8 words"), (9, "9-16 words"), (17, "17-32 words"),
                                               (32, "17-32 words"), (33, "33+ words"), (400, "33+ words")])
def test_length_buckets(words: int, bucket: str) -> None:
    assert length_bucket(words) == bucket


def test_length_strata_count_words_and_leave_empty_buckets_out() -> None:
    texts = ["one", "two words here now", "a b c d e", " ".join(["w"] * 40), "x  y\tz"]
    questions = [Question(f"q{i}", text) for i, text in enumerate(texts)]
    strata = stratify(questions, LENGTH)
    by_hand: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        n = len(text.split())
        name = "1-4 words" if n <= 4 else "5-8 words" if n <= 8 else "33+ words"
        by_hand.setdefault(name, []).append(i)
    assert {s.name: list(s.members) for s in strata} == by_hand
    assert [s.name for s in strata] == ["1-4 words", "5-8 words", "33+ words"]


def test_an_unknown_field_names_the_fields_there_are() -> None:
    with pytest.raises(RanklensError) as error:
        check_field(QUESTIONS, "tag")
    message = str(error.value)
    assert "no question has a field 'tag'" in message and "tags" in message and "metadata.type" in message
    assert "\n" not in message
    with pytest.raises(RanklensError, match="'metadata' is an object.*metadata.type, metadata.year"):
        stratify(QUESTIONS, "metadata")
    check_field([], LENGTH)  # length needs no field


def test_scorer_strata_are_the_seed_ranks_grouped_by_hand() -> None:
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    result = compare_scorers(workbench, setup_for(corpus), scorers=["tfidf", "bm25"])
    strata = scorer_strata(result, corpus.questions, "tags")
    tags = {r["_id"]: r["tags"] for r in studio_answerable()}
    answerable = [question.id for question in corpus.answerable]
    assert answerable == list(tags)
    by_hand: dict[str, list[float]] = {}
    for qid, rank in zip(answerable, SEED_TFIDF_RANKS):
        for tag in tags[qid] or [NONE]:
            by_hand.setdefault(tag, []).append(1 / rank)
    assert {s.stratum: s.questions for s in strata} == {tag: len(v) for tag, v in by_hand.items()}
    for stratum in strata:
        assert stratum.means["tfidf"]["mrr"] == pytest.approx(sum(by_hand[stratum.stratum]) / stratum.questions)
    bm25 = {row.id: row.values for row in result.scorers[1].evaluation.per_question}
    for stratum in strata:
        members = [qid for qid in answerable if stratum.stratum in tags[qid]]
        for key, mean in stratum.means["bm25"].items():
            assert mean == pytest.approx(sum(bm25[qid][key] for qid in members) / len(members)), key


def test_compare_strata_are_the_per_question_values_grouped_by_hand(tmp_path: Path) -> None:
    corpus = load_corpus(tagged_corpus(tmp_path / "pets"))
    workbench = Workbench(corpus)
    a = setup_side("lsa", workbench, setup_for(corpus, {"scorer": "lsa", "dims": 1, "k": 100}))
    b = setup_side("bm25", workbench, setup_for(corpus, {"k": 100}))
    comparison = compare_runs(a, b, corpus.questions, "nDCG@10 MRR@10 P@1", permutations=1000)
    strata = compare_strata(comparison, corpus.questions, "tags")
    tags = tags_of()
    assert [s.stratum for s in strata] == ["home", "money", "pets", NONE]
    for stratum in strata:
        rows = [row for row in comparison.questions if stratum.stratum in tags[row.id]]
        assert stratum.questions == len(rows)
        for name, measured in stratum.metrics.items():
            va, vb = [row.a[name] for row in rows], [row.b[name] for row in rows]
            assert measured.a == pytest.approx(sum(va) / len(va))
            assert measured.b == pytest.approx(sum(vb) / len(vb))
            assert measured.delta == pytest.approx(measured.b - measured.a)
            assert (measured.wins, measured.ties, measured.losses) == (
                sum(y > x for x, y in zip(va, vb)), sum(y == x for x, y in zip(va, vb)),
                sum(y < x for x, y in zip(va, vb)))
    # a field only unjudged questions have is a field: every compared question is then in (none)
    unjudged = [*corpus.questions, Question("q9", "not judged", fields={"source": "forum"})]
    assert [(s.stratum, s.questions) for s in compare_strata(comparison, unjudged, "source")] == [(NONE, 5)]
