"""The engine is a library: no Textual in it, and scikit-learn only when LSA or k-means runs.

And ranklens installs under one name: its folders are ``ranklens.engine``,
``ranklens.tui``... and none of them is importable on its own.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENGINE = REPO / "engine"
FRONT_ENDS = ("textual", "rich", "ranklens.tui", "ranklens.cli")


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, by its full dotted name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def imports_front_end(path: Path) -> bool:
    return any(name == top or name.startswith(top + ".") for name in imported_modules(path) for top in FRONT_ENDS)


def test_the_boundary_check_sees_a_front_end_import(tmp_path: Path) -> None:
    module = tmp_path / "leaky.py"
    module.write_text("from ranklens.tui.safe import safe_text\n", encoding="utf-8")
    assert imports_front_end(module)


def test_no_engine_module_imports_textual_or_rich() -> None:
    offenders = {p.name for p in ENGINE.rglob("*.py") if imports_front_end(p)}
    assert offenders == set()


def test_engine_imports_without_textual_or_sklearn_until_lsa() -> None:
    # LSA's and IVF's modules are imported: scikit-learn waits for a fit (an LSA scorer, an IVF index) to be
    # made, which the tests of LSA and IVF make (importing scikit-learn would take this process 1.7 s)
    code = (
        "import sys\n"
        "import ranklens.engine.retriever, ranklens.engine.corpus.loaders, ranklens.engine.measuring.metrics\n"
        "import ranklens.engine.prompt, ranklens.engine.scoring.lsa\n"
        "import ranklens.engine.ann.ivf, ranklens.engine.ann.vectors, ranklens.engine.settings\n"
        "from ranklens.engine.corpus.loaders import load_corpus\n"
        "from ranklens.engine.retriever import Workbench, setup_for\n"
        "c = load_corpus('studio-alfa'); wb = Workbench(c)\n"
        "wb.retriever(setup_for(c, {'scorer': 'bm25'})).evaluate()\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
        "assert 'sklearn' not in sys.modules, 'sklearn imported before LSA'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_only_the_ranklens_namespace_is_installed(tmp_path: Path) -> None:
    # From a folder outside the repository, as a pip user runs it: the folders are not packages of their own.
    code = (
        "import importlib.util as u\n"
        "bare = [name for name in ('engine', 'tui', 'cli', 'corpora') if u.find_spec(name) is not None]\n"
        "assert not bare, f'a bare folder imports: {bare}'\n"
        "import ranklens.engine, ranklens.tui, ranklens.cli.main, ranklens.corpora\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
