"""The engine is a library: no Textual in it, and scikit-learn only when LSA or k-means runs."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "engine"


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_engine_module_imports_textual_or_rich() -> None:
    offenders = {p.name for p in ENGINE.rglob("*.py") if imported_modules(p) & {"textual", "rich", "tui"}}
    assert offenders == set()


def test_engine_imports_without_textual_or_sklearn_until_lsa() -> None:
    code = (
        "import sys\n"
        "import ranklens.engine.retriever, engine.loaders, engine.metrics, engine.ivf, engine.prompt, engine.vectors\n"
        "from ranklens.engine.loaders import load_corpus\n"
        "from ranklens.engine.retriever import Workbench, setup_for\n"
        "c = load_corpus('studio-alfa'); wb = Workbench(c)\n"
        "wb.retriever(setup_for(c, {'scorer': 'bm25'})).evaluate()\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
        "assert 'sklearn' not in sys.modules, 'sklearn imported before LSA'\n"
        "wb.retriever(setup_for(c, {'scorer': 'lsa', 'dims': 8})).evaluate()\n"
        "assert 'sklearn' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
