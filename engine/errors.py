"""The one exception type that reaches users: a one-line, actionable message."""


class RanklensError(Exception):
    """Bad input from the user (a file, a line, an option).

    The CLI prints ``str(error)`` on one line and exits with status 2; the TUI
    shows it as a notification. Never raised for programming errors.
    """


class Cancelled(Exception):
    """Long work stopped because its caller asked it to."""


def json_problem(error: ValueError) -> str:
    """A ``json.JSONDecodeError`` in a message's words: what is wrong and its column.

    Some of the decoder's messages end with "at" ("Invalid control character at"), meant
    to be followed by a position; the column is added once.
    """
    message = str(getattr(error, "msg", error)).removesuffix(" at")
    column = getattr(error, "colno", None)
    return f"{message} at column {column}" if column is not None else message
