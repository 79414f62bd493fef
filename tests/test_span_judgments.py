"""Judgments that survive re-chunking: a judged chunk records the text it covers (engine/judging/log.py), and
under another chunking counts by that text (engine/judging/positions.py's rule).

Oracles: hand computations on a document of 20 four-character words (word i at characters [4i, 4i + 3)),
and, for "the same chunking gives today's numbers", the same judgments written by their ids alone (the log
as it was before spans were recorded).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranklens.engine.chunking.cutting import chunk_documents
from ranklens.engine.corpus import Document, Question, TextSpan
from ranklens.engine.errors import RanklensError
from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.judging.positions import ChunkJudge
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import run_cli
from tests.support.files import text_folder

WORDS = " ".join(f"w{i:02d}" for i in range(20))  # word i at [4i, 4i + 3); 79 characters
DOC = Document("d", "", WORDS)


def _judge(size: int, overlap: int, **judgments: tuple[int, TextSpan]) -> tuple[dict[int, int], dict[int, int]]:
    """(relevant, judged) chunk positions of the 20-word document cut ``size``/``overlap``, for chunk ids judged
    ``grade`` with ``span``."""
    chunks = chunk_documents([DOC], size, overlap)
    ids = {ident.replace("_", "#"): graded for ident, graded in judgments.items()}
    question = Question("q", "?", {i: g for i, (g, _) in ids.items() if g > 0},
                        nonrelevant=frozenset(i for i, (g, _) in ids.items() if g <= 0),
                        spans={i: s for i, (_, s) in ids.items()})
    judge = ChunkJudge(chunks, [question])
    return judge.relevant(question), judge.judged(question)


def test_a_judged_span_carries_to_chunks_sharing_half_the_shorter_of_the_two() -> None:
    first_ten = TextSpan("d", 0, 39)  # d#0 under 10/0: words 0-9
    # 4/0: [0,15) [16,31) [32,47) [48,63) [64,79): overlaps 15, 15, 7 (< 7.5), 0, 0
    assert _judge(4, 0, d_0=(2, first_ten)) == ({0: 2, 1: 2}, {0: 2, 1: 2})
    # 15/5: [0,59) [40,79): overlap 39 >= 19.5 (half of the span, the shorter), then 0
    assert _judge(15, 5, d_0=(2, first_ten)) == ({0: 2}, {0: 2})
    # several spans reach a chunk: the highest grade
    assert _judge(4, 0, d_0=(1, first_ten), d_9=(3, TextSpan("d", 16, 47)))[0] == {0: 1, 1: 3, 2: 3}


def test_a_span_judged_zero_makes_the_chunks_it_covers_half_of_judged_not_relevant() -> None:
    last_ten = TextSpan("d", 40, 79)  # d#1 under 10/0
    # under 4/0: [32,47) shares 7 < 7.5 (half of the chunk); [48,63) and [64,79) are covered whole
    assert _judge(4, 0, d_1=(0, last_ten)) == ({}, {3: 0, 4: 0})
    # a span judged 0 shorter than half a chunk leaves it unjudged (a grade would reach it: half the shorter)
    assert _judge(10, 0, d_5=(0, TextSpan("d", 0, 11))) == ({}, {})
    assert _judge(10, 0, d_5=(1, TextSpan("d", 0, 11))) == ({0: 1}, {0: 1})
    # a grade beats a zero on the same chunk: the highest grade
    assert _judge(4, 0, d_1=(0, last_ten), d_8=(2, TextSpan("d", 48, 79))) == ({3: 2, 4: 2}, {3: 2, 4: 2})


def test_a_chunk_id_of_another_chunking_counts_by_its_text_not_its_id() -> None:
    # d#3 under 4/0 is [48, 63); judged as [0, 39) it names another text: d#0 and d#1 take it, d#3 does not
    assert _judge(4, 0, d_3=(2, TextSpan("d", 0, 39)))[0] == {0: 2, 1: 2}
    # covering the same text, it counts by its id (neighbours sharing over half of it are not reached)
    assert _judge(10, 8, d_1=(2, TextSpan("d", 8, 47)))[0] == {1: 2}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Six documents of 60 words cut 10/6: neighbouring chunks share 6 words of 10, over half of each."""
    words = [f"t{i % 37}x{i % 11}" for i in range(360)]
    files = {f"doc{d}.txt": " ".join(words[d * 60:(d + 1) * 60]) for d in range(6)}
    files["ranklens.toml"] = "size = 10\noverlap = 6\n"
    return text_folder(tmp_path / "docs", files)


