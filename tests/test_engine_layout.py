"""The engine's layout: a dozen modules or fewer at its top, subpackages that say what they hold, and no
package whose own names hide one of its modules."""
from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "engine"


def packages() -> list[Path]:
    return sorted(init.parent for init in ENGINE.rglob("__init__.py"))


def test_the_engine_top_holds_a_dozen_modules_or_fewer() -> None:
    top = sorted(path.name for path in ENGINE.glob("*.py") if path.name != "__init__.py")
    assert len(top) <= 12, top


def test_every_subpackage_says_what_it_holds() -> None:
    silent = [str(package.relative_to(ENGINE)) for package in packages()
              if not ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))]
    assert silent == []


def top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def test_no_package_defines_a_name_of_its_own_modules() -> None:
    # Importing a submodule sets the package's attribute of that name to the module: a function of the same
    # name in __init__.py is then replaced, and `from package import name` returns the module or the function
    # depending on what ran first.
    clashes = {}
    for package in packages():
        modules = {path.stem for path in package.glob("*.py")} | {path.name for path in package.iterdir()
                                                                  if (path / "__init__.py").exists()}
        defined = top_level_names(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
        if defined & modules:
            clashes[str(package.relative_to(ENGINE))] = sorted(defined & modules)
    assert clashes == {}


def test_the_check_sees_a_clash(tmp_path: Path) -> None:
    tree = ast.parse("def token_windows(text):\n    return text\n")
    assert "token_windows" in top_level_names(tree)
