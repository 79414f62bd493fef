"""A plug-in scorer's own setting named like an option a command adds itself (``--backend``, ``--json``,
``--output``): the option stays the command's, the setting has no flag in that command (one warning line
naming the scorer, the setting and the option), and ranklens.toml still sets it; in a command without
such an option the flag is the setting's. Before, building the parser failed with argparse's traceback.

The oracle: the toy coordination scorer's scores (distinct query terms per chunk) are multiplied by the
setting, so the same search with the setting at 3 gives each score times 3.
"""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ranklens.corpora import bundled_path
from ranklens.engine.scoring.registry import ScorerInputs, ScorerSpec, registered
from ranklens.engine.settings import setting
from tests.support.cli import run_cli
from tests.support.toy_scorer import CoordinationScorer

QUERY = "rimborso spese automobile"


@dataclass(frozen=True)
class Clashing:
    backend: float = setting(1.0, "every score multiplied by it", minimum=0)
    json: bool = setting(False, "a yes/no setting named like --json")
    output: float = setting(1.0, "named like run's --output", minimum=0)


def build(inputs: ScorerInputs) -> CoordinationScorer:
    return CoordinationScorer(inputs.index, inputs.setup.read(Clashing).backend)


@pytest.fixture
def clash() -> Iterator[None]:
    with registered(ScorerSpec("clash", "Clash", f"{__name__}:build", own_settings=Clashing)):
        yield


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("ranklens: warning: scorer clash's setting")]


def scores(out: dict) -> dict[str, float]:
    return {row["id"]: row["score"] for row in out["results"]}


def test_the_commands_options_stay_theirs_and_the_clash_is_one_line_each(capsys, clash) -> None:
    run = run_cli(capsys, "search", "studio-alfa", QUERY, "--scorer", "clash", "-k", "18", "--json")
    assert run.status == 0, run.err
    assert run.json["query"] == QUERY  # --json is the command's: JSON came out
    assert sorted(warnings(run.err)) == [
        "ranklens: warning: scorer clash's setting 'backend' has no flag in `ranklens search`: --backend is the "
        "command's own (set it in ranklens.toml)",
        "ranklens: warning: scorer clash's setting 'json' has no flag in `ranklens search`: --json is the "
        "command's own (set it in ranklens.toml)"]
    # search has no --output of its own: there the flag is the setting's
    given = run_cli(capsys, "search", "studio-alfa", QUERY, "--scorer", "clash", "--output", "2", "--json")
    assert given.status == 0, given.err
    assert given.json["setup"]["output"] == 2.0


def test_a_command_without_setup_options_warns_of_nothing(capsys, clash, tmp_path: Path) -> None:
    text = tmp_path / "text.txt"
    text.write_text("one two three four five", encoding="utf-8")
    run = run_cli(capsys, "chunk", str(text), "--size", "3", "--overlap", "0")
    assert run.status == 0 and warnings(run.err) == []
    assert run_cli(capsys, "corpora").status == 0


def test_run_keeps_its_output_option(capsys, clash, tmp_path: Path) -> None:
    target = tmp_path / "clash.trec"
    run = run_cli(capsys, "run", "studio-alfa", "--scorer", "clash", "--output", str(target))
    assert run.status == 0, run.err
    assert target.read_text(encoding="utf-8").count("\n") > 0
    assert any("'output' has no flag in `ranklens run`: --output is the command's own" in line
               for line in warnings(run.err))


def test_ranklens_toml_still_sets_the_flagless_setting(capsys, clash, tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(bundled_path("studio-alfa"), folder)
    plain = run_cli(capsys, "search", str(folder), QUERY, "--scorer", "clash", "-k", "18", "--json").json
    toml = folder / "ranklens.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "backend = 3\n", encoding="utf-8")
    tripled = run_cli(capsys, "search", str(folder), QUERY, "--scorer", "clash", "-k", "18", "--json")
    assert tripled.status == 0, tripled.err
    assert scores(tripled.json) == {chunk: 3 * score for chunk, score in scores(plain).items()}
    assert scores(plain) and all(score == int(score) for score in scores(plain).values())


def test_help_shows_the_commands_option_once(capsys, clash) -> None:
    with pytest.raises(SystemExit):
        run_cli(capsys, "search", "--help")
    out = capsys.readouterr().out
    options = [line.split()[0] for line in out.splitlines() if line.startswith("  --")]
    assert options.count("--backend") == options.count("--json") == 1 and "--output" in options
