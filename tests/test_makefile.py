"""The Makefile's installs are quiet: `make run` and `make test` show the app or the tests, not pages of
build-backend warnings (issue 10). A fresh install is too slow for the suite; the rule is checked here."""
from __future__ import annotations

import re
from pathlib import Path

MAKEFILE = Path(__file__).resolve().parents[1] / "Makefile"


def test_every_install_goes_through_the_quiet_command() -> None:
    text = MAKEFILE.read_text(encoding="utf-8")
    quiet = re.search(r"^PIP_INSTALL := (.*)$", text, re.MULTILINE)
    assert quiet and "--quiet" in quiet.group(1) and "PYTHONWARNINGS=ignore" in quiet.group(1)
    recipes = [line for line in text.splitlines() if line.startswith("\t")]
    installs = [line for line in recipes if "pip install" in line or "PIP_INSTALL" in line]
    assert installs and all("$(PIP_INSTALL)" in line for line in installs), installs
