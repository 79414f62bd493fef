"""A scorer added in one module plus one registration line is everywhere: setup, CLI, TUI keys, eval."""
from __future__ import annotations

import numpy as np
import pytest

from ranklens.cli.main import build_parser
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.scoring.registry import fusable_names, registered, scorer_names, spec
from ranklens.engine.setup import Setup
from ranklens.tui.setting_steps import STEPS_BY_ID
from tests.support.cli import run_cli
from tests.support.toy_scorer import SPEC


@pytest.fixture()
def coord():
    with registered(SPEC) as spec_:
        yield spec_


def test_the_registry_lists_the_built_in_scorers_in_order() -> None:
    assert scorer_names()[:5] == ("tfidf", "bm25", "lsa", "fusion", "dense")
    assert fusable_names() == ("tfidf", "bm25", "lsa", "dense")
    assert spec("bm25").describe(Setup()) == "BM25 lucene k1=1.2 b=0.75"


def test_a_registered_scorer_is_a_valid_setup_and_fusable(coord) -> None:
    assert Setup.from_mapping({"scorer": "coord"}).scorer == "coord"
    assert Setup.from_mapping({"scorer": "fusion", "fuse": "bm25,coord"}).fuse == ("bm25", "coord")
    assert "coord" in scorer_names()


def test_an_unregistered_scorer_is_refused_by_name() -> None:
    with pytest.raises(Exception, match="unknown scorer 'coord'"):
        Setup.from_mapping({"scorer": "coord"})


def test_the_command_line_offers_it(coord) -> None:
    search = build_parser()._subparsers._group_actions[0].choices["search"]  # noqa: SLF001 - argparse has no public way
    scorer = next(a for a in search._actions if a.dest == "scorer")  # noqa: SLF001
    assert "coord" in scorer.choices


def test_the_tui_scorer_key_cycles_to_it(coord) -> None:
    step = STEPS_BY_ID["scorer"]
    assert scorer_names()[-2:] == ("dense", "coord")  # registered last, it comes last
    assert step.change(Setup(scorer="dense"), {}) == {"scorer": "coord"}
    assert step.change(Setup(scorer="coord"), {}) == {"scorer": "tfidf"}


def test_it_ranks_and_evaluates_through_the_retriever(coord) -> None:
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "coord"}))
    query = retriever.query("rimborso spese automobile")
    # the oracle: distinct query terms present in each chunk, counted from the chunk's own terms
    analyze = retriever.index.analyzer.terms
    expected = np.array([len(set(query.terms) & set(analyze(c.text))) for c in retriever.chunks], dtype=float)
    assert np.array_equal(retriever.scores(query), expected)
    hits = retriever.search("rimborso spese automobile", k=3).hits
    # chunks sharing no term score 0 and are not results, as for every scorer that does not rank all
    assert [h.score for h in hits] == sorted(expected[expected > 0], reverse=True)[:3]
    assert retriever.setup.describe().startswith("coordination level")


def test_eval_on_the_command_line_runs_it(coord, capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "eval", "studio-alfa", "--scorer", "coord", "--json")
    assert run.status == 0, run.err
    assert run.json["questions"] == 15
    # the oracle: rank each question's gold passage by its count of distinct query terms, ties in corpus order
    corpus = load_corpus("studio-alfa")
    retriever = Workbench(corpus).retriever(setup_for(corpus, {"scorer": "coord"}))
    analyze = retriever.index.analyzer.terms
    chunk_terms = [set(analyze(c.text)) for c in retriever.chunks]
    ranks = []
    for question in corpus.answerable:
        wanted = set(analyze(question.text))
        counts = np.array([len(wanted & terms) for terms in chunk_terms], dtype=float)
        (gold,) = retriever.relevant(question)
        ranks.append(int(np.flatnonzero(np.argsort(-counts, kind="stable") == gold)[0]) + 1)
    assert ranks == [1, 7, 1, 4, 2, 1, 1, 1, 2, 1, 12, 1, 5, 1, 4]
    assert run.json["metrics"]["mrr"] == pytest.approx(np.mean([1 / r for r in ranks]), abs=1e-12)
    assert run.json["metrics"]["hit@1"] == pytest.approx(ranks.count(1) / 15)


def test_the_metrics_table_over_scorers_includes_it_under_its_own_label(coord) -> None:
    from ranklens.engine.experiments.scorers import compare_scorers

    corpus = load_corpus("studio-alfa")
    table = compare_scorers(Workbench(corpus), setup_for(corpus))
    rows = {row.scorer: row.label for row in table.scorers}
    assert rows["coord"] == "coordination level"
    assert rows["bm25"] == "BM25 lucene" and rows["fusion"] == "fusion bm25+lsa"


async def test_the_metrics_tab_shows_it_as_a_column(coord) -> None:
    from ranklens.tui.app import make_app
    from tests.support.app import opened, settle

    app = make_app("studio-alfa", {"scorer": "coord"}, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await opened(pilot)
        await pilot.press("escape", "2")
        await settle(pilot)
        questions = app.query_one("#metrics-questions")
        headings = [column.label for column in questions.columns]
        assert "Coord" in headings and "BM25" in headings
