"""The settings of a retrieval setup, each declared once: type, default, range or choices, help, step.

``Setup`` (engine/setup.py) declares every field with ``setting(...)``; everything
else is derived from those declarations:

- checking a value from any source (a ranklens.toml, the command line, a TUI key):
  ``check_value``, with messages that name the setting, never a flag or a key;
- the command line's options (``ranklens.cli.options``): flag, metavar, help;
- the TUI's keys and palette entries (``ranklens.tui.setting_steps``): ``Step``.

A message says what is wrong in the engine's words ("k must be at least 1 (got
0)"); the caller adds where the value came from (the toml's path, the flag, the
key), through ``SettingError.setting``.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, Union
from collections.abc import Callable, Sequence

from ranklens.engine.errors import RanklensError

LANGUAGES = ("it", "en", "es")
BM25_VARIANTS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
DELTA_VARIANTS = ("bm25l", "bm25+")  # the BM25 variants that add delta to every term frequency component
# rrf: reciprocal rank fusion; sum: the mean of min-max normalised scores; minmax and zscore: a convex
# combination (fusion_weight on the first scorer) of min-max or z-score normalised scores
FUSION_METHODS = ("rrf", "sum", "minmax", "zscore")
WEIGHTED_FUSIONS = ("minmax", "zscore")  # the fusion methods that take fusion_weight
SKLEARN_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
MAX_DECIMALS = 12  # a float64 score has no more digits worth printing
# Chunk sizes and overlaps a key steps through: the lesson's 20/8 and 40/10 on the way, then
# sizes a real corpus would use, in words, characters (recursive, markdown: 1000/200) or tokens.
SIZE_LADDER = (10, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 750, 1000, 1500, 2000, 3000,
               4000)
OVERLAP_LADDER = (0, 2, 4, 5, 8, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 250, 300, 400, 500)
# The lesson's LSA table runs 4/8/12/16 dimensions; past those, sizes a real corpus would use.
DIMS_LADDER = (2, 4, 8, 12, 16, 24, 32, 50, 64, 100, 128, 200, 256, 300, 400, 512)

Choices = tuple[str, ...] | Callable[[], tuple[str, ...]]


class SettingError(RanklensError):
    """A setting's value was refused; ``setting`` names it so callers can say where it came from."""

    def __init__(self, setting: str, message: str, source: str | None = None) -> None:
        super().__init__(f"{source}: {message}" if source else message)
        self.setting = setting
        self.message = message
        self.source = source


@dataclass(frozen=True)
class Step:
    """How the TUI moves a setting: a key cycles choices or toggles a flag; two keys step a number.

    ``keys`` are Textual key names (one for a cycle or a toggle, ``(down, up)`` for a
    number); ``None`` leaves the setting to the command palette. A number moves by
    ``by``, or to the next value of ``ladder``.
    """

    keys: str | tuple[str, str] | None = None
    by: float | None = None
    ladder: tuple[int, ...] = ()


@dataclass(frozen=True)
class Setting:
    """One setting of a retrieval setup."""

    help: str
    default: Any
    title: str = ""  # a short name for people ("BM25 k1"); the field name when empty
    choices: Choices | None = None
    minimum: float | None = None
    maximum: float | None = None
    flag: str | None = ""  # the command-line option; "" derives --field-name, None: no option
    metavar: str | None = None
    step: Step | None = None
    # filled in from the Setup field
    name: str = ""
    kind: type = str
    optional: bool = False

    @property
    def option(self) -> str | None:
        if self.flag is None:
            return None
        return self.flag or "--" + self.name.replace("_", "-")

    def allowed(self) -> tuple[str, ...] | None:
        return self.choices() if callable(self.choices) else self.choices

    def label(self) -> str:
        return self.title or self.name.replace("_", " ")


def setting(default: Any, help: str, **details: Any) -> Any:
    """A ``Setup`` field declared with its setting (see ``Setting`` for ``details``)."""
    return dataclasses.field(default=default, metadata={"setting": Setting(help=help, default=default, **details)})


def settings_of(cls: type) -> dict[str, Setting]:
    """The settings declared on a dataclass, in field order, with name and type filled in."""
    hints = typing.get_type_hints(cls)
    found = {}
    for field in dataclasses.fields(cls):
        declared = field.metadata.get("setting")
        if declared is None:
            continue
        kind, optional = _base_type(hints[field.name])
        found[field.name] = dataclasses.replace(declared, name=field.name, kind=kind, optional=optional)
    return found


