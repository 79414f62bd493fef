"""ranklens as a library: a corpus opened, searched, evaluated, compared and run from Python.

    import ranklens as rl
    wb = rl.open("studio-alfa")                       # a bundled name or a path; workspace= as --workspace
    hits = wb.search("ho cancellato un file per sbaglio", "bm25 --stem it", k=5)
    ev = wb.evaluate("bm25 --stem it")                 # .metrics, .per_question, .to_frame()
    cmp = wb.compare("bm25", "bm25 --stem it", "tfidf", metrics="nDCG@10 MRR@10")   # the first is the baseline
    run = wb.run("bm25", k=100)                        # .to_dict() {qid: {id: score}}, .to_trec(path)
    rl.evaluate(qrels, run, "nDCG@10 bpref")           # dicts or TREC files, as ir_measures takes them

Results print as the command line prints them, their numbers equal its JSON (``to_dict``), and
``to_frame`` makes a pandas DataFrame (the ``notebook`` extra). Errors are ``RanklensError``, one line.
Importing this package is cheap: numpy, scipy and the engine load at the first call that needs them.
See docs/python.md.
"""
from ranklens.engine.errors import RanklensError
from ranklens.measuring import Measured, evaluate
from ranklens.results import Comparison, Evaluation, Hits, Run
from ranklens.workbench import Workbench, open  # noqa: A004 (rl.open, as the contract names it)

__all__ = ["Comparison", "Evaluation", "Hits", "Measured", "RanklensError", "Run", "Workbench", "evaluate", "open"]
