"""The one exception type that reaches users: a one-line, actionable message."""


class RanklensError(Exception):
    """Bad input from the user (a file, a line, an option).

    The CLI prints ``str(error)`` on one line and exits with status 2; the TUI
    shows it as a notification. Never raised for programming errors.
    """


class Cancelled(Exception):
    """Long work stopped because its caller asked it to."""
