"""The qdrant extra stays optional: the command line and the engine load neither qdrant_edge nor qdrant_client
until a backend is asked for, and without the extra (either of its two packages) asking for one is one line
saying how to install it."""
from __future__ import annotations

import subprocess
import sys

import pytest

NOT_LOADED = """
import sys
from ranklens.cli.main import build_parser
from ranklens.engine.retriever import Workbench
build_parser().parse_args(["eval", "studio-alfa", "--backend", "qdrant:x"])
print(sorted(m for m in sys.modules if m.split(".")[0] in ("qdrant_client", "qdrant_edge")))
"""

# None in sys.modules makes `import MODULE` fail as it does without the extra
MISSING = """
import sys
sys.modules[sys.argv.pop(1)] = None
from ranklens.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_nothing_imports_qdrant_before_a_backend_is_used() -> None:
    out = subprocess.run([sys.executable, "-c", NOT_LOADED], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("module", ["qdrant_edge", "qdrant_client"])
def test_without_the_extra_a_backend_is_one_line_naming_it(module: str) -> None:
    for argv in (["eval", "studio-alfa", "--backend", "qdrant:nowhere"], ["push", "battery", "--to", "qdrant:nowhere"],
                 ["eval", "studio-alfa", "--backend", "http://127.0.0.1:9"]):
        run = subprocess.run([sys.executable, "-c", MISSING, module, *argv], capture_output=True, text=True)
        assert run.returncode == 2
        assert run.stderr == "ranklens: the Qdrant backend needs the qdrant extra: pip install 'ranklens[qdrant]'\n"
