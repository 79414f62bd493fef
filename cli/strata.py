"""``compare --by FIELD``: a comparison's measures per stratum of a question field (``engine/comparing/strata.py``).

The field is checked as soon as the corpus is loaded, before any run is made; the strata are
then read off the comparison's per-question values, and printed under its table (or added
to its JSON as ``"strata_by"`` and ``"strata"``).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ranklens.cli.options import UsageError
from ranklens.cli.output import say, terminal_text

if TYPE_CHECKING:
    from ranklens.engine.comparing.two_runs import Comparison
    from ranklens.engine.corpus import Question
    from ranklens.engine.comparing.strata import ComparedStratum

STRATUM_CELLS = 24  # a stratum's name is cut to this many characters in the text table


def add_by_option(parser: Any) -> None:
    parser.add_argument("--by", metavar="FIELD",
                        help="each measure per stratum of a question field of queries.jsonl (tags, metadata.type, "
                             "...; a list puts a question in one stratum per element) or of length (words: 1-4, "
                             "5-8, 9-16, 17-32, 33+)")


class Strata:
    """``--by``'s field, checked against the corpus' questions when made, and the comparison's strata."""

    def __init__(self, by: str | None, questions: Sequence[Question]) -> None:
        from ranklens.engine.errors import RanklensError
        from ranklens.engine.comparing.strata import check_field

        self.by = by
        self.questions = questions
        self.strata: list[ComparedStratum] = []
        if by is not None:
            try:
                check_field(questions, by)
            except RanklensError as error:
                raise UsageError(f"ranklens compare: --by: {error}") from None

    def split(self, comparison: Comparison) -> Strata:
        """The comparison's compared questions by the field (nothing without ``--by``)."""
        from ranklens.engine.comparing.strata import compare_strata

        if self.by is not None:
            self.strata = compare_strata(comparison, self.questions, self.by)
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON's ``strata_by`` and ``strata`` (nothing without ``--by``)."""
        if self.by is None:
            return {}
        return {"strata_by": self.by, "strata": [stratum.to_dict() for stratum in self.strata]}

    def say(self, comparison: Comparison) -> None:
        """The strata under the comparison's table: the first measure whole, the others' Δ."""
        if self.by is None:
            return
        primary, others = comparison.rows[0].name, [row.name for row in comparison.rows[1:]]
        overlap = sum(s.questions for s in self.strata) > len(comparison.questions)
        say(f"by {terminal_text(self.by)}: {primary} of A and B per stratum, B's wins/ties/losses, Δ of the "
            "other measures" + (" (a question with several values counts in each of their strata)" if overlap else ""))
        width = min(STRATUM_CELLS, max(7, *(len(terminal_text(s.stratum)) for s in self.strata)))
        deltas = [(f"Δ {name}", max(8, len(name) + 3)) for name in others]
        say(f"{'stratum':<{width}} {'n':>4}  {'A':>7} {'B':>7} {'Δ':>8}  {'w/t/l':>9}"
            + "".join(f" {header:>{cells}}" for header, cells in deltas))
        for stratum in self.strata:
            first = stratum.metrics[primary]
            wtl = f"{first.wins}/{first.ties}/{first.losses}"
            say(f"{terminal_text(stratum.stratum)[:width]:<{width}} {stratum.questions:>4}  {first.a:>7.4f} "
                f"{first.b:>7.4f} {first.delta:>+8.4f}  {wtl:>9}"
                + "".join(f" {stratum.metrics[name].delta:>+{cells}.4f}"
                          for name, (_, cells) in zip(others, deltas)))
