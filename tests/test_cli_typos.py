"""A first word that is neither a command, a path nor a bundled corpus is a typo: exit 2, never the TUI."""
from __future__ import annotations

import pytest

from tests.support.cli import assert_error, run_cli


@pytest.mark.parametrize(("argv", "needle"), [
    (["serach", "studio-alfa", "q"], "no such corpus or command 'serach' (did you mean search?)"),
    (["studio-alfaa"], "(did you mean studio-alfa?)"),
    (["frobnicate"], "commands: corpora, search, eval"),
])
def test_a_typo_is_named_with_the_close_matches(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                needle: str) -> None:
    assert_error(run_cli(capsys, *argv), needle)


def test_a_missing_path_is_not_opened(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    assert_error(run_cli(capsys, str(tmp_path / "nowhere")), "no such corpus or command")


@pytest.mark.parametrize("argv", [["search", "studio-alfa", "ferie", "--k", "0"],
                                  ["eval", "studio-alfa", "--stop", "it"]])
def test_an_option_is_never_read_as_the_longer_one_it_begins(capsys: pytest.CaptureFixture[str],
                                                             argv: list[str]) -> None:
    # argparse's abbreviations would read --k as --k1 (BM25's k1, not the results per query) and --stop as
    # --stopwords: a setup the user did not ask for, without a word
    assert_error(run_cli(capsys, *argv), f"unrecognized arguments: {argv[-2]} {argv[-1]}")


@pytest.mark.parametrize(("argv", "line"), [
    (["search", "studio-alfa", "q", "--scorr", "bm25"],
     "ranklens search: unrecognized arguments: --scorr bm25 (did you mean --scorer?)"),
    (["search", "studio-alfa", "q", "--k", "0"], "ranklens search: unrecognized arguments: --k 0 (did you mean -k?)"),
    (["eval", "studio-alfa", "--stop", "it"],
     "ranklens eval: unrecognized arguments: --stop it (did you mean --stopwords?)"),
    (["sweep", "chunks", "studio-alfa", "--sizez", "3"],
     "ranklens sweep chunks: unrecognized arguments: --sizez 3 (did you mean --size or --sizes?)"),
    (["search", "studio-alfa", "q", "--colour=red"], "ranklens search: unrecognized arguments: --colour=red"),
    (["search", "studio-alfa", "q", "two", "words"], "ranklens search: unrecognized arguments: two words"),
])
def test_an_unknown_option_is_named_by_its_command_with_the_options_meant(capsys: pytest.CaptureFixture[str],
                                                                           argv: list[str], line: str) -> None:
    run = run_cli(capsys, *argv)
    assert (run.status, run.out, run.err) == (2, "", line + "\n")
