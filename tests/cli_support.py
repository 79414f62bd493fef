"""Running the ``ranklens`` command in-process, as scripts and users call it."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from ranklens.cli.main import main


@dataclass
class Run:
    status: int
    out: str
    err: str

    @property
    def json(self):
        return json.loads(self.out)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    status = main(list(argv))
    captured = capsys.readouterr()
    return Run(status, captured.out, captured.err)