def _base_type(hint: Any) -> tuple[type, bool]:
    """(int, True) for ``int | None``; tuple for ``tuple[str, ...]``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        return _base_type(kinds[0])[0], len(kinds) < len(args)
    origin = typing.get_origin(hint)
    return (origin or hint), False


def check_value(spec: Setting, value: Any) -> Any:
    """``value`` as the setting's type, or a ``SettingError`` saying what is wrong with it."""
    if value is None:
        if spec.optional:
            return None
        raise SettingError(spec.name, f"{spec.name} needs a value")
    if spec.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if spec.kind is tuple:
        return _check_list(spec, value)
    if not isinstance(value, spec.kind) or (spec.kind is int and isinstance(value, bool)):
        raise SettingError(spec.name, f"{spec.name} must be {spec.kind.__name__}, got {type(value).__name__} {value!r}")
    allowed = spec.allowed()
    if allowed is not None and value not in allowed:
        raise SettingError(spec.name, f"unknown {spec.name} {value!r} (choose from {', '.join(allowed)})")
    if isinstance(value, (int, float)):
        _check_range(spec, value)
    return value


OFF_WORDS = ("off", "none")  # typed for an optional setting: no value (no reranker)
_YES_NO = {"yes": True, "on": True, "true": True, "1": True, "no": False, "off": False, "false": False, "0": False}


def parse_text(spec: Setting, text: str) -> Any:
    """A value typed as text (the TUI's setting prompt) as the setting's type, checked like any other."""
    text = text.strip()
    if spec.optional and text.lower() in OFF_WORDS:
        return None
    if spec.kind is bool:
        if text.lower() not in _YES_NO:
            raise SettingError(spec.name, f"{spec.name} is on or off, got {text!r}")
        return _YES_NO[text.lower()]
    if spec.kind in (int, float):
        try:
            number = spec.kind(text)
        except ValueError:
            raise SettingError(spec.name, f"{spec.name} must be {'a whole number' if spec.kind is int else 'a number'}"
                               f", got {text!r}") from None
        return check_value(spec, number)
    return check_value(spec, text)


def _check_range(spec: Setting, value: float) -> None:
    low, high = spec.minimum, spec.maximum
    # TOML and float() accept nan and inf, which would make every BM25 score nan or 0
    finite = math.isfinite(value)
    if low is not None and high is not None:
        ok, bound = finite and low <= value <= high, f"between {low:g} and {high:g}"
    elif low is not None:
        ok = finite and value >= low
        bound = f"at least {low:g}" if spec.kind is int else f"a finite number >= {low:g}"
    else:
        ok, bound = finite, "a finite number"
    if not ok:
        raise SettingError(spec.name, f"{spec.name} must be {bound} (got {value})")


def _check_list(spec: Setting, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, (list, tuple)):
        raise SettingError(spec.name, f"{spec.name} must be a list, got {type(value).__name__} {value!r}")
    items = tuple(str(v) for v in value)
    allowed = spec.allowed()
    bad = [v for v in items if allowed is not None and v not in allowed]
    if bad:
        raise SettingError(spec.name, f"{spec.name} takes {', '.join(allowed or ())} (got {bad[0]!r})")
    return items


def next_value(spec: Setting, current: Any, up: bool = True, options: Sequence[Any] | None = None) -> Any:
    """Where the setting's step takes ``current``: the next choice, the other truth value, the
    next rung of the ladder or ``current ± by`` (which may leave the range: checking refuses it)."""
    if spec.kind is bool:
        return not current
    if options is not None or spec.choices is not None:
        return _cycle(list(options if options is not None else spec.allowed() or ()), current)
    step = spec.step or Step()
    if step.ladder:
        return _ladder(step.ladder, current, up)
    if step.by is not None:
        moved = current + step.by if up else current - step.by
        return round(moved, 6) if spec.kind is float else int(moved)
    raise ValueError(f"{spec.name} has no step")


def _cycle(options: list[Any], current: Any) -> Any:
    """The option after ``current``; the first one when ``current`` is not among them."""
    options = list(dict.fromkeys(options))
    if current not in options:
        return options[0]
    return options[(options.index(current) + 1) % len(options)]


def _ladder(values: Sequence[int], current: int, up: bool) -> int:
    """The next value of ``values`` above (or below) ``current``, staying at the ends."""
    if up:
        return next((v for v in values if v > current), values[-1])
    return next((v for v in reversed(values) if v < current), values[0])
