"""``ranklens judgments``: the workspace's questions and judgments on the command line: import, export,
judge, undo, the raters' rule and their agreement.

The judgments are the workspace's (``engine/workspace/store.py``), given by a rater (``--rater``, else the
login name: ``engine/judging/raters.py``); what this command reports counts them as every other command
does (``engine/judging/counted.py``). Engine modules are imported inside the command.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ranklens.cli.agreement import agreement_lines, rater_name, rater_names
from ranklens.cli.options import UsageError, add_workspace_options
from ranklens.cli.output import print_json, say, tell, terminal_text
from ranklens.cli.setup_args import loaded
from ranklens.cli.sides import load_with_workspace

if TYPE_CHECKING:
    from ranklens.engine.judging.agreement import Agreement
    from ranklens.engine.corpus import Corpus
    from ranklens.engine.retriever import Workbench
    from ranklens.engine.workspace.store import Workspace


def add_judgments(sub: Any) -> None:
    from ranklens.engine.judging.raters import RATER_RULES

    judgments = sub.add_parser("judgments", help="the workspace's questions and judgments: import, export, "
                                                 "judge, undo, raters' agreement")
    judgments.add_argument("corpus")
    judgments.add_argument("--import-qrels", metavar="FILE", help="add judgments from TREC qrels or a BEIR qrels TSV")
    judgments.add_argument("--import-queries", metavar="FILE",
                           help="add questions from a queries.jsonl ({\"_id\", \"text\"}) or a TSV (id<TAB>text)")
    judgments.add_argument("--export-qrels", metavar="FILE", help="write every judgment (corpus' and workspace's) "
                                                                  "as TREC qrels")
    judgments.add_argument("--export-queries", metavar="FILE", help="write every question as queries.jsonl")
    judgments.add_argument("--judge", nargs=3, metavar=("QUESTION", "ID", "GRADE"),
                           help="grade a chunk or document for a question (0 not relevant … 3 perfect)")
    judgments.add_argument("--undo", action="store_true", help="take back the rater's latest judgment")
    judgments.add_argument("--rater", metavar="NAME", type=rater_name,
                           help="who judges, imports or undoes (default: the login name)")
    judgments.add_argument("--rater-rule", choices=RATER_RULES,
                           help="declare how several raters' grades of a pair make one when measuring "
                                "(default latest)")
    judgments.add_argument("--agreement", action="store_true",
                           help="the raters' agreement: Cohen's and Fleiss' kappa, raw agreement, the questions "
                                "they disagree on most")
    judgments.add_argument("--raters", metavar="A,B", type=rater_names,
                           help="with --agreement: these raters only (names separated by commas)")
    add_workspace_options(judgments, measures=False)
    judgments.add_argument("--json", action="store_true")



def _grade(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"ranklens judgments: --judge: grade {text!r} is not a whole number") from None


def _check_streams(args: argparse.Namespace) -> None:
    """``-`` is standard input for one import and standard output for one export, the only output then."""
    from ranklens.engine.measuring.trec import STANDARD_STREAM as STREAM

    if args.import_qrels == STREAM and args.import_queries == STREAM:
        raise UsageError("ranklens judgments: --import-queries and --import-qrels cannot both read standard input")
    if args.export_qrels == STREAM and args.export_queries == STREAM:
        raise UsageError("ranklens judgments: --export-queries and --export-qrels cannot both write standard "
                         "output")
    if args.json and STREAM in (args.export_qrels, args.export_queries):
        raise UsageError("ranklens judgments: --json: an export to - writes standard output already")
    if args.raters and not args.agreement:
        raise UsageError("ranklens judgments: --raters: only with --agreement (it chooses whose agreement)")


def _judge(args: argparse.Namespace, workbench: Workbench, workspace: Workspace,
           question_ids: set[str]) -> dict[str, Any]:
    """``--judge``: a chunk of the corpus' own chunking (``ranklens.toml``'s, or its passages) judged with the
    text it covers, a document by its id."""
    from ranklens.engine.errors import RanklensError
    from ranklens.engine.judging.grades import GradeError, check_grade
    from ranklens.engine.judging.positions import span_of
    from ranklens.engine.retriever import setup_for

    corpus = workbench.corpus

    qid, ident, grade_text = args.judge
    try:
        grade = check_grade(_grade(grade_text), workspace.max_grade)
    except GradeError as error:
        raise UsageError(f"ranklens judgments: --judge: {error}") from None
    if qid not in question_ids:
        raise RanklensError(f"no question {qid!r} in {corpus.name} or its workspace")
    known = {d.id for d in corpus.documents} | {c.id for c in corpus.chunks}
    if ident not in known and ident.rpartition("#")[0] not in known:
        raise RanklensError(f"no chunk or document {ident!r} in {corpus.name}")
    span = span_of(workbench.chunks(setup_for(corpus)), ident)
    judgment = workspace.judge(qid, ident, grade, span=span)
    return {"question": qid, "id": ident, "grade": grade, "previous": judgment.previous, "rater": judgment.rater,
            "span": None if span is None else {"doc": span.doc, "start": span.start, "end": span.end}}


def run_judgments(args: argparse.Namespace, overrides: dict[str, Any]) -> int:
    from ranklens.engine.judging.raters import shown_rater
    from ranklens.engine.measuring.trec import STANDARD_STREAM
    from ranklens.engine.workspace.transfer import export_qrels, export_questions, import_qrels, import_questions

    _check_streams(args)
    loaded_corpus = loaded(args)  # the workspace's changes below are applied to it again, not to a second read
    judged, workspace, workbench = load_with_workspace(args, loaded_corpus)
    if args.rater is not None:
        workspace = workspace.as_rater(args.rater)
    corpus = judged.corpus
    report = _agreement(workspace, corpus, args.raters) if args.agreement else None
    done: dict[str, Any] = {}
    question_ids = {q.id for q in corpus.questions}
    if args.import_queries:
        stored = import_questions(workspace, args.import_queries)
        done["imported_questions"] = len(stored)
        question_ids |= {q.id for q in stored}
    if args.import_qrels:
        done["imported_judgments"], warnings = import_qrels(workspace, args.import_qrels, question_ids)
        for warning in warnings:
            tell("warning", warning)
    if args.judge:
        done["judged"] = _judge(args, workbench, workspace, question_ids)
    if args.undo:
        reversal = workspace.undo()
        done["undone"] = None if reversal is None else {"question": reversal.question, "id": reversal.id,
                                                        "grade": reversal.grade, "rater": reversal.rater}
        if reversal is None:
            tell("note", f"nothing of {terminal_text(shown_rater(workspace.rater))}'s to undo")
    if args.rater_rule:
        workspace.set_rater_rule(args.rater_rule)
        done["rater_rule_set"] = args.rater_rule
    if args.import_queries or args.import_qrels or args.judge or args.undo or args.rater_rule:
        corpus, _ = workspace.apply(loaded_corpus)
    if args.export_qrels:
        done["exported_qrels"] = export_qrels(corpus, args.export_qrels)
    if args.export_queries:
        done["exported_questions"] = export_questions(corpus, args.export_queries)
    own = workspace.questions()
    ratings = workspace.ratings()
    raters = sorted({rater for ids in ratings.values() for by in ids.values() for rater in by})
    summary = {"workspace": str(workspace.root), "questions": len(corpus.questions), "own_questions": len(own),
               "judged_questions": len(ratings), "judgments": sum(len(g) for g in ratings.values()),
               "log_entries": len(workspace.log()), "runs": len(workspace.run_names()),
               "max_grade": workspace.max_grade, "raters": raters, "rater_rule": workspace.rater_rule(), **done}
    if report is not None:
        report = _agreement(workspace, corpus, args.raters)  # after this command's own judgments
        summary.update(report.to_dict())
    if args.json:
        return print_json(summary)
    by_raters = "" if len(raters) < 2 else f" by {len(raters)} raters ({summary['rater_rule']} counts)"
    lines = [f"# {corpus.name} · workspace {workspace.root}",
             f"{summary['questions']} questions ({summary['own_questions']} of the workspace), "
             f"{summary['judgments']} judgments of {summary['judged_questions']} questions in the workspace"
             f"{by_raters}, {summary['runs']} saved runs · grades 0-{workspace.max_grade}",
             *_done_lines(done, args), *(agreement_lines(report) if report is not None else [])]
    exported = STANDARD_STREAM in (args.export_qrels, args.export_queries)
    for line in lines:  # with an export on standard output, the export alone goes there
        if exported:
            tell("note", line)
        else:
            say(line)
    return 0


def _done_lines(done: dict[str, Any], args: argparse.Namespace) -> list[str]:
    """What the options did, one sentence each."""
    from ranklens.engine.judging.raters import shown_rater

    lines = []
    if "imported_questions" in done:
        lines.append(f"imported {_count(done['imported_questions'], 'question')} from {args.import_queries}")
    if "imported_judgments" in done:
        lines.append(f"imported {_count(done['imported_judgments'], 'judgment')} from {args.import_qrels}")
    if "judged" in done:
        judged = done["judged"]
        was = "unjudged" if judged["previous"] is None else f"grade {judged['previous']}"
        lines.append(f"judged {judged['id']} for {judged['question']}: grade {judged['grade']} by "
                     f"{shown_rater(judged['rater'])} (was {was})")
    if "undone" in done and done["undone"] is not None:
        undone = done["undone"]
        now = "unjudged again" if undone["grade"] is None else f"back to grade {undone['grade']}"
        lines.append(f"undone: {undone['id']} for {undone['question']} is {now} for {shown_rater(undone['rater'])}")
    if "rater_rule_set" in done:
        lines.append(f"rater rule: {done['rater_rule_set']} (several raters' grades of a pair make one so)")
    if "exported_qrels" in done:
        lines.append(f"exported {_count(done['exported_qrels'], 'judgment')} to {args.export_qrels}")
    if "exported_questions" in done:
        lines.append(f"exported {_count(done['exported_questions'], 'question')} to {args.export_queries}")
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _agreement(workspace: Workspace, corpus: Corpus, raters: list[str] | None) -> Agreement:
    from ranklens.engine.judging.agreement import agreement

    return agreement(workspace.ratings(), {q.id: q.text for q in corpus.questions}, raters)
