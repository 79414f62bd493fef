"""``ranklens compare --by FIELD`` (cli/strata.py): the strata in the JSON and the text, against the JSON's own
per-question values grouped by hand; a field no question has is one line, before any run."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import assert_error, run_cli, run_on
from tests.support.tagged import QUERIES, tagged_corpus, tags_of

METRICS = "nDCG@10 MRR@10 P@1"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return tagged_corpus(tmp_path / "pets")


def compare(capsys, corpus: Path, tmp_path: Path, *argv: str):  # noqa: ANN201
    return run_on(capsys, corpus, "compare", str(corpus), "lsa --dims 1", "bm25", "--metrics", METRICS,
                  "--workspace", str(tmp_path / "ws"), *argv)


def test_json_strata_are_the_per_question_values_grouped_by_hand(capsys, corpus: Path, tmp_path: Path) -> None:
    run = compare(capsys, corpus, tmp_path, "--by", "tags", "--json")
    assert run.status == 0, run.err
    data = run.json
    assert data["strata_by"] == "tags"
    assert [s["stratum"] for s in data["strata"]] == ["home", "money", "pets", "(none)"]
    tags = tags_of()
    for stratum in data["strata"]:
        assert set(stratum) == {"stratum", "questions", "metrics"}
        rows = [q for q in data["per_question"] if stratum["stratum"] in tags[q["id"]]]
        assert stratum["questions"] == len(rows)
        assert list(stratum["metrics"]) == METRICS.split()
        for name, measured in stratum["metrics"].items():
            a = sum(q["a"][name] for q in rows) / len(rows)
            b = sum(q["b"][name] for q in rows) / len(rows)
            assert (measured["a"], measured["b"], measured["delta"]) == pytest.approx((a, b, b - a))
            d = [q["b"][name] - q["a"][name] for q in rows]
            assert (measured["wins"], measured["ties"], measured["losses"]) == (
                sum(x > 0 for x in d), sum(x == 0 for x in d), sum(x < 0 for x in d))
    # q1 has two tags: the strata hold one question more than the comparison
    assert sum(s["questions"] for s in data["strata"]) == data["questions"] + 1
    plain = compare(capsys, corpus, tmp_path, "--json").json
    assert "strata" not in plain and plain["metrics"] == data["metrics"]  # --by adds, changes nothing


def test_text_table_shows_each_stratum(capsys, corpus: Path, tmp_path: Path) -> None:
    data = compare(capsys, corpus, tmp_path, "--by", "tags", "--json").json
    text = compare(capsys, corpus, tmp_path, "--by", "tags")
    assert text.status == 0, text.err
    lines = text.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("by tags: nDCG@10"))
    assert "counts in each of their strata" in lines[start]  # a question with two tags
    assert lines[start + 1].split()[:7] == ["stratum", "n", "A", "B", "Δ", "w/t/l", "Δ"]
    for line, stratum in zip(lines[start + 2:], data["strata"]):
        first = stratum["metrics"]["nDCG@10"]
        wtl = f"{first['wins']}/{first['ties']}/{first['losses']}"
        assert line.split() == [stratum["stratum"], str(stratum["questions"]), f"{first['a']:.4f}",
                                f"{first['b']:.4f}", f"{first['delta']:+.4f}", wtl,
                                f"{stratum['metrics']['MRR@10']['delta']:+.4f}",
                                f"{stratum['metrics']['P@1']['delta']:+.4f}"]
    assert len(lines) == start + 2 + len(data["strata"])


def test_length_strata_count_the_words_of_the_compared_questions(capsys, corpus: Path, tmp_path: Path) -> None:
    data = compare(capsys, corpus, tmp_path, "--by", "length", "--json").json
    words = {r["_id"]: len(r["text"].split()) for r in QUERIES}
    compared = [q["id"] for q in data["per_question"]]
    assert [(s["stratum"], s["questions"]) for s in data["strata"]] == [
        ("1-4 words", sum(1 for qid in compared if words[qid] <= 4))]  # every question here is short


@pytest.mark.parametrize(("field", "needles"), [
    ("tag", ("--by: no question has a field 'tag'", "fields: tags, length")),
    ("length.x", ("no question has a field 'length.x'",)),
])
def test_an_unknown_field_is_one_line_before_any_run(capsys, corpus: Path, tmp_path: Path, field: str,
                                                     needles: tuple[str, ...]) -> None:
    ws = tmp_path / "ws"
    # a side that would fail if it were made: the field is refused first
    assert_error(run_cli(capsys, "compare", str(corpus), "bm25", "no-such-run", "--by", field,
                         "--workspace", str(ws)), *needles)
    assert not ws.exists()  # nothing written


def test_with_several_runs_each_run_has_its_pairs_strata(capsys, corpus: Path, tmp_path: Path) -> None:
    argv = ("--metrics", METRICS, "--workspace", str(tmp_path / "ws"), "--by", "tags")
    many = run_on(capsys, corpus, "compare", str(corpus), "lsa --dims 1", "bm25", "tfidf", *argv, "--json")
    assert many.status == 0, many.err
    for run in many.json["runs"]:
        pair = run_on(capsys, corpus, "compare", str(corpus), "lsa --dims 1", run["label"], *argv, "--json").json
        assert run["strata_by"] == "tags" and run["strata"] == pair["strata"]
    text = run_on(capsys, corpus, "compare", str(corpus), "lsa --dims 1", "bm25", "tfidf", *argv[:-2], "--by",
                  "tags").out
    assert "bm25 (B) against lsa --dims 1 (A):" in text and "tfidf (B) against lsa --dims 1 (A):" in text


def test_with_several_runs_an_unknown_field_is_one_line(capsys, corpus: Path, tmp_path: Path) -> None:
    run = run_on(capsys, corpus, "compare", str(corpus), "bm25", "tfidf", "lsa --dims 1", "--by", "colour",
                 "--workspace", str(tmp_path / "ws"))
    assert_error(run, "--by")