def _evaluated(corpus_folder: Path, ws: Path, **setting: int) -> tuple[dict[str, float], list[dict[int, int]]]:
    corpus = load_corpus(str(corpus_folder))
    judged = judged_corpus(corpus, Workspace(ws))
    retriever = Workbench(judged.corpus).retriever(setup_for(judged.corpus, setting))
    return retriever.evaluate().metrics, [retriever.judged(q) for q in judged.corpus.questions]


def test_the_chunking_a_judgment_was_made_under_gives_the_numbers_of_judgments_by_id(folder: Path,
                                                                                       tmp_path: Path) -> None:
    corpus = load_corpus(str(folder))
    chunks = Workbench(corpus).chunks(setup_for(corpus))
    picks = [(f"q{i % 3}", chunks[7 * i + 1], i % 4) for i in range(12)]
    questions = [Question(f"q{i}", text) for i, text in enumerate(("t3x3 t4x4", "t7x7 t8x0", "t20x9 t1x1"))]
    by_span, by_id = Workspace(tmp_path / "spans"), Workspace(tmp_path / "ids")
    for ws in (by_span, by_id):
        ws.add_questions(questions)
    for qid, chunk, grade in picks:
        by_span.judge(qid, chunk.id, grade, span=chunk.text_span)
    by_id.judge_many([(qid, chunk.id, grade) for qid, chunk, grade in picks])
    assert all(line.span is not None for line in by_span.log())
    assert _evaluated(folder, by_span.root) == _evaluated(folder, by_id.root)
    # under another chunking the spans carry where the ids would name other texts
    assert _evaluated(folder, by_span.root, size=7, overlap=0) != _evaluated(folder, by_id.root, size=7, overlap=0)


