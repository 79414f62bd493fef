"""Progress a user can follow: the throttle keeps every new stage and every stage's end, and the Search
tab's document tree reads the chunks without building the scorer (a dense model's silent encoding)."""
from __future__ import annotations

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.tui.widgets.work_status import WorkStatus


def test_the_throttle_drops_repeats_only_never_a_new_stage_or_a_stage_end() -> None:
    status = WorkStatus()
    posted: list[WorkStatus.Update] = []
    status.post_message = posted.append  # type: ignore[method-assign]
    report = status.reporter(1)
    for done in range(0, 100):  # within microseconds: one report a throttle period, but the last one shows
        report(done, 100, "exact: search")
    report(100, 100, "exact: search")
    report(0, 50, "ivf: build")  # a new stage at once
    assert [(u.label, u.done) for u in posted] == [("exact: search", 0), ("exact: search", 100), ("ivf: build", 0)]


def test_the_chunks_alone_build_no_index_and_no_scorer() -> None:
    corpus = load_corpus("studio-alfa")
    workbench = Workbench(corpus)
    setup = setup_for(corpus, {"scorer": "lsa", "size": 20, "overlap": 5})
    chunks = workbench.chunks(setup)
    assert not workbench._term_indexes and not workbench._scorers
    assert chunks == workbench.retriever(setup).chunks and len(chunks) > len(corpus.chunks)
