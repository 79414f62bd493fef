"""Measures of a run against judgments, named as ir_measures names them: ``"nDCG@10 R@100 MRR@10 P@5"``.

One module per measure, each a small function ``(ranked, grades, k) -> float`` of one
question with its definition in the docstring; this module parses names and averages.
Values equal ranx's (and trec_eval's) on the same ranking and qrels (``tests/test_measures.py``,
``tests/test_measures_incomplete.py`` against trec_eval itself through pytrec_eval):

- a chunk is relevant when its grade is >= 1; grades are nDCG's gains (linear);
- the ranking is read as given: ``engine/measuring/trec.py`` orders a run file by score, ties by its
  rank column (trec_eval breaks ties by docid, ranx arbitrarily: a run with tied scores may
  measure differently there);
- the questions measured are those with something relevant; one missing from the run has
  an empty ranking and scores 0 (ranx's ``make_comparable``, trec_eval ``-c``);
- ``@k`` cuts the ranking at ``k``; without it the whole ranking counts;
- the measures of incomplete judgments tell a chunk judged not relevant (grade 0) from one
  never judged: ``judged@k`` (coverage of the top k), ``bpref`` (trec_eval's) and the
  condensed-list ("prime") ``nDCG_prime@k`` and ``P_prime@k`` (Sakai 2007), also written
  ``nDCG'@k`` and ``P'@k``; the others count an unjudged chunk as not relevant.

Plain Python, no numpy: cheap to import before the TUI paints.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ranklens.engine.errors import RanklensError
from ranklens.engine.measuring.measures.average_precision import average_precision
from ranklens.engine.measuring.measures.bpref import bpref
from ranklens.engine.measuring.measures.judged_share import judged_share
from ranklens.engine.measuring.measures.ndcg import ndcg
from ranklens.engine.measuring.measures.ndcg_prime import ndcg_prime
from ranklens.engine.measuring.measures.precision import precision
from ranklens.engine.measuring.measures.precision_prime import precision_prime
from ranklens.engine.measuring.measures.r_precision import r_precision
from ranklens.engine.measuring.measures.recall import recall
from ranklens.engine.measuring.measures.reciprocal_rank import reciprocal_rank
from ranklens.engine.measuring.measures.relevant import relevant_only
from ranklens.engine.measuring.measures.success import success

MeasureFunction = Callable[[Sequence[str], Mapping[str, int], "int | None"], float]

DEFAULT_MEASURES = "nDCG@10 MRR@10 P@5 R@100 MAP"


@dataclass(frozen=True)
class Family:
    """A kind of measure: its printed name, the function, the other names it answers to."""

    name: str
    function: MeasureFunction
    aliases: tuple[str, ...]
    takes_k: bool = True
    summary: str = ""
    # False: the function sees the relevant ids only (grade >= 1); True: every judged id, grade 0 included
    # (measures of coverage and of judged chunks only need to tell "judged not relevant" from "unjudged")
    reads_unjudged: bool = False


FAMILIES = (
    Family("nDCG", ndcg, ("ndcg",), summary="graded, linear gain, log2(rank+1) discount"),
    Family("MRR", reciprocal_rank, ("mrr", "rr", "recip_rank"),
           summary="1/rank of the first relevant chunk in the top k (cut at k, unlike eval's mrr)"),
    Family("hit", success, ("hit", "success", "hit_rate"), summary="1 when something relevant is in the top k"),
    Family("P", precision, ("p", "precision"), summary="relevant share of the top k"),
    Family("R", recall, ("r", "recall"), summary="share of the relevant chunks found in the top k"),
    Family("MAP", average_precision, ("map", "ap"), summary="mean precision at each relevant chunk"),
    Family("Rprec", r_precision, ("rprec", "r-precision", "r_precision"), takes_k=False,
           summary="precision at R, the number of relevant chunks"),
    Family("judged", judged_share, ("judged",), reads_unjudged=True,
           summary="share of the top k that has a judgment, relevant or not (coverage)"),
    Family("bpref", bpref, ("bpref",), takes_k=False, reads_unjudged=True,
           summary="judged relevant chunks ranked above judged non-relevant ones (trec_eval's)"),
    # Printed with _prime, not Sakai's apostrophe: a name in a JSON key or a jq filter stays unquoted
    Family("nDCG_prime", ndcg_prime, ("ndcg'", "ndcg_prime"), reads_unjudged=True,
           summary="nDCG of the ranking with its unjudged chunks removed (condensed list)"),
    Family("P_prime", precision_prime, ("p'", "p_prime"), reads_unjudged=True,
           summary="P of the ranking with its unjudged chunks removed (condensed list)"),
)
_BY_ALIAS = {alias: family for family in FAMILIES for alias in (*family.aliases, family.name.lower())}
_NAME = re.compile(r"^(?P<family>[A-Za-z_\-]+'?)(?:@(?P<k>\d+))?$")


@dataclass(frozen=True)
class Measure:
    """One measure at one cut-off, e.g. nDCG@10; ``name`` is how it is printed and keyed in JSON."""

    family: Family
    k: int | None = None

    @property
    def name(self) -> str:
        return self.family.name if self.k is None else f"{self.family.name}@{self.k}"

    def __call__(self, ranked: Sequence[str], grades: Mapping[str, int]) -> float:
        """The measure of one question: ``ranked`` ids best first, ``grades`` its judgments ({id: grade},
        grade 0 judged not relevant; ids not in it are unjudged)."""
        return self.family.function(ranked, grades if self.family.reads_unjudged else relevant_only(grades), self.k)


def known_names() -> str:
    """The measures' names as a user may write them, for messages."""
    fixed = " and ".join(f.name for f in FAMILIES if not f.takes_k)
    return ", ".join(f"{f.name}@k" if f.takes_k else f.name for f in FAMILIES) + f" (k optional but for {fixed})"


