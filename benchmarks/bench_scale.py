"""A large corpus from the user's side: cold index, warm open, one search, the TUI; ranklens beside tantivy.

    python -m benchmarks.run --only scale --sizes 1m

Every step is a fresh process run through ``benchmarks.peak`` (its own peak
memory; a cold ranklens index' helper processes are not counted), timed by this one
from spawn to exit; one at a time. ranklens works on
the Zipf corpus written as a BEIR folder (``Synthetic.beir_folder``) with a
cache folder of its own, empty before the cold index. tantivy (0.27, one
indexing thread, searched on one thread) indexes the same records. A warm
``search`` is the whole command, interpreter and imports included, median of 3.
The queries job opens warm in process and answers 200 Zipf-mix and 200
rare-term queries (top 10), one at a time (p50) and in a row (queries/s, the median of three passes).
``ranklens eval`` of the folder's 300 questions is a whole process too, beside
tantivy's top 10 of each (``scale_jobs tantivy-eval``).
The TUI row (when tmux is installed) starts ``ranklens FOLDER`` warm at 100×30,
types a query as soon as the query box shows and times the first result row.
Warm includes Python's bytecode: the package is compiled first, as its first run
or a pip install leaves it (with PYTHONDONTWRITEBYTECODE set and no compiled
files, every start compiles ~100 modules again: 0.4-0.6 s more on each whole process).
"""
from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common import REPO, Table, fmt_bytes, fmt_ms, fmt_rate, fmt_ratio, fmt_seconds, fmt_size
from benchmarks.compare import log
from benchmarks.corpora import CACHE, Synthetic

QUERIES = 200
SEARCH_RUNS = 3
TUI_TIMEOUT_S = 120.0
_FIRST_ROW = re.compile(r"│ +1 +\S+ +\d+\.\d+ ")  # the results table's first row: rank, grade, score


@dataclass
class Step:
    wall_s: float | None = None
    peak: int | None = None
    result: dict = field(default_factory=dict)
    failed: str = ""


def run_step(module: str, *args: str, env: dict[str, str] | None = None) -> Step:
    """``python -m benchmarks.peak OUT MODULE ARGS``: its wall time, peak memory and JSON output."""
    with tempfile.NamedTemporaryFile(dir=CACHE, suffix=".peak") as out:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "benchmarks.peak", out.name, module, *args], cwd=REPO,
                              env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            return Step(failed=(done.stderr.strip().splitlines() or ["failed"])[-1])
        peak = int(Path(out.name).read_text() or -1)
    return Step(wall, peak, _json_output(done.stdout))


def _json_output(stdout: str) -> dict:
    """The step's JSON: all of its output (``ranklens eval --json``), else its last line (the jobs')."""
    for text in (stdout, (stdout.strip().splitlines() or [""])[-1]):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            continue
        return value if isinstance(value, dict) else {}
    return {}


def searches(module: str, *args: str, env: dict[str, str] | None = None) -> Step:
    """A one-search process ``SEARCH_RUNS`` times: the median wall time, the highest peak."""
    steps = [run_step(module, *args, env=env) for _ in range(SEARCH_RUNS)]
    failed = [s.failed for s in steps if s.failed]
    if failed:
        return Step(failed=failed[0])
    return Step(statistics.median(s.wall_s or 0.0 for s in steps), max(s.peak or 0 for s in steps))


def tui_first_results(folder: Path, env: dict[str, str], query: str) -> float | None:
    """Seconds from starting the TUI to the first result row of ``query``, typed once the query box shows."""
    if shutil.which("tmux") is None:
        return None
    session = "ranklens-bench-scale"
    command = " ".join([f"{k}={v}" for k, v in env.items() if k.startswith(("RANKLENS_", "XDG_"))]
                       + [sys.executable, "-m", "ranklens.cli.main", str(folder)])
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    started = time.perf_counter()
    subprocess.run(["tmux", "new", "-d", "-s", session, "-x", "100", "-y", "30", command], check=True, cwd=REPO)
    typed = False
    try:
        while time.perf_counter() - started < TUI_TIMEOUT_S:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True,
                                    text=True).stdout
            if not typed and "Ask a question" in screen:
                subprocess.run(["tmux", "send-keys", "-t", session, query])
                typed = True
            if typed and _FIRST_ROW.search(screen):
                return time.perf_counter() - started
            time.sleep(0.05)
        return None
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def run(sizes: list[int], quick: bool) -> list[Table]:
    import compileall

    for package in ("engine", "cli", "tui"):
        compileall.compile_dir(REPO / package, quiet=1)
    return [_run_size(n, quick) for n in sizes]


