"""One ranking rule everywhere: a chunk that matches nothing is not retrieved.

Oracle: trec_eval's definitions (pytrec_eval) over the TREC run file of the same setup
(``ranklens run ... --output``), read here line by line, the qrels written out by hand
(the corpus' file plus the user's judgment). eval's per-question numbers (--json) and its
metrics must equal them for every scorer, on the bundled lesson corpus, on a BEIR folder
whose gold chunks partly share no word with their question, with a judgment of the user's
own in the workspace; and through each Qdrant backend (Edge and the client's local mode).
Before the rule, eval ranked a chunk that matches nothing in corpus order after the
matching ones, and counted it where the run left it out.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ranklens.cli.main import main
from ranklens.engine.corpus import Corpus
from ranklens.engine.experiments.weights import fusion_sweep
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.measuring.runs import make_run
from ranklens.engine.setup import Setup
from ranklens.engine.measuring.trec import write_run
from ranklens.engine.workspace.store import Workspace
from ranklens.tui.panes.metrics import MetricsPane
from tests.support.app import running, search
from tests.support.cli import run_cli
from tests.support.files import beir_folder
from tests.support.panes import screen_text, settle, until
from tests.support.trec_oracle import SAME, assert_eval_is_trec_evals, corpus_qrels, read_run, trec_eval

SCORERS = {
    "tfidf": ["--scorer", "tfidf"],
    "bm25": ["--scorer", "bm25"],
    "bm25l": ["--scorer", "bm25", "--bm25-variant", "bm25l"],  # a chunk without the terms scores above 0
    "lsa": ["--scorer", "lsa", "--dims", "8"],
    "fusion": ["--scorer", "fusion"],  # RRF of BM25 and LSA
    "fusion-zscore": ["--scorer", "fusion", "--fuse", "tfidf,bm25", "--fusion-method", "zscore"],
}
WORDS = [f"w{i}" for i in range(60)]


def beir_collection(folder: Path) -> Path:
    """40 chunks of a 60-word vocabulary, graded judgments; every third question's gold chunk is drawn apart from
    its words, so it shares none of them, and the second judged chunk of others may not either."""
    rng = np.random.default_rng(7)
    texts = [" ".join(rng.choice(WORDS[:40], rng.integers(3, 9))) for _ in range(40)]
    queries, qrels = [], []
    for q in range(12):
        gold = int(rng.integers(0, 40))
        asked = rng.choice(WORDS[:40], 2) if q % 3 else rng.choice(WORDS[40:], 2)
        if q % 3 == 0:
            texts[gold] = " ".join(w for w in texts[gold].split() if w not in asked)
        queries.append({"_id": f"q{q}", "text": " ".join(asked)})
        qrels += [f"q{q}\tc{gold}\t{1 + q % 3}", f"q{q}\tc{(gold + 5) % 40}\t1"]
    return beir_folder(folder, [{"_id": f"c{i}", "text": t} for i, t in enumerate(texts)], queries,
                       "\n".join(qrels) + "\n", toml="index_title = false\n")


def words_of(text: str) -> set[str]:
    return set(re.findall(r"\w\w+", text.lower()))  # the lesson's token pattern, and BEIR's default


def unmatched_chunk(corpus: Corpus, question: str) -> str:
    """The first chunk sharing no word with the question."""
    asked = words_of(next(q.text for q in corpus.questions if q.id == question))
    return next(c.id for c in corpus.chunks if not asked & words_of(c.text))


@pytest.fixture(scope="module", params=["studio-alfa", "beir"])
def judged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """(corpus argument, workspace folder, qrels with the user's judgment, the judged question): the user judges
    relevant, grade 2, a chunk that shares no word with the question (the rule's case)."""
    tmp = tmp_path_factory.mktemp(request.param)
    corpus = "studio-alfa" if request.param == "studio-alfa" else str(beir_collection(tmp / "beir"))
    loaded = load_corpus(corpus)
    question = "q14" if request.param == "studio-alfa" else "q1"  # "rimborso con l'automobile": 7 chunks match
    chunk = unmatched_chunk(loaded, question)
    workspace = tmp / "workspace"
    assert main(["judgments", corpus, "--workspace", str(workspace), "--judge", question, chunk, "2"]) == 0
    qrels = corpus_qrels(loaded.source)
    qrels[question][chunk] = 2
    return corpus, workspace, qrels, question


@pytest.mark.parametrize("scorer", SCORERS)
def test_eval_equals_trec_eval_on_the_run_file(judged, scorer: str, capsys, tmp_path: Path) -> None:
    corpus, workspace, qrels, _ = judged
    options = [*SCORERS[scorer], "-k", "1000", "--workspace", str(workspace)]
    run_file = tmp_path / "run.txt"
    assert run_cli(capsys, "run", corpus, *options, "--output", str(run_file)).status == 0
    report = run_cli(capsys, "eval", corpus, *options, "--json").json
    assert_eval_is_trec_evals(report, run_file, qrels)


@pytest.mark.parametrize("scorer", SCORERS)
def test_the_run_holds_exactly_the_chunks_that_match(judged, scorer: str, capsys, tmp_path: Path) -> None:
    """What each scorer retrieves, counted by hand: the chunks sharing a word with the question for the term
    scorers (bm25l too, though it scores every chunk above 0); for LSA and a fusion with it every chunk, unless
    no chunk has a word of the question (no direction in LSA's space: nothing)."""
    corpus, workspace, _, _ = judged
    run_file = tmp_path / "run.txt"
    options = [*SCORERS[scorer], "-k", "1000", "--workspace", str(workspace)]
    assert run_cli(capsys, "run", corpus, *options, "--output", str(run_file)).status == 0
    run = read_run(run_file)
    loaded = load_corpus(corpus)
    for question in loaded.questions:
        asked = words_of(question.text)
        expected = {c.id for c in loaded.chunks if asked & words_of(c.text)}
        if scorer in ("lsa", "fusion") and expected:
            expected = {c.id for c in loaded.chunks}
        assert set(run.get(question.id, ())) == expected, question.id


def test_a_judged_chunk_that_matches_nothing_is_not_found(judged, capsys) -> None:
    """The user's judged chunk shares no word with its question: eval does not count it, as the run leaves it out."""
    corpus, workspace, qrels, question = judged
    report = run_cli(capsys, "eval", corpus, "--scorer", "bm25", "--workspace", str(workspace), "--json").json
    row = next(r for r in report["per_question"] if r["id"] == question)
    relevant = sum(1 for grade in qrels[question].values() if grade > 0)
    assert row["recall@10"] <= (relevant - 1) / relevant


@pytest.mark.parametrize("fuse", [("bm25", "lsa"), ("tfidf", "bm25")])
def test_the_fusion_sweep_ranks_as_eval(fuse: tuple[str, str], tmp_path: Path) -> None:
    """The sweep's nDCG@10 of each part alone and of each fusion equals eval's of the same setup (itself held to
    trec_eval above): the sweep's rankings cut what a part, or every part a fusion weighs, does not retrieve."""
    corpus = load_corpus(str(beir_collection(tmp_path / "beir")))
    workbench = Workbench(corpus)
    setup = setup_for(corpus, {"scorer": "fusion", "fuse": fuse, "dims": 8})
    sweep = fusion_sweep(workbench.retriever(setup), weights=(0.5,), folds=2)

    def ndcg_of(ranked: Setup) -> float:
        return workbench.retriever(ranked).evaluate(latency_sample=1).metrics["ndcg@10"]

    for part, ndcg in zip(fuse, sweep.part_ndcg):
        assert ndcg == pytest.approx(ndcg_of(setup.replace(scorer=part)), abs=1e-12), part
    for candidate, ndcg in zip(sweep.candidates, sweep.ndcg):
        fused = setup.replace(fusion_method=candidate.method, fusion_weight=candidate.weight or 0.5)
        assert ndcg == pytest.approx(ndcg_of(fused), abs=1e-12), candidate


# -- through Qdrant ---------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["edge", "client-local-mode"])
def through_qdrant(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """(the BEIR folder with the user's judgment applied, its retriever through a pushed collection, qrels)."""
    pytest.importorskip("qdrant_client", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]')")
    pytest.importorskip("qdrant_edge", reason="the qdrant extra is not installed (pip install 'ranklens[qdrant]')")
    from ranklens.engine.backends.qdrant import QdrantBackend, client_push, open_collection, push

    push_to, open_at = {"edge": (push, open_collection),
                        "client-local-mode": (client_push.push, QdrantBackend.open)}[request.param]
    tmp = tmp_path_factory.mktemp(request.param)
    folder = beir_collection(tmp / "beir")
    workspace = Workspace(tmp / "workspace")
    chunk = unmatched_chunk(load_corpus(str(folder)), "q1")
    workspace.judge("q1", chunk, 2)
    corpus, _ = workspace.apply(load_corpus(str(folder)))
    setup = setup_for(corpus, {"scorer": "bm25", "k": 1000})
    local = Workbench(corpus).retriever(setup)
    push_to(local, f"qdrant:{tmp / 'shards'}", "c")
    backend = open_at(f"qdrant:{tmp / 'shards'}", "c")
    qrels = corpus_qrels(str(folder))
    qrels["q1"][chunk] = 2
    yield Workbench(corpus, backend=backend).retriever(setup), qrels, tmp
    backend.close()


def test_eval_through_qdrant_equals_trec_eval_on_its_run(through_qdrant) -> None:
    retriever, qrels, tmp = through_qdrant
    assert retriever.source  # ranked by the engine
    run_file = tmp / "qdrant.run"
    write_run(run_file, make_run(retriever, retriever.corpus.questions, 1000), "qdrant")
    evaluation = retriever.evaluate(latency_sample=1).evaluation
    oracle = trec_eval(read_run(run_file), qrels, [r.id for r in evaluation.per_question])
    for result in evaluation.per_question:
        expected = oracle[result.id]
        assert (0.0 if result.rank is None else 1 / result.rank) == pytest.approx(expected["recip_rank"], abs=1e-9)
        assert result.values["ndcg@10"] == pytest.approx(expected["ndcg_cut_10"], abs=1e-9), result.id
        assert result.values["recall@10"] == pytest.approx(expected["recall_10"], abs=1e-9), result.id
    for metric, measure in SAME.items():
        mean = float(np.mean([oracle[r.id][measure] for r in evaluation.per_question]))
        assert evaluation.metrics[metric] == pytest.approx(mean, abs=1e-9), metric


# -- threshold: unjudged is not unanswerable --------------------------------------------------


def test_a_saved_query_without_judgments_leaves_the_threshold_alone(capsys, tmp_path: Path) -> None:
    """The lesson's best threshold is 0.165 (docs/reference-numbers.md); a query saved as the TUI's ``n`` saves it
    (a workspace question, no judgment yet) is not one the corpus cannot answer."""
    corpus = load_corpus("studio-alfa")
    workspace = Workspace(tmp_path / "workspace")
    question, added = workspace.question_for("chi organizza la festa di fine anno", corpus)
    assert added
    report = run_cli(capsys, "threshold", "studio-alfa", "--workspace", str(workspace.root), "--json").json
    assert report["best_threshold"] == pytest.approx(0.165, abs=5e-4)
    assert question.id not in [q["id"] for q in report["unanswerable"]]
    assert len(report["unanswerable"]) == 4
    # judged, every grade 0: now the user says the corpus does not answer it
    workspace.judge(question.id, corpus.chunks[0].id, 0)
    report = run_cli(capsys, "threshold", "studio-alfa", "--workspace", str(workspace.root), "--json").json
    assert question.id in [q["id"] for q in report["unanswerable"]]


async def test_a_query_saved_with_n_leaves_the_metrics_tabs_threshold_alone() -> None:
    """The TUI's n, then the Metrics tab at 80x24: still the lesson's threshold over 19 questions, 4 unanswerable."""
    text = "chi organizza la festa di fine anno"
    async with running(size=(80, 24)) as pilot:
        await search(pilot, text)
        await pilot.press("escape", "n")
        await until(pilot, lambda: any(q.text == text for q in pilot.app.context.workspace.questions()))
        await pilot.press("2")
        pane = pilot.app.query_one(MetricsPane)
        await until(pilot, lambda: pane.result is not None and pane.result.threshold is not None)
        await settle(pilot)
        shown = screen_text(pilot.app)
        assert "1 question of yours" in shown
        assert "best t=0.165: 16/19 right (0.842)" in shown
        assert "unanswerable 4" in shown