def parse_measures(text: str | Iterable[str]) -> list[Measure]:
    """Measures from ir_measures-style names, separated by spaces or commas; case does not matter.

    ``RR``/``MRR``, ``Success``/``hit``, ``AP``/``MAP``, ``R-precision``/``Rprec``, ``nDCG'``/``nDCG_prime``
    and ``P'``/``P_prime`` are the same measures. An unknown name is a ``RanklensError`` listing the known ones.
    """
    words = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    measures: list[Measure] = []
    for word in filter(None, words):
        match = _NAME.match(word)
        family = _BY_ALIAS.get(match.group("family").lower()) if match else None
        if match is None or family is None:
            raise RanklensError(f"unknown measure {word!r} (known: {known_names()})")
        k = int(match.group("k")) if match.group("k") is not None else None
        if k is not None and not family.takes_k:
            raise RanklensError(f"{family.name} takes no @k (got {word!r})")
        if k is not None and k < 1:
            raise RanklensError(f"{word!r}: k must be at least 1")
        measure = Measure(family, k)
        if measure not in measures:
            measures.append(measure)
    if not measures:
        raise RanklensError(f"no measures named (known: {known_names()})")
    return measures


def first_relevant_rank(ranked: Sequence[str], relevant: Mapping[str, int]) -> int | None:
    """1-based rank of the first relevant chunk in ``ranked``, None when none was retrieved."""
    for i, doc in enumerate(ranked, 1):
        if doc in relevant:
            return i
    return None


@dataclass
class RunMeasures:
    """A run measured: per question (``questions`` order) and the means over those questions."""

    measures: list[Measure]
    questions: list[str]  # the judged questions, in qrels order
    values: dict[str, list[float]]  # measure name -> one value per question
    first_ranks: list[int | None]  # rank of each question's first relevant chunk in the run
    warnings: list[str] = field(default_factory=list)

    @property
    def means(self) -> dict[str, float]:
        return {name: (sum(v) / len(v) if v else 0.0) for name, v in self.values.items()}

    def question(self, i: int) -> dict[str, float]:
        return {name: v[i] for name, v in self.values.items()}


def measure_run(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]],
                measures: Sequence[Measure] | str) -> RunMeasures:
    """Every measure of every judged question of ``run`` (question id -> ids, best first).

    ``qrels`` maps question ids to {id: grade}; questions without a grade >= 1 are not
    measured. Questions missing from the run and run questions without judgments are
    counted in ``warnings``.
    """
    chosen = parse_measures(measures) if isinstance(measures, str) else list(measures)
    judged = {qid: grades for qid, grades in qrels.items() if relevant_only(grades)}
    values: dict[str, list[float]] = {m.name: [] for m in chosen}
    first: list[int | None] = []
    missing = 0
    for qid, grades in judged.items():
        ranked = run.get(qid)
        if ranked is None:
            missing += 1
            ranked = ()
        for measure in chosen:
            values[measure.name].append(measure(ranked, grades))
        first.append(first_relevant_rank(ranked, relevant_only(grades)))
    warnings = []
    if missing:
        warnings.append(f"{missing} judged question(s) missing from the run (scored 0)")
    extra = sum(1 for qid in run if qid not in judged)
    if extra:
        warnings.append(f"{extra} question(s) of the run have nothing judged relevant (not measured)")
    return RunMeasures(chosen, list(judged), values, first, warnings)