def _run_size(n: int, quick: bool) -> Table:
    import os

    spec = Synthetic(n)
    folder = spec.beir_folder(300)
    zipf = spec.query_texts()[:QUERIES]
    rare, _ = spec.rare_queries(None, QUERIES)
    work = Path(tempfile.mkdtemp(prefix="scale-", dir=CACHE))
    try:
        (work / "zipf.txt").write_text("\n".join(zipf) + "\n", encoding="utf-8")
        (work / "rare.txt").write_text("\n".join(rare) + "\n", encoding="utf-8")
        env = {**os.environ, "RANKLENS_CACHE_DIR": str(work / "ranklens-cache"),
               "XDG_DATA_HOME": str(work / "data")}
        query = zipf[0]
        log(f"scale {fmt_size(n)}: ranklens cold index…")
        ours = {"index": run_step("ranklens.cli.main", "index", str(folder), env=env)}
        os.sync()  # the index written out: its write-back would share the cores with the warm steps
        log("scale: ranklens warm searches…")
        ours["search"] = searches("ranklens.cli.main", "search", str(folder), query, env=env)
        ours["zipf"] = run_step("benchmarks.scale_jobs", "queries", "ranklens", str(folder), str(work / "zipf.txt"),
                                env=env)
        ours["rare"] = run_step("benchmarks.scale_jobs", "queries", "ranklens", str(folder), str(work / "rare.txt"),
                                env=env)
        log("scale: ranklens eval…")
        ours["eval"] = run_step("ranklens.cli.main", "eval", str(folder), "--json", env=env)
        tui = None if quick else tui_first_results(folder, env, query)
        log("scale: tantivy…")
        index_dir = str(work / "tantivy")
        theirs = {"index": run_step("benchmarks.scale_jobs", "tantivy-index", str(folder), index_dir)}
        os.sync()
        if not theirs["index"].failed:
            theirs["search"] = searches("benchmarks.scale_jobs", "tantivy-search", index_dir, query)
            theirs["zipf"] = run_step("benchmarks.scale_jobs", "queries", "tantivy", index_dir, str(work / "zipf.txt"))
            theirs["rare"] = run_step("benchmarks.scale_jobs", "queries", "tantivy", index_dir, str(work / "rare.txt"))
            theirs["eval"] = run_step("benchmarks.scale_jobs", "tantivy-eval", str(folder), index_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _table(n, ours, theirs, tui)


def _table(n: int, ours: dict[str, Step], theirs: dict[str, Step], tui: float | None) -> Table:
    table = Table(f"Scale: {fmt_size(n)} chunks, cold index and warm open, ranklens vs tantivy",
                  ["step", "ranklens", "tantivy", "ratio"])

    def row(label: str, key: str, read, fmt) -> None:
        a, b = ours.get(key), theirs.get(key)
        va = read(a) if a and not a.failed else None
        vb = read(b) if b and not b.failed else None
        cells = [fmt(va) if va is not None else (a.failed if a else "—"),
                 fmt(vb) if vb is not None else (b.failed if b else "—")]
        table.add(label, *cells, fmt_ratio(va, vb))

    row("cold index, whole process (wall)", "index", lambda s: s.wall_s, fmt_seconds)
    row("cold index, peak memory", "index", lambda s: s.peak, fmt_bytes)
    row("warm `search` process, end to end (median of 3)", "search", lambda s: s.wall_s, fmt_seconds)
    row("warm `search` process, peak memory", "search", lambda s: s.peak, fmt_bytes)
    row("warm open in process (imports included)", "zipf", lambda s: s.result.get("open_s"), fmt_seconds)
    row("Zipf mix, p50 ms (single queries)", "zipf", lambda s: s.result.get("p50_ms"), fmt_ms)
    row("Zipf mix, queries/s", "zipf", lambda s: s.result.get("queries_per_s"), fmt_rate)
    row("rare terms, p50 ms (single queries)", "rare", lambda s: s.result.get("p50_ms"), fmt_ms)
    row("rare terms, queries/s", "rare", lambda s: s.result.get("queries_per_s"), fmt_rate)
    row("queries job, peak memory (Zipf)", "zipf", lambda s: s.peak, fmt_bytes)
    row("eval of the 300 questions, whole process (wall)", "eval", lambda s: s.wall_s, fmt_seconds)
    row("eval, queries/s", "eval", lambda s: s.result.get("queries_per_s", s.result.get("timing", {}).get(
        "queries_per_s")), fmt_rate)
    row("eval, peak memory", "eval", lambda s: s.peak, fmt_bytes)
    row("eval, nDCG@10", "eval", lambda s: s.result.get("ndcg@10", s.result.get("metrics", {}).get("ndcg@10")),
        lambda v: f"{v:.4f}")
    table.add("TUI: start to first result row, warm (tmux 100×30)", fmt_seconds(tui) if tui else "not measured",
              "", "")
    table.notes += [
        "ratios are ranklens / tantivy; for queries/s higher is better, for the rest lower is",
        "queries on one thread each; the cold index uses every core for ranklens (its analysis shared with one "
        "helper process per spare core, whose memory the peak does not count) and one writer thread for tantivy",
    ]
    return table
