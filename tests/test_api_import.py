"""``import ranklens`` stays cheap, and the package is laid out so that every installer and checker finds it.

A subprocess imports ranklens alone and lists what it loaded: numpy, scipy, scikit-learn, pandas,
Rich and Textual load at the first call that needs them, never at the import. The import time is
measured in benchmarks, not here (timed tests are flaky on a shared machine).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"numpy", "scipy", "sklearn", "pandas", "textual", "rich", "Stemmer", "orjson"}


def test_import_ranklens_loads_nothing_heavy() -> None:
    code = "import json, sys; import ranklens; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                       cwd=ROOT).stdout)
    assert not {name.split(".")[0] for name in loaded} & HEAVY
    assert "ranklens.engine.retriever" not in loaded and "ranklens.cli.sides" not in loaded


def test_the_public_names() -> None:
    import ranklens

    assert set(ranklens.__all__) == {"open", "evaluate", "RanklensError", "Workbench", "Hits", "Evaluation",
                                     "Comparison", "Run", "Measured"}
    assert all(hasattr(ranklens, name) for name in ranklens.__all__)


def test_the_package_is_mapped_beside_its_subpackages() -> None:
    tools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    setuptools = tools["setuptools"]
    assert "ranklens" in setuptools["packages"] and setuptools["package-dir"]["ranklens"] == "ranklens"
    assert {"engine", "cli", "tui", "corpora"} <= {folder for name, folder in setuptools["package-dir"].items()
                                                  if name.startswith("ranklens.")}


def test_mypy_sees_every_module_of_the_api() -> None:
    # mypy reads ranklens through .mypy/ranklens/, where each file of ranklens/ needs its link
    links = ROOT / ".mypy" / "ranklens"
    for module in (ROOT / "ranklens").glob("*.py"):
        link = links / module.name
        assert link.is_symlink() and link.resolve() == module.resolve(), f".mypy/ranklens/{module.name} is missing"
