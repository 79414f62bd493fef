"""The qdrant extra stays optional: the command line and the engine load neither qdrant_edge nor qdrant_client
until a backend is asked for, and without the extra (either of its two packages) asking for one is one line
saying how to install it."""
from __future__ import annotations

import json
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

# None in sys.modules makes `import MODULE` fail as it does without the extra; each command line in turn, its exit
# status printed (one process: starting one per command line took most of the test's time)
MISSING = """
import json, sys
sys.modules[sys.argv[1]] = None
from ranklens.cli.main import main
for argv in json.loads(sys.argv[2]):
    print(main(argv), flush=True)
    print("--", file=sys.stderr, flush=True)
"""


def test_nothing_imports_qdrant_before_a_backend_is_used() -> None:
    out = subprocess.run([sys.executable, "-c", NOT_LOADED], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("module", ["qdrant_edge", "qdrant_client"])
def test_without_the_extra_a_backend_is_one_line_naming_it(module: str) -> None:
    argvs = [["eval", "studio-alfa", "--backend", "qdrant:nowhere"], ["push", "battery", "--to", "qdrant:nowhere"],
             ["eval", "studio-alfa", "--backend", "http://127.0.0.1:9"]]
    run = subprocess.run([sys.executable, "-c", MISSING, module, json.dumps(argvs)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2"] * len(argvs)
    assert run.stderr.split("--\n")[:-1] == \
        ["ranklens: the Qdrant backend needs the qdrant extra: pip install 'ranklens[qdrant]'\n"] * len(argvs)
