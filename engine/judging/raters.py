"""Who gave a judgment, and the rule that turns several raters' grades of one (question, id) into one.

Every line of a workspace's judgment log names its rater (engine/workspace/store.py); a line written
before raters were recorded has none and reads as the *unnamed* rater (``""``, shown
``(unnamed)``). A rater's name is non-empty, printable and at most 64 characters; the default
is the login name (``getpass.getuser()``), or the unnamed rater when there is none usable.

When more than one rater graded a pair, the workspace's declared rule (``rater_rule`` in its
``settings.json``; ``ranklens judgments CORPUS --rater-rule RULE``) decides the grade that counts:

- ``latest`` (the default): the grade given last, whoever gave it (with one rater: the log's
  last word, as before raters were recorded);
- ``mean``: the raters' mean grade rounded half up (1 and 2 give 2; 0, 1 and 1 give 1);
- ``majority``: the grade most raters gave, a tie going to the higher grade (0, 0, 2, 2 gives 2);
- ``max``: the highest grade any rater gave.
A grade 0 (judged not relevant) is a grade like the others in every rule.
"""
from __future__ import annotations

import getpass
import math
from collections import Counter
from collections.abc import Mapping
from fractions import Fraction

from ranklens.engine.errors import RanklensError

UNNAMED = ""  # the rater of a log line written before raters were recorded
MAX_RATER_CHARS = 64
RATER_RULES = ("latest", "mean", "majority", "max")
DEFAULT_RULE = "latest"


def rater_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a rater's name, None when nothing is."""
    if not name.strip():
        return "a rater's name cannot be empty"
    if len(name) > MAX_RATER_CHARS:
        return f"a rater's name has at most {MAX_RATER_CHARS} characters (this one has {len(name)})"
    if not name.isprintable():
        return "a rater's name must be printable (no tab, newline or control character)"
    return None


def check_rater(name: str) -> str:
    """``name`` when it is a usable rater's name or the unnamed rater (``""``, who wrote the logs before raters
    were recorded, and writes where no login name is found); else ``RanklensError`` saying why."""
    problem = None if name == UNNAMED else rater_problem(name)
    if problem is not None:
        raise RanklensError(f"rater {name!r}: {problem}")
    return name


def default_rater() -> str:
    """The login name, or the unnamed rater when it cannot be found or is not a usable name."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no LOGNAME/USER and no passwd entry (a bare container)
        return UNNAMED
    return name if rater_problem(name) is None else UNNAMED


def shown_rater(name: str) -> str:
    """A rater's name for people: the unnamed rater reads ``(unnamed)``."""
    return name or "(unnamed)"


def check_rule(rule: str, source: str) -> str:
    """``rule`` when it is one of ``RATER_RULES``; else ``RanklensError`` naming ``source`` (a file, an option)."""
    if rule not in RATER_RULES:
        raise RanklensError(f"{source}: unknown rater rule {rule!r} (use {', '.join(RATER_RULES)})")
    return rule


def combine(grades: Mapping[str, int], rule: str) -> int:
    """The one grade of a pair by ``rule``; ``grades`` is rater -> grade, in the order the grades were given
    (the last one is the latest). Not empty."""
    values = list(grades.values())
    if rule == "latest" or len(values) == 1:
        return values[-1]
    if rule == "max":
        return max(values)
    if rule == "mean":
        return math.floor(Fraction(sum(values), len(values)) + Fraction(1, 2))  # exact: 2.5 is 3, never 2
    if rule == "majority":
        counts = Counter(values)
        return max(counts, key=lambda grade: (counts[grade], grade))
    raise ValueError(rule)
