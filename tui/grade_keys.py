"""The digit keys that grade, in the Search tab's judge mode and the judging queue: 0 up to the corpus' top
grade (engine/judging/grades.py: 0-3, or more where the corpus' qrels or its max_grade say so, Cranfield's 0-4). Every
digit is bound. The footer shows the open corpus' scale (``grade_key_display``, the app's key display). In judge
mode a digit above the scale says the scale (``off_the_scale``); the queue turns those off (``on_the_scale``)."""
from __future__ import annotations

from textual.binding import Binding

from ranklens.engine.judging.grades import DEFAULT_MAX_GRADE
from ranklens.tui.context import Context

GRADE_KEYS = 10
GRADE_NAMES = {0: "not relevant", 1: "relevant", 2: "highly relevant", 3: "perfect"}


def grade_bindings(tab: str, what: str) -> list[Binding]:
    """A binding per digit, ``grade(N)``, with ``tab``'s ids; ``what`` starts each tooltip ("Judge mode: grade
    the selected result")."""
    return [Binding(str(grade), f"grade({grade})", "grade", key_display=f"0-{DEFAULT_MAX_GRADE}", show=grade == 0,
                    tooltip=f"{what} {grade}" + (f" ({GRADE_NAMES[grade]})" if grade in GRADE_NAMES else ""),
                    id=f"{tab}.grade.{grade}")
            for grade in range(GRADE_KEYS)]


def scale_top(context: Context | None) -> int:
    """The top grade of the open corpus' scale."""
    workspace = context.workspace if context is not None else None
    return workspace.max_grade if workspace is not None else DEFAULT_MAX_GRADE


def on_the_scale(context: Context | None, parameters: tuple[object, ...]) -> bool:
    """Whether ``grade(N)``'s N is a grade of the open corpus' scale."""
    grade = parameters[0] if parameters else 0
    return not isinstance(grade, int) or grade <= scale_top(context)


def grade_key_display(binding: Binding, context: Context | None) -> str | None:
    """How the footer shows the grading keys: the open corpus' scale ("0-4"); None for another key, and for one
    digit alone (the help lists each with its grade)."""
    return f"0-{scale_top(context)}" if binding.key_display and binding.action.startswith("grade(") else None


def off_the_scale(context: Context | None, grade: int) -> str | None:
    """What to say when ``grade`` is above the open corpus' scale; None when it is a grade of it."""
    top = scale_top(context)
    return f"{grade} is no grade of this corpus: its scale is 0-{top}" if grade > top else None
