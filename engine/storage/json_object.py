"""One JSON object read from text, every way it can fail as one line naming where it came from.

The one reader of a JSON object from a file ranklens did not just make: a corpus' JSONL lines
(``engine/corpus/loaders/jsonl.py``), the workspace's files, a run's sidecar, imported questions. The
standard library's decoder recurses once per nesting level, so a deeply nested value is a
``RecursionError``, and an integer of more than 4300 digits a ``ValueError``: both are bad input.
"""
from __future__ import annotations

import json
from typing import Any

from ranklens.engine.errors import RanklensError, json_problem


def parse_object(text: str | bytes, where: str) -> dict[str, Any]:
    """``text`` as a JSON object; else a ``RanklensError`` starting ``where`` (a path, or ``path:line``)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise RanklensError(f"{where}: not valid JSON ({json_problem(error)})") from None
    except UnicodeDecodeError:  # bytes that are not UTF-8
        raise RanklensError(f"{where}: not valid JSON (not UTF-8 text)") from None
    except ValueError as error:  # an integer of more than 4300 digits
        raise RanklensError(f"{where}: not usable JSON ({error})") from None
    except RecursionError:
        raise RanklensError(f"{where}: not usable JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise RanklensError(f"{where}: not a JSON object")
    return value
