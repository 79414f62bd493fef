"""The app's session without an app: setting changes checked, undo and redo, reset, a new corpus, what runs,
and the text the app says for each (tui/session.py, tui/setting_text.py).

The oracle is the lesson corpus' own settings (studio-alfa: TF-IDF, k1 1.2, k 5, accents kept) and the
sentences written out by hand.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.workspace.store import Workspace
from ranklens.tui.session import NO_CORPUS, Outcome, Session
from ranklens.tui.setting_text import changed, describe, inactive_hint, shown, typed_text

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def alfa() -> Workbench:
    return Workbench(load_corpus("studio-alfa"))


def opened(workbench: Workbench, tmp_path: Path, **overrides: object) -> Session:
    """A session with ``workbench``'s corpus open, as the app opens it: its index built, 18 chunks."""
    session = Session()
    setup = setup_for(workbench.corpus, overrides)
    session.open(workbench, setup, Workspace(tmp_path / "workspace"), workbench.corpus, 18, setup)
    return session


def test_the_session_imports_neither_textual_nor_numpy() -> None:
    code = ("import sys, ranklens.tui.session, ranklens.tui.setting_text\n"
            "print(sorted(name for name in ('textual', 'rich', 'numpy', 'scipy') if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_a_change_makes_a_new_context_and_forgets_what_ran(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    before = session.context
    assert session.chunk_count == 18 and before.generation == 0
    outcome = session.apply({"k1": 1.3})
    assert outcome.changed and outcome.said == "" and not outcome.warning
    assert session.context.setup.k1 == outcome.setup.k1 == 1.3
    assert session.context.generation == 1 and session.context.workbench is before.workbench
    assert (session.chunk_count, session.ran) == (None, None)  # known again once the new index is built
    assert session.running == session.context.setup


def test_a_refused_value_is_a_warning_and_changes_nothing(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    before = session.context
    outcome = session.apply({"k": 0})
    assert not outcome.changed and outcome.warning and "k must be at least 1" in outcome.said
    assert session.context is before and session.chunk_count == 18
    assert session.undo() == Outcome(said="nothing to undo")


def test_a_value_that_changes_nothing_is_no_change(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    before = session.context
    assert session.apply({"k1": 1.2}) == Outcome()
    assert session.context is before
    assert session.undo().said == "nothing to undo"


def test_undo_and_redo_walk_the_chain_both_ways(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    session.apply({"k1": 1.3})
    session.apply({"scorer": "bm25"})
    setup = lambda: session.context.setup  # noqa: E731

    undone = session.undo()
    assert (setup().scorer, setup().k1) == ("tfidf", 1.3)
    assert undone.changed and undone.said == "undone: scorer bm25 → tfidf"
    assert session.undo().said == "undone: BM25 k1 1.3 → 1.2"
    assert (setup().scorer, setup().k1) == ("tfidf", 1.2)
    assert session.undo() == Outcome(said="nothing to undo")

    assert session.redo().said == "redone: BM25 k1 1.2 → 1.3"
    assert session.redo().said == "redone: scorer tfidf → bm25"
    assert (setup().scorer, setup().k1) == ("bm25", 1.3)
    assert session.redo() == Outcome(said="nothing to redo")
    assert session.context.generation == 6  # two changes, two undos, two redos


def test_a_new_change_clears_what_is_to_redo(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    session.apply({"k1": 1.3})
    session.undo()
    session.apply({"b": 0.8})
    assert session.redo() == Outcome(said="nothing to redo")
    assert session.undo().said == "undone: BM25 b 0.8 → 0.75"
    assert session.context.setup.k1 == 1.2


def test_reset_goes_back_to_the_corpus_settings_and_is_undone_like_a_change(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path, k1=1.3)  # the command line's k1: not the corpus' own
    session.apply({"fold_accents": True})
    reset = session.reset()
    assert reset.changed
    assert reset.said == "reset to the corpus' settings: fold accents on → off, BM25 k1 1.3 → 1.2"
    assert (session.context.setup.k1, session.context.setup.fold_accents) == (1.2, False)
    assert session.reset() == Outcome(said="the settings are the corpus' already")
    assert session.undo().said == "undone: fold accents off → on, BM25 k1 1.2 → 1.3"
    assert (session.context.setup.k1, session.context.setup.fold_accents) == (1.3, True)
    assert session.redo().changed and session.context.setup.k1 == 1.2


def test_a_new_corpus_starts_the_history_afresh(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    session.apply({"k1": 1.3})
    session.undo()
    generation = session.context.generation
    battery = Workbench(load_corpus("battery"))
    setup = setup_for(battery.corpus)
    session.open(battery, setup, Workspace(tmp_path / "battery"), battery.corpus, 7, setup)
    assert session.context.corpus.name == "battery" and session.context.generation == generation + 1
    assert session.undo() == Outcome(said="nothing to undo")
    assert session.redo() == Outcome(said="nothing to redo")


def test_no_corpus_open_yet_says_so() -> None:
    session = Session()
    assert session.apply({"k1": 1.3}) == session.step("k_up") == session.reset() == NO_CORPUS
    assert NO_CORPUS.said == "no corpus is open yet" and NO_CORPUS.warning
    assert session.undo().said == "nothing to undo"
    assert not session.set_query("ferie") and session.query == "ferie"  # kept for the corpus to come
    assert session.running is None and session.opened_workspace() is None


def test_the_query_makes_a_new_context_only_when_it_changes(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    assert session.set_query("ferie") and session.context.query == "ferie"
    assert not session.set_query("ferie")
    assert session.context.generation == 1


def test_a_key_for_a_setting_of_another_scorer_says_so(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    outcome = session.step("k1_up")
    assert session.context.setup.k1 == 1.3
    assert outcome.said == "BM25 k1 1.3 — applies to BM25; the active scorer is TF-IDF"
    assert session.step("k_up").said == ""  # every scorer reads k


def test_a_step_at_a_limit_is_refused_once_and_a_valid_value_that_changes_nothing_stays(
        alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path, k=1)
    refused = session.step("k_down")
    assert refused.warning and "k must be at least 1" in refused.said and session.context.setup.k == 1
    assert session.type_setting("rerank", "none") == Outcome(said="reranker stays off")


def test_steps_start_from_what_runs(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path, scorer="lsa")
    asked = session.context.setup
    assert not session.index_built(asked.replace(k=3), None, 18, asked.replace(dims=18))  # another setup's
    assert session.index_built(asked, None, 18, asked.replace(dims=18))  # the corpus allows 18 dimensions
    assert describe(session.running) == "LSA 18 dims · top 5 · stop=none · stem=none"
    session.step("dims_down")
    assert session.context.setup.dims == 16  # from the 18 that run, not from the 100 asked for


def test_a_typed_value_is_read_as_the_command_line_reads_it(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    bad = session.type_setting("k1", "abc")
    assert bad.warning and not bad.changed and "k1" in bad.said
    fused = session.type_setting("fuse", "tfidf,lsa")
    assert fused.changed and session.context.setup.fuse == ("tfidf", "lsa")
    assert fused.said == "fuse tfidf+lsa — applies to fusion; the active scorer is TF-IDF"
    assert typed_text(session.context.setup, "fuse") == "tfidf,lsa"
    assert session.type_setting("fuse", "tfidf, lsa") == Outcome(said="fuse stays tfidf+lsa")
    assert typed_text(session.context.setup, "rerank") == ""


def test_a_workspace_change_of_another_corpus_is_dropped(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    workspace, loaded = session.opened_workspace()
    judged = judged_corpus(loaded, workspace)
    assert not session.judged_again(workspace, load_corpus("studio-alfa"), judged)  # another load
    assert session.context.generation == 0
    assert session.judged_again(workspace, loaded, judged)  # a new context even if the questions are equal
    assert session.context.generation == 1 and session.context.workbench is not alfa


def test_judging_made_before_the_toggle_last_changed_is_dropped(alfa: Workbench, tmp_path: Path) -> None:
    session = opened(alfa, tmp_path)
    workspace, loaded = session.opened_workspace()
    counted = judged_corpus(loaded, workspace)
    assert session.toggle_counting() is False  # off: the corpus' judgments alone, as --no-workspace
    assert not session.judged_again(workspace, loaded, counted)  # judged while it was on: the toggle's follows
    assert session.context.generation == 0
    assert session.judged_again(workspace, loaded, judged_corpus(loaded, None))
    assert session.context.judged.describe() == "15 questions · the corpus' judgments only"
    assert session.context.workspace is workspace  # still written to while it does not count


def test_changed_lists_every_setting_that_differs_in_the_table_order(alfa: Workbench) -> None:
    setup = setup_for(alfa.corpus)
    assert changed(setup, setup.replace(k1=1.3, scorer="bm25")) == "scorer tfidf → bm25, BM25 k1 1.2 → 1.3"
    assert changed(setup, setup) == "no change"
    assert changed(setup, setup.replace(stopwords="it")) == "stop words none → it"


def test_the_inactive_hint_names_the_scorers_that_read_the_setting(alfa: Workbench) -> None:
    setup = setup_for(alfa.corpus)
    assert inactive_hint(setup, "k1") == "BM25 k1 1.2 — applies to BM25; the active scorer is TF-IDF"
    assert inactive_hint(setup, "dims") == "LSA dimensions 100 — applies to LSA; the active scorer is TF-IDF"
    assert inactive_hint(setup.replace(scorer="bm25"), "k1") == ""
    assert inactive_hint(setup, "k") == inactive_hint(setup, "size") == ""  # every scorer reads them
    fusion = setup.replace(scorer="fusion", fuse=("bm25", "lsa"))
    assert inactive_hint(fusion, "k1") == ""  # BM25 runs as a part of the fusion
    assert inactive_hint(fusion.replace(fuse=("tfidf", "lsa")), "k1") == (
        "BM25 k1 1.2 — applies to BM25; the active scorer is fusion")


def test_values_as_the_app_says_them() -> None:
    assert [shown(value) for value in (None, True, False, ("bm25", "lsa"), 1.2)] == ["off", "on", "off",
                                                                                    "bm25+lsa", "1.2"]