def test_the_log_records_the_span_and_reads_lines_without_one(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.judge("q1", "d#0", 2, span=TextSpan("d", 0, 39))
    ws.judge("q1", "d", 1)
    lines = [json.loads(line) for line in ws.log_path.read_text().splitlines()]
    assert (lines[0]["doc"], lines[0]["start"], lines[0]["end"]) == ("d", 0, 39)
    assert not {"doc", "start", "end"} & lines[1].keys()
    assert ws.spans() == {"q1": {"d#0": TextSpan("d", 0, 39)}}
    assert ws.undo() is not None and ws.undo() is not None  # the reversal of a span judgment keeps its span
    assert ws.log()[-1].span == TextSpan("d", 0, 39)
    ws.judge("q1", "d#0", 3)  # judged again by its id alone: it counts by its id
    assert ws.spans() == {}


@pytest.mark.parametrize("span", ['"doc": "d", "start": 5', '"doc": "d", "start": 9, "end": 3',
                                  '"doc": 4, "start": 0, "end": 3', '"doc": "d", "start": -1, "end": 3'])
def test_a_log_line_with_a_bad_span_is_one_line_naming_it(tmp_path: Path, span: str) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.root.mkdir()
    ws.log_path.write_text('{"op": "judge", "question": "q", "id": "d#0", "grade": 1, "previous": null}\n'
                           f'{{"op": "judge", "question": "q", "id": "d#1", "grade": 1, "previous": null, {span}}}\n')
    with pytest.raises(RanklensError, match=r"judgments\.jsonl:2: not a judgment"):
        ws.log()


def test_reports_count_the_judgments_carried_to_their_chunking(capsys, folder: Path, tmp_path: Path) -> None:
    ws = ("--workspace", str(tmp_path / "ws"))
    corpus = load_corpus(str(folder))
    Workspace(tmp_path / "ws").add_questions([Question("q1", "t3x3 t4x4"), Question("q2", "t9x2 nowhere")])
    chunks = {c.id: c for c in Workbench(corpus).chunks(setup_for(corpus))}
    picked = ("doc0.txt#0", "doc0.txt#1", "doc3.txt#4")
    for ident in picked:
        assert run_cli(capsys, "judgments", str(folder), *ws, "--judge", "q1", ident, "2").status == 0
    assert run_cli(capsys, "judgments", str(folder), *ws, "--judge", "q1", "doc5.txt", "1").status == 0  # a document
    # q2 judged 0 (a document: no text carried) is unanswerable, which threshold needs; unjudged it would be neither
    assert run_cli(capsys, "judgments", str(folder), *ws, "--judge", "q2", "doc4.txt", "0").status == 0
    assert Workspace(tmp_path / "ws").spans()["q1"] == {i: chunks[i].text_span for i in picked}
    same = run_cli(capsys, "eval", str(folder), *ws)
    assert "5 judgments of yours ·" in same.out and "carried" not in same.out
    other = run_cli(capsys, "eval", str(folder), *ws, "--size", "30", "--overlap", "0")
    assert "5 judgments of yours, 3 carried to this chunking by their text" in other.out
    data = run_cli(capsys, "eval", str(folder), *ws, "--size", "30", "--overlap", "0", "--json").json
    assert data["judgments"]["by_text"] == {"judgments": 3, "carried": 3}
    for command in (("threshold",), ("compare-scorers",), ("run", "--output", str(tmp_path / "r.run"))):
        said = run_cli(capsys, *command[:1], str(folder), *command[1:], *ws, "--size", "30", "--overlap", "0")
        assert said.status == 0, said.err
        assert "3 carried to this chunking by their text" in said.out, command
    compared = run_cli(capsys, "compare", str(folder), "bm25 --size 30 --overlap 0", "tfidf --size 30 --overlap 0",
                       *ws)
    assert "3 carried to this chunking by their text" in compared.out, compared.err


async def test_the_metrics_tab_says_how_many_judgments_its_chunking_carried(folder: Path, tmp_path: Path) -> None:
    from ranklens.tui.context import Context
    from ranklens.tui.panes.metrics import MetricsPane
    from ranklens.tui.widgets.work_status import WorkStatus
    from tests.support.panes import PaneHarness, settle

    ws = Workspace(tmp_path / "ws")
    ws.add_questions([Question("q1", "t3x3 t4x4")])
    corpus = load_corpus(str(folder))
    for chunk in Workbench(corpus).chunks(setup_for(corpus))[:2]:
        ws.judge("q1", chunk.id, 2, span=chunk.text_span)
    judged = judged_corpus(corpus, ws)
    app = PaneHarness(MetricsPane, corpus=str(folder))
    app.context = Context(Workbench(judged.corpus), setup_for(judged.corpus, {"size": 30, "overlap": 0}),
                          workspace=ws, judged=judged)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        line = str(app.query_one(WorkStatus).query_one("#work-message").render())
        assert "2 judgments of yours, 2 carried to this chunking by their text" in line


def _reached(span: TextSpan, grade: int, chunks: list) -> set[str]:  # noqa: ANN001
    """The chunk ids the rule carries a judgment of ``span`` to, by plain loops (the oracle)."""
    found = set()
    for chunk in chunks:
        overlap = min(chunk.end, span.end) - max(chunk.start, span.start)
        need = chunk.end - chunk.start if grade == 0 else min(chunk.end - chunk.start, span.end - span.start)
        if chunk.doc_id == span.doc and overlap > 0 and overlap >= need / 2:
            found.add(chunk.id)
    return found


def test_a_pool_of_another_chunking_leaves_out_what_judgments_carry_and_its_queue_adds_spans(
        folder: Path, tmp_path: Path) -> None:
    from ranklens.engine.comparing.two_runs import setup_side
    from ranklens.engine.judging.pool import judged_now, make_pool, queue_state

    ws = Workspace(tmp_path / "ws")
    ws.add_questions([Question("q1", " ".join(f"t{i % 37}x{i % 11}" for i in range(0, 360, 25)))])  # every chunk
    corpus = load_corpus(str(folder))
    default = list(Workbench(corpus).chunks(setup_for(corpus)))
    judged_first = [default[0], default[20]]
    for chunk, grade in zip(judged_first, (2, 0)):
        ws.judge("q1", chunk.id, grade, span=chunk.text_span)
    bench = Workbench(judged_corpus(corpus, ws).corpus)
    setup = setup_for(bench.corpus, {"size": 30, "overlap": 0, "k": 8})
    sides = [setup_side(name, bench, setup.replace(scorer=name)) for name in ("bm25", "tfidf")]
    pool = make_pool(sides, bench.corpus, 8)
    rechunked = list(bench.chunks(setup))
    carried = set().union(*(_reached(c.text_span, g, rechunked) for c, g in zip(judged_first, (2, 0))))
    ranked = {chunk for side in sides for chunk, _ in side.run.rankings["q1"][:8]}
    assert carried & ranked, "the test needs a carried chunk among the runs' top 8"
    assert {p.id for p in pool.pairs} == ranked - carried  # judged by their text: not asked
    assert queue_state(pool, judged_now(bench, ws, setup, pool)).left == pool.pairs

    first = next(c for c in rechunked if c.id == pool.pairs[0].id)
    ws.judge("q1", first.id, 1, span=first.text_span)  # as the queue judges: with the re-chunked chunk's text
    assert ws.spans()["q1"][first.id] == first.text_span
    assert queue_state(pool, judged_now(bench, ws, setup, pool)).left == pool.pairs[1:]
    later = next(p for p in pool.pairs[1:])
    chunk = next(c for c in rechunked if c.id == later.id)
    covering = next(c for c in default if later.id in _reached(c.text_span, 3, rechunked) and c.id != chunk.id)
    ws.judge("q1", covering.id, 3, span=covering.text_span)  # judged under the default chunking, covering it
    assert later not in queue_state(pool, judged_now(bench, ws, setup, pool)).left


@pytest.mark.parametrize("name", ["studio-alfa", "generated"])
def test_a_cached_corpus_carries_span_judgments_as_its_parse(name: str, tmp_path: Path) -> None:
    from ranklens.engine.corpus.tables import ChunkTable
    from tests.test_corpus_cache import cached, generated

    source = generated(tmp_path / "generated") if name == "generated" else Path(load_corpus(name).source)
    parsed, stored = load_corpus(source, use_cache=False), cached(source, tmp_path / "cache")
    assert isinstance(stored.chunks, ChunkTable)
    chunks = list(parsed.chunks)
    questions = []
    for i, chunk in enumerate(chunks):
        cut = TextSpan(chunk.doc_id, chunk.start + 3, max(chunk.start + 3, chunk.end - 5))  # another chunking's
        spans = {chunk.id: chunk.text_span, f"{chunk.doc_id}#9{i}": cut}
        questions.append(Question(f"s{i}", "t", {chunk.id: 2, f"{chunk.doc_id}#9{i}": 1 + i % 3},
                                  nonrelevant=frozenset({chunks[(i + 1) % len(chunks)].id}), spans=spans))
    eager = ChunkJudge(chunks, (), parsed.documents)
    for judge in (ChunkJudge(stored.chunks, stored.questions, stored.documents), ChunkJudge(stored.chunks)):
        for question in questions:
            assert judge.judged(question) == eager.judged(question), question.id
            assert judge.carried(question) == eager.carried(question), question.id
            if judge.documents:
                text = judge.relevant_text(question)
                assert text.spans == eager.relevant_text(question).spans, question.id
                assert text.chunk_spans(range(len(chunks))) == [(c.doc_id, c.start, c.end) for c in chunks]


def test_the_chunk_sweep_measures_questions_judged_by_their_chunks_text(capsys, folder: Path,
                                                                          tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    Workspace(ws).add_questions([Question("q1", "t3x3 t4x4")])
    corpus = load_corpus(str(folder))
    chunk = Workbench(corpus).chunks(setup_for(corpus))[0]  # words 0-9 of doc0, which hold t3x3 and t4x4
    Workspace(ws).judge("q1", chunk.id, 2, span=chunk.text_span)
    swept = run_cli(capsys, "sweep", "chunks", str(folder), "--workspace", str(ws), "--sizes", "5,20", "--json")
    assert swept.status == 0, swept.err
    # at 5/0 and 5/1, 20/0 and 20/5 the chunk holding words 3 and 4 is reached by the judged text, and ranks first
    assert [cell["metrics"]["hit@1"] for cell in swept.json["cells"]] == [1.0, 1.0, 1.0, 1.0]
    table = run_cli(capsys, "sweep", "chunks", str(folder), "--workspace", str(ws), "--sizes", "5,20").out.splitlines()
    header = next(i for i, line in enumerate(table) if line.split()[:4] == ["size", "overlap", "chunks", "carried"])
    rows = [line.lstrip("★ ").split() for line in table[header + 1:header + 5]]  # ★ marks the winner
    assert [row[3] for row in rows] == ["1/1"] * 4  # the one judgment, carried at each window
    assert [cell["by_text"] for cell in swept.json["cells"]] == [{"judgments": 1, "carried": 1}] * 4


def test_the_search_tab_grades_a_re_chunked_result_by_the_judged_text(folder: Path, tmp_path: Path) -> None:
    from ranklens.engine.work.progress import no_progress
    from ranklens.tui.context import Context
    from ranklens.tui.search_work import find

    ws = Workspace(tmp_path / "ws")
    ws.add_questions([Question("q1", "t3x3 t4x4")])
    corpus = load_corpus(str(folder))
    default = Workbench(corpus).chunks(setup_for(corpus))
    ws.judge("q1", default[0].id, 3, span=default[0].text_span)  # doc0 words 0-9
    ws.judge("q1", default[15].id, 0, span=default[15].text_span)  # doc1 words 4-13
    judged = judged_corpus(corpus, ws)
    workbench, setup = Workbench(judged.corpus), setup_for(judged.corpus, {"size": 12, "overlap": 0})
    found = find(Context(workbench, setup, query="t3x3 t4x4", workspace=ws, judged=judged), no_progress)
    chunks = workbench.chunks(setup)
    ids = {chunks[i].id: grade for i, grade in found.grades.items()}
    # 12/0: doc0 words 0-11 shares 10 words with the first; doc1 words 0-11 has 8 of its 12 under the second;
    # doc1.txt#1 (judged 0 by that id at 10/6) is words 12-23 here, another text: not graded by the id
    assert ids == {"doc0.txt#0": 3, "doc1.txt#0": 0}
    assert {chunks[i].id for i in found.relevant} == {"doc0.txt#0"}  # its ✓: the grade above 0
