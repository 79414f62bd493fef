"""`ranklens compare` next to ranx's `compare` on the same runs and qrels, measure by measure.

    python -m tools.ranx_compare CORPUS "bm25" "tfidf" [--metrics "nDCG@10 MRR@10 P@5 R@100 MAP"]

Both setups are run as `ranklens run` does (depth 100), written as TREC files with the judgments
resolved under their chunking (TREC qrels); ranklens compares them in-process, ranx reads the
files with `Run.from_file` / `Qrels.from_file` and compares them with its paired t-test and its
Fisher randomization test (10,000 permutations, seed 42). ranx sorts a run by score with an
unstable sort, so a run whose scores tie is handed to ranx with scores made from ranklens' ranks
(the tie count is printed): both then measure the same rankings. Needs ranx (the test extra).
"""
from __future__ import annotations

import argparse
import shlex
import tempfile
from pathlib import Path

from ranklens.cli.options import Parser, add_setup_options, setup_overrides
from ranklens.engine.comparing.two_runs import RunSide, compare_runs
from ranklens.engine.corpus.loaders import load_corpus
from ranklens.engine.measuring.measures import DEFAULT_MEASURES, parse_measures
from ranklens.engine.retriever import Workbench, setup_for
from ranklens.engine.measuring.runs import DEFAULT_DEPTH, make_run, resolved_qrels
from ranklens.engine.measuring.trec import read_run, write_qrels, write_run

RANX_NAMES = {"nDCG": "ndcg", "MRR": "mrr", "hit": "hit_rate", "P": "precision", "R": "recall", "MAP": "map",
              "Rprec": "r-precision"}


def ranx_name(name: str) -> str:
    family, _, k = name.partition("@")
    return RANX_NAMES[family] + (f"@{k}" if k else "")


def side(spec: str, corpus, workbench: Workbench, folder: Path, name: str) -> tuple[RunSide, Path, Path]:
    words = shlex.split(spec)
    if words and not words[0].startswith("-"):
        words = ["--scorer", *words]
    parser = Parser(prog="setup", add_help=False)
    add_setup_options(parser)
    setup = setup_for(corpus, {"k": DEFAULT_DEPTH}, setup_overrides(parser.parse_args(words)))
    retriever = workbench.retriever(setup)
    run = make_run(retriever, corpus.questions, setup.k, name)
    qrels = resolved_qrels(retriever, corpus.questions)
    write_run(folder / f"{name}.run", run)
    write_qrels(folder / f"{name}.qrels", {q: g for q, g in qrels.items() if g})
    return RunSide(spec, run, qrels, setup.describe()), folder / f"{name}.run", folder / f"{name}.qrels"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--metrics", default=DEFAULT_MEASURES)
    args = parser.parse_args()
    from ranx import Qrels, Run, compare

    corpus = load_corpus(args.corpus)
    workbench = Workbench(corpus)
    measures = parse_measures(args.metrics)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        a, run_a, qrels_a = side(args.a, corpus, workbench, folder, "A")
        b, run_b, qrels_b = side(args.b, corpus, workbench, folder, "B")
        if qrels_a.read_text() != qrels_b.read_text():
            raise SystemExit("A and B chunk differently: ranx compares runs against one qrels")
        ours = compare_runs(a, b, corpus.questions, measures)
        qrels = Qrels.from_file(str(qrels_a), kind="trec")
        runs = []
        for path, label in ((run_a, "A"), (run_b, "B")):
            read = read_run(path)
            ties = sum(int(w.split(": ")[1].split()[0]) for w in read.warnings if " tie " in w)
            if ties:
                run = Run({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in read.ids().items()},
                          name=label)
            else:
                run = Run.from_file(str(path), kind="trec")
                run.name = label
            print(f"run {label}: {ties} tied score(s) in the file" + (" -> ranx given ranklens' order" if ties
                                                                       else " -> ranx reads the file"))
            runs.append(run)
        names = [ranx_name(m.name) for m in measures]
        student = compare(qrels, runs, names, stat_test="student", make_comparable=True, rounding_digits=4)
        fisher = compare(qrels, runs, names, stat_test="fisher", n_permutations=10_000, random_seed=42,
                         make_comparable=True, rounding_digits=4)
    print(f"{corpus.name}: A = {a.describe}; B = {b.describe}; {len(ours.questions)} questions")
    print(f"{'measure':<9} {'A ranklens':>10} {'A ranx':>8} {'B ranklens':>10} {'B ranx':>8} "
          f"{'p t ranklens':>12} {'p t ranx':>9} {'p rand ranklens':>15} {'p Fisher ranx':>13}")
    for measure, row in zip(measures, ours.rows):
        r = ranx_name(measure.name)
        print(f"{measure.name:<9} {row.a:>10.4f} {student.results['A'][r]:>8.4f} {row.b:>10.4f} "
              f"{student.results['B'][r]:>8.4f} {row.p_ttest:>12.4f} "
              f"{student.comparisons['A', 'B'][r]['p_value']:>9.4f} {row.p_randomization:>15.4f} "
              f"{fisher.comparisons['A', 'B'][r]['p_value']:>13.4f}")


if __name__ == "__main__":
    main()
