"""Twenty chunks judged through ``judgments --judge`` under the default chunking, for the carry tests.

Cranfield's twenty (its first ten questions, seed 35) are judged by the command line once per test process and
copied into each test that asks for ``cranfield_twenty``: twenty in-process runs each load and chunk 1,400
documents, and the span carry and chunking lab tests judge the very same twenty. The tests that ask are one xdist
group, so one worker judges them once.
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.retriever import Workbench, setup_for
from tests.support.cli import run_cli

CRANFIELD = Path(__file__).resolve().parents[3] / "shared" / "data" / "cranfield"
needs_cranfield = pytest.mark.skipif(not (CRANFIELD / "corpus.jsonl").is_file(),
                                     reason="no Cranfield copy on this machine")
JUDGED_TOGETHER = pytest.mark.xdist_group("cranfield-judged-twenty")

_judged: list[Path] = []  # the process' one judged workspace, once made


def judge_twenty(capsys: pytest.CaptureFixture[str], corpus_arg: str, ws: Path, questions: list[str]) -> None:
    corpus = load_corpus(corpus_arg)
    chunks = list(Workbench(corpus).chunks(setup_for(corpus)))
    rng = random.Random(35)
    for chunk in rng.sample(chunks, 20):
        judged = run_cli(capsys, "judgments", corpus_arg, "--workspace", str(ws), "--judge", rng.choice(questions),
                         chunk.id, str(rng.choice([0, 1, 2, 3])))
        assert judged.status == 0, judged.err


@pytest.fixture(name="cranfield_twenty")  # a test module imports the function, and its tests name the fixture
def cranfield_twenty_fixture(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                     tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace of this test's own holding Cranfield's twenty judgments."""
    if not _judged:
        ws = tmp_path_factory.mktemp("cranfield-twenty") / "ws"
        judge_twenty(capsys, str(CRANFIELD), ws, [q.id for q in load_corpus(str(CRANFIELD)).questions[:10]])
        _judged.append(ws)
    return Path(shutil.copytree(_judged[0], tmp_path / "ws"))
