"""The digit keys that grade, in the Search tab's judge mode and the judging queue: 0 up to the corpus' top
grade (engine/judging/grades.py: 0-3, or more where the corpus' qrels or its max_grade say so, Cranfield's 0-4). Every
digit is bound; ``on_the_scale`` turns off those above the scale (check_action), so they do nothing there."""
from __future__ import annotations

from textual.binding import Binding

from ranklens.engine.judging.grades import DEFAULT_MAX_GRADE
from ranklens.tui.context import Context

GRADE_KEYS = 10
GRADE_NAMES = {0: "not relevant", 1: "relevant", 2: "highly relevant", 3: "perfect"}


def grade_bindings(tab: str, what: str) -> list[Binding]:
    """A binding per digit, ``grade(N)``, with ``tab``'s ids; ``what`` starts each tooltip ("Judge mode: grade
    the selected result")."""
    return [Binding(str(grade), f"grade({grade})", "grade", key_display="0-3", show=grade == 0,
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
