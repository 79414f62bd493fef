"""Importing and exporting the workspace's questions and judgments from the palette (issue 12): the same
files `ranklens judgments` reads and writes, the Metrics tab counting an import at once, undo taking an
imported judgment back, a file replaced only on a yes, bad files and hostile file names as one line."""
from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ranklens.tui.panes.metrics import MetricsPane
from tests.support.app import name_rater, notifications, open_path, running, settle, until
from tests.support.cli import run_cli

SIZE = (100, 30)
UNANSWERED = "qual è la politica sulle auto aziendali elettriche"  # studio-alfa's; no judgment of its own


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def measured_questions(app) -> int:  # noqa: ANN001
    return app.query_one(MetricsPane).result.question_count


async def palette(pilot, name: str, path: Path) -> None:  # noqa: ANN001
    next(c for c in pilot.app.palette_commands() if c.name == name).run()
    await open_path(pilot, path)


async def test_exports_replace_only_on_yes_bad_files_are_one_line_and_imports_are_measured_undone_and_exported(
        tmp_path: Path, capsys) -> None:  # noqa: ANN001
    queries, qrels = tmp_path / "mine.tsv", tmp_path / "mine.qrels"
    queries.write_text(f"m1\t{UNANSWERED}\nm2\tdove trovo il modulo delle ferie\n")
    qrels.write_text("m1 0 accessi-1 2\nm2 0 ferie-1 3\nm2 0 ferie-2 0\n")
    kept = tmp_path / "[bold]kept [TODO] a.qrels"
    kept.write_text("precious\n")
    kept.chmod(0o640)
    broken = tmp_path / "broken.qrels"
    broken.write_text("q01 0 ferie-1 2\nq01 ferie-2\n")
    async with running(size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape")
        # With none of the user's judgments yet: an export replaces a file only on yes, a bad file is one line.
        await palette(pilot, "Export judgments (qrels)…", kept)
        assert str(app.screen.query_one(".dialog-title").render()) == f"{kept} exists. Overwrite it?"
        await pilot.press("n")
        await settle(pilot)
        assert kept.read_text() == "precious\n"
        await palette(pilot, "Export judgments (qrels)…", kept)
        await pilot.press("y")
        await until(pilot, lambda: kept.read_text() != "precious\n")
        assert f"exported 15 judgments to {kept}" in notifications(app)  # the name literal, not markup
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640  # as the tabs' saves: a replaced file keeps its mode

        await palette(pilot, "Import judgments (qrels)…", broken)
        await until(pilot, lambda: any("broken.qrels:2" in n for n in notifications(app)))
        assert f"{broken}:2: expected 4 fields (qid 0 docid grade), got 2" in notifications(app)
        assert app.context.workspace.judgments() == {}  # nothing half imported

        await pilot.press("2")
        await settle(pilot)
        assert measured_questions(app) == 15
        await palette(pilot, "Import questions…", queries)
        assert f"imported 2 questions from {queries}" in notifications(app)
        await palette(pilot, "Import judgments (qrels)…", qrels)
        await until(pilot, lambda: measured_questions(app) == 17)  # both answerable now, measured at once
        assert any(n.startswith(f"imported 3 judgments from {qrels}") for n in notifications(app))
        workspace = app.context.workspace
        assert workspace.judgments() == {"m1": {"accessi-1": 2}, "m2": {"ferie-1": 3, "ferie-2": 0}}

        await pilot.press("1", "J", "u")  # undo takes the last imported judgment back
        await name_rater(pilot)  # the login name, who imported them
        await pilot.press("J")
        # the undo is written by a worker the dialog's answer starts: wait on the log, not on the workers seen now
        await until(pilot, lambda: workspace.judgments() == {"m1": {"accessi-1": 2}, "m2": {"ferie-1": 3}})

        exported = tmp_path / "out.qrels"
        await palette(pilot, "Export judgments (qrels)…", exported)
        await until(pilot, lambda: exported.exists())
        await palette(pilot, "Export questions…", tmp_path / "out.jsonl")
        await until(pilot, lambda: (tmp_path / "out.jsonl").exists())
    # the CLI writes the same files from the same workspace
    assert run_cli(capsys, "judgments", "studio-alfa", "--export-qrels", str(tmp_path / "cli.qrels"),
                   "--export-queries", str(tmp_path / "cli.jsonl")).status == 0
    assert exported.read_text() == (tmp_path / "cli.qrels").read_text()
    assert "m1 0 accessi-1 2\n" in exported.read_text() and "ferie-2" not in exported.read_text()
    assert (tmp_path / "out.jsonl").read_text() == (tmp_path / "cli.jsonl").read_text()


async def test_an_export_never_writes_inside_the_corpus_folder(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("ferie e permessi\n")
    async with running(str(folder), size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("escape")
        await palette(pilot, "Export questions…", folder / "questions.jsonl")
        await until(pilot, lambda: any("never writes there" in n for n in notifications(app)))
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt"]
